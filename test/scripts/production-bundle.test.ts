/**
 * The script-tag bundle is a production artefact whatever the environment that builds it: a
 * `NODE_ENV` left at `development` (Vite's dev server sets it for its own process, and a build
 * started from there inherits it) must not make the bundler pick Lit's development build, which
 * is 13 kB larger and warns in every visitor's console.
 */
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { promisify } from 'node:util';

test('built with NODE_ENV=development, the bundle still holds the production builds of its dependencies', async () => {
  const out = mkdtempSync(join(tmpdir(), 'hitl-bundle-'));
  try {
    await promisify(execFile)(process.execPath, ['node_modules/vite/bin/vite.js', 'build', '--logLevel', 'error', '--outDir', out], {
      env: { ...process.env, NODE_ENV: 'development' },
    });
    const entry = readFileSync(join(out, 'hitl-elements.js'), 'utf8');
    assert.ok(!entry.includes('Lit is in dev mode'), "Lit's development build is in the bundle");
  } finally {
    rmSync(out, { recursive: true, force: true });
  }
});
