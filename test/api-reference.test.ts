/** docs/api.md is generated from custom-elements.json and committed; it must be current. */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { test } from 'node:test';
import { apiMarkdown, elementsOf } from '../scripts/api-reference.mjs';

const manifest = JSON.parse(readFileSync('custom-elements.json', 'utf8'));

test('the committed docs/api.md matches custom-elements.json (run `npm run analyze` to refresh both)', () => {
  assert.equal(readFileSync('docs/api.md', 'utf8'), apiMarkdown(manifest));
});

test('the reference covers every element with its attributes, events, parts and CSS properties', () => {
  const reference = readFileSync('docs/api.md', 'utf8');
  const elements = elementsOf(manifest);
  assert.ok(elements.length > 0);
  for (const element of elements) {
    const start = reference.indexOf(`<a id="${element.tag}"></a>`);
    assert.ok(start >= 0, `no section for <${element.tag}>`);
    const next = reference.indexOf('\n## ', start + 1);
    const section = reference.slice(start, next < 0 ? undefined : next);
    for (const name of [...element.attributes, ...element.events, ...element.cssParts, ...element.cssProperties].map((x) => x.name)) {
      assert.ok(section.includes(`\`${name}\``), `<${element.tag}>'s reference lacks ${name}`);
    }
  }
});
