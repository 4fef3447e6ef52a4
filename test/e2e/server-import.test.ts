/**
 * Server rendering (a Next.js server component, an SSR build) imports the package in Node, where
 * there is no DOM: every entry of "exports" must import there, and the define modules must
 * register nothing (the elements upgrade in the browser).
 */
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { promisify } from 'node:util';
import { builtPackage } from './helpers/package-build.js';

/** Run in a plain `node` (no tsx, no DOM shim), resolving the package by its name from inside it. */
const PROBE = `
const pkg = JSON.parse(await (await import('node:fs/promises')).readFile('package.json', 'utf8'));
const failures = [];
for (const [entry, target] of Object.entries(pkg.exports)) {
  const file = typeof target === 'string' ? target : target.import ?? target.default;
  if (!file.endsWith('.js')) continue;
  const specifier = pkg.name + entry.slice(1);
  try { await import(specifier); } catch (error) { failures.push(specifier + ': ' + String(error?.message ?? error).split('\\n')[0]); }
}
const tags = ['human-input-form', 'hitl-paragraph', 'hitl-select', 'hitl-file', 'hitl-file-list', 'conversation-list', 'conversation-variables', 'message-feedback', 'tts-player'];
const registered = tags.filter((tag) => globalThis.customElements?.get(tag));
const domGlobals = ['window', 'document', 'HTMLElement'].filter((name) => name in globalThis);
console.log(JSON.stringify({ failures, registered, domGlobals }));
`;

test('every "exports" entry imports in plain Node without a DOM, and the define modules register nothing there', async () => {
  const root = await builtPackage();
  const pkg = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as { exports: Record<string, unknown> };
  assert.ok(Object.keys(pkg.exports).length > 20);
  const { stdout } = await promisify(execFile)(process.execPath, ['--input-type=module', '-e', PROBE], { cwd: root, env: { PATH: process.env.PATH } });
  assert.deepEqual(JSON.parse(stdout), { failures: [], registered: [], domGlobals: [] });
});
