/** `custom-elements.json` is generated from the elements' JSDoc and committed; it must be current. */
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';

test('the committed custom-elements.json matches the source (run `npm run analyze` to refresh it)', () => {
  // The analyzer resolves its outdir against the working directory.
  const dir = `.cem-check-${process.pid}`;
  try {
    execFileSync('node_modules/.bin/cem', ['analyze'], { env: { ...process.env, CEM_OUTDIR: dir }, stdio: 'pipe' });
    const generated = JSON.parse(readFileSync(join(dir, 'custom-elements.json'), 'utf8'));
    const committed = JSON.parse(readFileSync('custom-elements.json', 'utf8'));
    assert.deepEqual(committed, generated);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('every element in the manifest documents its tag, events and parts', () => {
  const manifest = JSON.parse(readFileSync('custom-elements.json', 'utf8')) as {
    modules: { declarations?: { customElement?: boolean; tagName?: string; events?: unknown[]; cssParts?: unknown[] }[] }[];
  };
  const elements = manifest.modules.flatMap((m) => m.declarations ?? []).filter((d) => d.customElement);
  assert.ok(elements.length > 0, 'no custom element in the manifest');
  for (const element of elements) {
    assert.ok(element.tagName, 'an element without @tag');
    assert.ok(element.events?.length, `${element.tagName} documents no events`);
    assert.ok(element.cssParts?.length, `${element.tagName} documents no parts`);
  }
});
