/**
 * Servers the benchmarks run in processes of their own, so one process's memory and CPU are
 * measured alone: an upload sink (reads and discards, like a fast upstream) and a relay in
 * front of any upstream. Each prints one JSON line when it listens.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';

export interface Child<T> {
  info: T;
  pid: number;
  process: ChildProcess;
  stop(): Promise<void>;
}

/** Where the children are compiled to: two levels below the root, like `src/service/`, so the paths modules find beside `import.meta.url` (the default fixture) still resolve. */
const COMPILED = new URL('../.compiled/', import.meta.url);
const compiled = new Map<string, Promise<string>>();

/**
 * `script` compiled to plain JavaScript, as the package ships (`dist/` is tsc's output; its
 * dependencies stay imports from `node_modules`). A child run through the `tsx` loader carries
 * the loader's worker and transform caches in its heap, and that heap size alone tips V8 into an
 * incremental mark-compact every 20–30 MB of socket buffers: a bare pipe proxy that merely imports
 * the relay's modules under `tsx` went from ~200 to ~400 ms of CPU per 200 MB upload (1 → ~35
 * mark-compacts in `--trace-gc`), compiled it stays at ~230 ms. Measured that way, the rows timed
 * the loader, not the relay.
 */
function compile(script: string): Promise<string> {
  let out = compiled.get(script);
  if (!out) {
    const entry = fileURLToPath(new URL(script, import.meta.url));
    const outfile = fileURLToPath(new URL(script.replace(/^.*\//, '').replace(/\.ts$/, '.mjs'), COMPILED));
    out = build({
      entryPoints: [entry],
      outfile,
      bundle: true,
      platform: 'node',
      format: 'esm',
      target: 'node20',
      packages: 'external',
      logLevel: 'error',
      // The package's `sideEffects` list names the elements' entries; the servers' own side-effect imports (`heap-probe.ts`) must stay.
      ignoreAnnotations: true,
    }).then(() => outfile);
    compiled.set(script, out);
  }
  return out;
}

export async function startChild<T>(script: string, args: string[] = [], nodeArgs: string[] = []): Promise<Child<T>> {
  const file = await compile(script);
  const child = spawn(process.execPath, [...nodeArgs, file, ...args], { stdio: ['ignore', 'pipe', 'inherit', 'ipc'] });
  const info = await new Promise<T>((resolve, reject) => {
    let out = '';
    child.stdout!.on('data', (d: Buffer) => {
      out += d.toString();
      const line = out.split('\n').find((l) => l.startsWith('{'));
      if (line) resolve(JSON.parse(line) as T);
    });
    child.once('exit', (code) => reject(new Error(`${script} ended (${code}) before it listened`)));
  });
  const ended = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  return {
    info,
    pid: child.pid!,
    process: child,
    async stop() {
      child.kill('SIGTERM');
      await ended;
    },
  };
}

/** A server child's heap after a full collection (the child imports `heap-probe.ts` and runs with `--expose-gc`). */
export function heapOf(child: Child<unknown>): Promise<number> {
  return new Promise((resolve, reject) => {
    child.process.once('message', (m: { heapUsed: number; collected: boolean }) =>
      m.collected ? resolve(m.heapUsed) : reject(new Error('the child runs without --expose-gc: its heap would include garbage')),
    );
    child.process.send({ heap: true });
  });
}

/** A process's resident set and its peak since the last `resetPeak`, in bytes (Linux). */
export function memoryOf(pid: number): { rss: number; peak: number } {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const kb = (name: string) => Number(new RegExp(`^${name}:\\s+(\\d+) kB`, 'm').exec(status)?.[1] ?? NaN) * 1024;
  return { rss: kb('VmRSS'), peak: kb('VmHWM') };
}

/** Resets a process's peak resident set to its current one (Linux `clear_refs` 5; needs root or the same user). */
export function resetPeak(pid: number): void {
  writeFileSync(`/proc/${pid}/clear_refs`, '5');
}
