/**
 * Servers the benchmarks run in processes of their own, so one process's memory and CPU are
 * measured alone: an upload sink (reads and discards, like a fast upstream) and a relay in
 * front of any upstream. Each prints one JSON line when it listens.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

export interface Child<T> {
  info: T;
  pid: number;
  process: ChildProcess;
  stop(): Promise<void>;
}

export async function startChild<T>(script: string, args: string[] = [], nodeArgs: string[] = []): Promise<Child<T>> {
  const file = fileURLToPath(new URL(script, import.meta.url));
  const child = spawn(process.execPath, [...nodeArgs, '--import', 'tsx', file, ...args], { stdio: ['ignore', 'pipe', 'inherit', 'ipc'] });
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
