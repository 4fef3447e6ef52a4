// `npm test`: typecheck, node tests, browser tests (once per engine: Chromium, Firefox, WebKit),
// end-to-end tests, in that order. Every stage runs even after a failure; the last line is the
// plain `N passed, N failed` summary and the exit code is non-zero when anything failed.
import { spawn } from 'node:child_process';
import { existsSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { chromiumPath } from './chromium.mjs';

let chromium;
try {
  chromium = chromiumPath();
} catch (error) {
  console.error(error.message);
  process.exit(1);
}

const testFiles = (dir, keep = () => true) =>
  existsSync(dir)
    ? readdirSync(dir, { recursive: true })
        .map(String)
        .filter((f) => f.endsWith('.test.ts') && keep(f))
        .map((f) => join(dir, f))
        .sort()
    : [];

const ENGINES = ['chromium', 'firefox', 'webkit'];
const named = (process.env.HITL_ENGINES ?? '').split(',').map((e) => e.trim().toLowerCase()).filter(Boolean);
const engines = named.length ? ENGINES.filter((e) => named.includes(e)) : ENGINES;
if (named.some((e) => !ENGINES.includes(e))) {
  console.error(`HITL_ENGINES: choose from ${ENGINES.join(', ')}.`);
  process.exit(1);
}

const nodeTests = testFiles('test', (f) => !f.startsWith('elements/') && !f.startsWith('e2e/'));
const e2eTests = testFiles('test/e2e');

const stages = [
  { name: 'typecheck', cmd: 'node_modules/.bin/tsc', args: ['--noEmit', '-p', 'tsconfig.json'] },
  { name: 'typecheck (node)', cmd: 'node_modules/.bin/tsc', args: ['--noEmit', '-p', 'tsconfig.node.json'] },
  // The package build compiles every part in one program with the DOM and Node libraries together.
  { name: 'typecheck (package build)', cmd: 'node_modules/.bin/tsc', args: ['--noEmit', '-p', 'tsconfig.build.json'] },
  { name: 'node tests', cmd: process.execPath, args: ['--import', 'tsx', '--test', ...nodeTests], counts: nodeCounts },
  // One stage per engine, so each reports its own counts and time (web-test-runner.config.mjs
  // reads the engine from HITL_ENGINES and finds or starts what that engine needs). HITL_ENGINES
  // set for `npm test` keeps only the engines it names.
  ...engines.map((engine) => ({
    name: `browser tests (${engine})`,
    cmd: process.execPath,
    args: ['--import', 'tsx', 'node_modules/@web/test-runner/dist/bin.js'],
    env: { HITL_ENGINES: engine },
    counts: wtrCounts,
  })),
  { name: 'end-to-end tests', cmd: process.execPath, args: ['--import', 'tsx', '--test', ...e2eTests], counts: nodeCounts },
];

function nodeCounts(output) {
  const pass = [...output.matchAll(/^# pass (\d+)$/gm)].at(-1)?.[1];
  const fail = [...output.matchAll(/^# fail (\d+)$/gm)].at(-1)?.[1];
  return pass === undefined ? undefined : { passed: Number(pass), failed: Number(fail ?? 0) };
}

function wtrCounts(output) {
  const m = [...output.matchAll(/^wtr: (\d+) passed, (\d+) failed, (\d+) skipped/gm)].at(-1);
  return m ? { passed: Number(m[1]), failed: Number(m[2]), skipped: Number(m[3]) } : undefined;
}

/**
 * The names of the failed tests in a stage's output (node's `not ok N - name`, web-test-runner's
 * `❌ suite > name`), repeated in the closing summary: a CI log is often read from its end only.
 */
function failedNames(output) {
  const node = [...output.matchAll(/^\s*not ok \d+ - (.+)$/gm)].map((m) => m[1]);
  const wtr = [...output.matchAll(/^\s*❌ (.+)$/gm)].map((m) => m[1]);
  return [...new Set([...node, ...wtr])];
}

function run({ cmd, args, env }) {
  return new Promise((resolve) => {
    const child = spawn(cmd, args, { env: { ...process.env, CHROMIUM_PATH: chromium, FORCE_COLOR: '0', ...env } });
    let output = '';
    child.stdout.on('data', (d) => {
      output += d;
      process.stdout.write(d);
    });
    child.stderr.on('data', (d) => {
      output += d;
      process.stderr.write(d);
    });
    child.on('close', (code) => resolve({ code: code ?? 1, output }));
  });
}

let passed = 0;
let failed = 0;
const report = [];
for (const stage of stages) {
  const started = Date.now();
  console.log(`\n=== ${stage.name} ===`);
  const { code, output } = await run(stage);
  const counts = stage.counts?.(output);
  if (counts) {
    passed += counts.passed;
    failed += counts.failed;
  }
  // A stage that exits non-zero without failing tests (a crash, a type error) counts as one failure.
  if (code !== 0 && !(counts && counts.failed > 0)) failed += 1;
  if (stage.counts && !counts && code === 0) failed += 1; // ran no test: treat as failure
  report.push(`${stage.name}: ${code === 0 ? 'ok' : `FAILED (exit ${code})`}${counts ? `, ${counts.passed} passed, ${counts.failed} failed${counts.skipped ? `, ${counts.skipped} skipped` : ''}` : ''} in ${((Date.now() - started) / 1000).toFixed(1)} s`);
  if (code !== 0) report.push(...failedNames(output).map((name) => `  failed: ${name}`));
}
console.log(`\n${report.join('\n')}`);
console.log(`${passed} passed, ${failed} failed`);
process.exit(failed > 0 ? 1 : 0);
