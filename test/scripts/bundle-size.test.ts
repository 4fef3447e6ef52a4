/** The script-tag size gate (scripts/bundle-size.mjs) on folders laid out like the build's output. */
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { gzipSync } from 'node:zlib';
import { checkBundleSize, CRITICAL_BUDGET_BYTES, measure, scriptGraph, TOTAL_BUDGET_BYTES } from '../../scripts/bundle-size.mjs';

const dirs: string[] = [];
after(() => dirs.forEach((d) => rmSync(d, { recursive: true, force: true })));

/** `n` bytes that gzip cannot shrink, the same on every run. */
function noise(n: number, seed: string): string {
  let out = '';
  for (let i = 0; out.length < n; i++) out += createHash('sha256').update(`${seed}${i}`).digest('base64');
  return out.slice(0, n);
}

function folder(files: Record<string, string>): string {
  const dir = mkdtempSync(join(tmpdir(), 'bundle-size-'));
  dirs.push(dir);
  for (const [name, text] of Object.entries(files)) writeFileSync(join(dir, name), text);
  return dir;
}

const gz = (text: string) => gzipSync(text, { level: 9 }).byteLength;

const entry = (size: number) => `(function(){import(new URL(\`./hitl-elements.parts-AbC12.js\`,b).href)})();/*${noise(size, 'entry')}*/`;
const parts = (size: number) => `const{a:e}=globalThis[Symbol.for("k")];import"./hitl-elements.shared-Zz9.js";/*${noise(size, 'parts')}*/`;
const shared = `export const x=1;/*${noise(500, 'shared')}*/`;
const ja = `export default {retry:"再試行"};/*${noise(3000, 'ja')}*/`;

test('the critical path is the bundle alone; the total adds every chunk it can reach, not the term files', () => {
  const files = { 'hitl-elements.js': entry(1000), 'hitl-elements.parts-AbC12.js': parts(2000), 'hitl-elements.shared-Zz9.js': shared, 'hitl-elements.ja.js': ja, 'hitl-elements.companions.zh-Hans.js': ja };
  const dir = folder(files);
  assert.deepEqual(scriptGraph(dir), ['hitl-elements.js', 'hitl-elements.parts-AbC12.js', 'hitl-elements.shared-Zz9.js']);
  const result = measure(dir, { critical: 10_000, total: 10_000 });
  assert.equal(result.critical.bytes, gz(files['hitl-elements.js']));
  assert.equal(result.total.bytes, gz(files['hitl-elements.js']) + gz(files['hitl-elements.parts-AbC12.js']) + gz(shared));
  assert.deepEqual(result.terms.map((t) => t.name), ['hitl-elements.companions.zh-Hans.js', 'hitl-elements.ja.js']);
  assert.ok(result.critical.ok && result.total.ok);
  // Deterministic: the same files, the same answer.
  assert.deepEqual(measure(dir, { critical: 10_000, total: 10_000 }), result);
});

test('a bundle one byte over the critical-path budget fails the gate, however small the rest', () => {
  const files = { 'hitl-elements.js': entry(3000), 'hitl-elements.parts-AbC12.js': parts(10), 'hitl-elements.shared-Zz9.js': shared };
  const dir = folder(files);
  const critical = gz(files['hitl-elements.js']);
  assert.equal(measure(dir, { critical: critical - 1, total: 100_000 }).critical.ok, false);
  assert.equal(measure(dir, { critical: critical - 1, total: 100_000 }).total.ok, true);
  assert.equal(checkBundleSize(dir, { critical: critical - 1, total: 100_000 }), false);
  assert.equal(checkBundleSize(dir, { critical, total: 100_000 }), true);
});

test('chunks one byte over the total budget fail the gate while the critical path holds', () => {
  const files = { 'hitl-elements.js': entry(1000), 'hitl-elements.parts-AbC12.js': parts(4000), 'hitl-elements.shared-Zz9.js': shared };
  const dir = folder(files);
  const total = Object.values(files).reduce((sum, text) => sum + gz(text), 0);
  const result = measure(dir, { critical: 100_000, total: total - 1 });
  assert.equal(result.critical.ok, true);
  assert.equal(result.total.ok, false);
  assert.equal(checkBundleSize(dir, { critical: 100_000, total: total - 1 }), false);
  assert.equal(checkBundleSize(dir, { critical: 100_000, total }), true);
});

test('a hashed file the bundle does not name still counts towards the total (only term files are left out)', () => {
  const stray = `/*${noise(1500, 'stray')}*/`;
  const dir = folder({ 'hitl-elements.js': entry(100), 'hitl-elements.parts-AbC12.js': parts(100), 'hitl-elements.shared-Zz9.js': shared, 'hitl-elements.lost-Q1w2.js': stray });
  const result = measure(dir);
  assert.ok(result.chunks.some((c) => c.name === 'hitl-elements.lost-Q1w2.js'));
  assert.equal(result.total.bytes, [entry(100), parts(100), shared, stray].reduce((sum, text) => sum + gz(text), 0));
});

test('the budgets are the ones README "Bundle budget" states', () => {
  assert.equal(CRITICAL_BUDGET_BYTES, 20_000);
  assert.equal(TOTAL_BUDGET_BYTES, 52_000);
});
