// The end-to-end tests' package build cache must never serve one clone with another clone's
// node_modules (issue: CI failed after a deleted clone had filled a cache in the OS temp folder).
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { test } from 'node:test';
import { CACHE, REPO, usableBuild } from './helpers/package-build.js';

test('the build cache lives inside this clone', () => {
  assert.ok(!relative(REPO, CACHE).startsWith('..'), `${CACHE} is outside ${REPO}`);
});

test('a cached build linked to another clone, or to a deleted one, is not reused; two clones in turn each get their own', () => {
  const base = mkdtempSync(join(tmpdir(), 'hitl-clones-'));
  try {
    const clone = (name: string) => {
      const dir = join(base, name);
      mkdirSync(join(dir, 'node_modules'), { recursive: true });
      return dir;
    };
    const entry = (cloneDir: string) => {
      // Kept outside the clone here, so that deleting the clone leaves the entry with a dangling link.
      const root = join(base, `cache-of-${relative(base, cloneDir)}`);
      mkdirSync(root, { recursive: true });
      writeFileSync(join(root, 'package.json'), '{}');
      symlinkSync(join(cloneDir, 'node_modules'), join(root, 'node_modules'), 'dir');
      return root;
    };
    const first = clone('first');
    const second = clone('second');
    const firstEntry = entry(first);
    assert.equal(usableBuild(firstEntry, first), true);
    assert.equal(usableBuild(firstEntry, second), false, 'another clone’s build is not reused');
    rmSync(first, { recursive: true, force: true });
    assert.equal(usableBuild(firstEntry, second), false, 'a dangling link is not reused');
    assert.equal(usableBuild(entry(second), second), true);
  } finally {
    rmSync(base, { recursive: true, force: true });
  }
});
