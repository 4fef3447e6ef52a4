// The script-tag bundle's size budget: every element and its dependencies, minified, gzip -9.
import { readFileSync } from 'node:fs';
import { gzipSync } from 'node:zlib';

export const BUNDLE = 'dist/hitl-elements.js';
export const BUDGET_BYTES = 40_000;

export function checkBundleSize(file = BUNDLE) {
  const raw = readFileSync(file);
  const gzipped = gzipSync(raw, { level: 9 }).byteLength;
  const ok = gzipped <= BUDGET_BYTES;
  console.log(
    `bundle ${file}: ${raw.byteLength.toLocaleString('en')} B raw, ${gzipped.toLocaleString('en')} B gzip -9 ` +
      `(budget ${BUDGET_BYTES.toLocaleString('en')} B, ${ok ? `${(BUDGET_BYTES - gzipped).toLocaleString('en')} B left` : 'OVER BUDGET'})`,
  );
  return ok;
}

if (import.meta.url === `file://${process.argv[1]}`) process.exit(checkBundleSize() ? 0 : 1);
