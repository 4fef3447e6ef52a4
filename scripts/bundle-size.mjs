// The script-tag bundle's size budgets, gzip -9 (README "Bundle budget"):
// - the critical path, `hitl-elements.js` itself: all the script a page downloads before
//   `<human-input-form>` sends its session request (the build makes sure it imports nothing
//   statically, see vite.config.ts);
// - everything: that file and every chunk it can load, which a page fetches in parallel with the
//   session and the run.
// The term files of the other languages beside it (`hitl-elements.ja.js`, …) are listed, not
// counted: a page loads the ones of its own language only, if any (under 1.7 kB).
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';

export const DIST = 'dist';
export const ENTRY = 'hitl-elements.js';
export const CRITICAL_BUDGET_BYTES = 20_000;
/**
 * Issue 2 set 40,000 B for the one file the bundle was; the runtime dependencies the issues
 * require (lit, marked, DOMPurify, fetch-event-source) take 32,670 B of it, so issue 15 retired it
 * for the critical path above and this ceiling on everything (issue 15's 52,000 B). Two files
 * compress worse than one (each starts gzip afresh) and need the registry that hands the bundle's
 * modules to the chunk; the bundle meets the ceiling by leaving out what the elements never run
 * (marked's default instance, its pedantic mode and extension and hook branches, DOMPurify's
 * unused instance methods) and by a Terser pass over Oxc's output (vite.config.ts).
 */
export const TOTAL_BUDGET_BYTES = 52_000;

export const gzipSize = (bytes) => gzipSync(bytes, { level: 9 }).byteLength;

/** The script files a page can load from `hitl-elements.js` in `dir`: itself first, then its chunks (by name). */
export function scriptGraph(dir) {
  const seen = new Set([ENTRY]);
  const queue = [ENTRY];
  while (queue.length) {
    const code = readFileSync(join(dir, queue.shift()), 'utf8');
    // Chunks are named literally (`import(new URL("./x.js", base))`, `from "./x.js"`); the term
    // files are not (their name is made from the locale at run time).
    for (const [, name] of code.matchAll(/["'`]\.\/(hitl-elements\.[\w.-]+\.js)["'`]/g)) {
      if (!seen.has(name)) seen.add(name), queue.push(name);
    }
  }
  const [entry, ...chunks] = seen;
  return [entry, ...chunks.sort()];
}

/** A language's term file (`hitl-elements.ja.js`, `hitl-elements.companions.zh-Hans.js`); chunks carry a hash. */
export const TERM_FILE = /^hitl-elements\.(?:companions\.)?[a-z]{2,3}(?:-[A-Za-z0-9]+)*\.js$/;

/**
 * Every script file's size, and the two budgets' verdicts. Every `hitl-elements.*.js` file but the
 * term files counts towards the total, reachable from the bundle or not. Deterministic: the same
 * files give the same answer.
 */
export function measure(dir = DIST, budgets = { critical: CRITICAL_BUDGET_BYTES, total: TOTAL_BUDGET_BYTES }) {
  const size = (name) => {
    const raw = readFileSync(join(dir, name));
    return { name, raw: raw.byteLength, gzip: gzipSize(raw) };
  };
  const [entry, ...reachable] = scriptGraph(dir);
  const files = readdirSync(dir).filter((name) => /^hitl-elements\..+\.js$/.test(name) && name !== entry);
  const terms = files.filter((name) => TERM_FILE.test(name) && !reachable.includes(name)).sort();
  const chunks = files.filter((name) => !terms.includes(name)).sort().map(size);
  const first = size(entry);
  const total = first.gzip + chunks.reduce((sum, c) => sum + c.gzip, 0);
  return {
    entry: first,
    chunks,
    terms: terms.map(size),
    critical: { bytes: first.gzip, budget: budgets.critical, ok: first.gzip <= budgets.critical },
    total: { bytes: total, budget: budgets.total, ok: total <= budgets.total },
  };
}

const n = (value) => value.toLocaleString('en');
const verdict = ({ bytes, budget, ok }) => `${n(bytes)} B (budget ${n(budget)} B, ${ok ? `${n(budget - bytes)} B left` : 'OVER BUDGET'})`;

/** Prints the sizes and returns whether both budgets hold. */
export function checkBundleSize(dir = DIST, budgets) {
  const result = measure(dir, budgets);
  const row = (f, what) => `  ${f.name.padEnd(44)} ${n(f.raw).padStart(9)} B raw ${n(f.gzip).padStart(7)} B gzip -9  ${what}`;
  console.log(
    [
      'script-tag bundle:',
      row(result.entry, 'critical path'),
      ...result.chunks.map((c) => row(c, 'chunk')),
      ...result.terms.map((f) => row(f, 'term file (one language, on demand)')),
      `  critical path: ${verdict(result.critical)}`,
      `  bundle and chunks: ${verdict(result.total)}`,
    ].join('\n'),
  );
  return result.critical.ok && result.total.ok;
}

if (import.meta.url === `file://${process.argv[1]}`) process.exit(checkBundleSize(process.argv[2]) ? 0 : 1);
