/**
 * Every shipped locale (`src/elements/locales/*.ts`) says every term of its table, the form's or
 * the companions', with the same `{n}` placeholders as English, and the locale loader knows it.
 */
import assert from 'node:assert/strict';
import { readdirSync } from 'node:fs';
import { test } from 'node:test';

type Table = Record<string, string>;
/**
 * Element modules, imported by a computed name: they name DOM types, so they type-check in the
 * browser program (tsconfig.json), not in this one; run here, they touch no DOM.
 */
const elementModule = <T>(path: string): Promise<T> => import(`../src/elements/${path}`) as Promise<T>;
const { termsFor } = await elementModule<{ termsFor(locale: string): Table }>('shared/terms.js');
const { COMPANION_KEYS, companionTerms } = await elementModule<{ COMPANION_KEYS: string[]; companionTerms(locale: string): Table }>('shared/companion-terms.js');
const { loadLocale } = await elementModule<{ loadLocale(name: string): Promise<unknown> }>('shared/locale-loader.js');

const english = {
  form: termsFor('en'),
  companions: Object.fromEntries(COMPANION_KEYS.map((key) => [key, companionTerms('en')[key]])) as Table,
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
    const table = (await elementModule<{ default: Record<string, unknown> }>(`locales/${file.replace(/\.ts$/, '.js')}`)).default;
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
