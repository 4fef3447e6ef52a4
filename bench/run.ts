/**
 * `npm run bench [-- --quick] [-- --only id,id]`: runs every row under `bench/rows/`, each
 * against its baseline in the same run, prints a table and writes `bench/results.json`.
 * Benchmarks are measurements, never tests: nothing here fails a build.
 */
import { readdir, writeFile } from 'node:fs/promises';
import { cpus, totalmem, type as osType, release } from 'node:os';
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import type { BenchRow, Measurement } from './harness.js';
import { round } from './harness.js';

const HELP = `Usage: npm run bench -- [--quick] [--only ID[,ID…]] [--out FILE]

  --quick        a short pass (about a minute): fewer repeats, smaller sizes
  --only IDS     run only these rows (ids as printed in the table)
  --out FILE     where to write the results (default bench/results.json)
`;

const { values } = parseArgs({
  options: {
    quick: { type: 'boolean', default: false },
    only: { type: 'string' },
    out: { type: 'string', default: new URL('./results.json', import.meta.url).pathname },
    /** Internal: run this one row and report it to the parent process. */
    row: { type: 'string' },
    help: { type: 'boolean', short: 'h' },
  },
});
if (values.help) {
  console.log(HELP);
  process.exit(0);
}

const rowsDir = new URL('./rows/', import.meta.url);
const files = (await readdir(rowsDir)).filter((f) => f.endsWith('.ts')).sort();
const rows: BenchRow[] = [];
for (const file of files) {
  const module = (await import(new URL(file, rowsDir).href)) as { row?: BenchRow };
  if (module.row) rows.push(module.row);
}
const only = values.only?.split(',').map((s) => s.trim());
const selected = only ? rows.filter((r) => only.includes(r.id)) : rows;
if (only && selected.length !== only.length) {
  console.error(`Unknown row id; known: ${rows.map((r) => r.id).join(', ')}`);
  process.exit(1);
}

const RESULT = 'BENCH-RESULT ';

if (values.row) {
  // One row in a process of its own (see below): its measurements go back as one line.
  const row = rows.find((r) => r.id === values.row)!;
  const measurements = await row.run({ quick: values.quick, log: (m) => console.log(`  ${m}`) });
  console.log(RESULT + JSON.stringify(measurements));
  process.exit(0);
}

const machine = {
  cpu: cpus()[0]?.model ?? 'unknown',
  cores: cpus().length,
  memory_gb: round(totalmem() / 1024 ** 3, 1),
  os: `${osType()} ${release()}`,
  node: process.version,
};
console.log(`Machine: ${machine.cpu}, ${machine.cores} cores, ${machine.memory_gb} GB, ${machine.os}, Node ${machine.node}${values.quick ? ' (quick pass)' : ''}\n`);

/**
 * Runs a row in a fresh process, so what one row leaves in memory (or in the JIT) never weighs on
 * the next: the heap row in particular measures the whole process.
 */
function runIsolated(row: BenchRow): Promise<Measurement[]> {
  const args = ['--import', 'tsx', fileURLToPath(import.meta.url), '--row', row.id, ...(values.quick ? ['--quick'] : [])];
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, args, { stdio: ['ignore', 'pipe', 'inherit'] });
    let measurements: Measurement[] | undefined;
    let pending = '';
    child.stdout.on('data', (chunk: Buffer) => {
      pending += chunk.toString();
      const lines = pending.split('\n');
      pending = lines.pop()!;
      for (const line of lines) {
        if (line.startsWith(RESULT)) measurements = JSON.parse(line.slice(RESULT.length)) as Measurement[];
        else console.log(line);
      }
    });
    child.on('exit', (code) => (measurements ? resolve(measurements) : reject(new Error(`the row's process ended with ${code} and no result`))));
  });
}

const results: { id: string; title: string; baseline: string; measurements: Measurement[]; error?: string }[] = [];
for (const row of selected) {
  console.log(`▶ ${row.id}: ${row.title}`);
  const started = Date.now();
  try {
    const measurements = await runIsolated(row);
    results.push({ id: row.id, title: row.title, baseline: row.baseline, measurements });
  } catch (error) {
    console.error(`  failed: ${(error as Error).message}`);
    results.push({ id: row.id, title: row.title, baseline: row.baseline, measurements: [], error: String(error) });
  }
  console.log(`  (${round((Date.now() - started) / 1000, 1)} s)\n`);
}

const fmt = (n: number | undefined) => (n === undefined ? '—' : String(round(n, n < 10 ? 2 : 1)));
const table = [
  '| row | metric | candidate min / median / max | baseline min / median / max | ratio | goal | met |',
  '|---|---|---|---|---|---|---|',
  ...results.flatMap((r) =>
    r.error
      ? [`| ${r.id} | failed: ${r.error.slice(0, 80)} | | | | | ✗ |`]
      : r.measurements.map(
          (m) =>
            `| ${r.id} | ${m.metric} | ${fmt(m.candidate.min)} / ${fmt(m.candidate.median)} / ${fmt(m.candidate.max)} | ${m.baseline ? `${fmt(m.baseline.min)} / ${fmt(m.baseline.median)} / ${fmt(m.baseline.max)}` : '—'} | ${fmt(m.ratio)} | ${m.goal} | ${m.met ? '✓' : '✗'} |`,
        ),
  ),
];
console.log(table.join('\n'));
for (const r of results) for (const m of r.measurements) if (m.note) console.log(`  ${r.id} · ${m.metric}: ${m.note}`);
await writeFile(values.out, `${JSON.stringify({ date: new Date().toISOString(), quick: values.quick, machine, rows: results }, null, 2)}\n`);
console.log(`\nWrote ${values.out}`);
