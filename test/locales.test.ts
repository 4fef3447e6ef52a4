/**
 * Every shipped locale (`src/elements/locales/*.ts`) says every term of its table, the form's or
 * the companions', with the same `{n}` placeholders as English, and the locale loader knows it.
 */
import assert from 'node:assert/strict';
import { readdirSync } from 'node:fs';
import { test } from 'node:test';
import { COMPANION_KEYS, companionTerms } from '../src/elements/shared/companion-terms.js';
import { loadLocale } from '../src/elements/shared/locale-loader.js';
import { termsFor } from '../src/elements/shared/terms.js';

const english = {
  form: termsFor('en') as Record<string, string>,
  companions: Object.fromEntries(COMPANION_KEYS.map((key) => [key, companionTerms('en')[key]])) as Record<string, string>,
};
const placeholders = (term: string) => [...term.matchAll(/\{\d\}/g)].map((m) => m[0]).sort();
const files = readdirSync('src/elements/locales').filter((f) => f.endsWith('.ts'));

test('ja and zh-Hans ship both tables', () => {
  assert.deepEqual(files.sort(), ['companions.ja.ts', 'companions.zh-Hans.ts', 'ja.ts', 'zh-Hans.ts']);
});

for (const file of files) {
  const name = file.replace(/\.ts$/, '');
  const en = name.startsWith('companions.') ? english.companions : english.form;

  test(`${file} has every term of its English table, and no other`, async () => {
    const table = ((await import(`../src/elements/locales/${file}`)) as { default: Record<string, unknown> }).default;
    assert.deepEqual(Object.keys(table).sort(), Object.keys(en).sort());
    for (const [key, term] of Object.entries(table)) {
      assert.ok(typeof term === 'string' && term.trim(), `${file}: ${key} is empty`);
      assert.deepEqual(placeholders(term), placeholders(en[key]!), `${file}: ${key} has other placeholders than English`);
    }
    assert.equal(await loadLocale(name), table, `the locale loader does not load ${name}`);
  });
}

test('every companion term is in the English table, and the form’s shared ones come through', () => {
  const terms = companionTerms('en');
  for (const key of COMPANION_KEYS) assert.ok(terms[key], key);
  assert.equal(terms.retry, english.form.retry);
});
