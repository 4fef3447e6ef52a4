/**
 * What every benchmark row shares: interleaved repeats of a candidate and its baseline (so drift
 * on a shared machine hits both alike), min/median/max, and the ratio of medians. A row is a
 * module under `bench/rows/` exporting `row: BenchRow`; `bench/run.ts` runs them in turn.
 */
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';

export interface Stats {
  min: number;
  median: number;
  max: number;
  samples: number[];
}

export interface Measurement {
  /** What is measured, with its unit: `p50 ms`, `MB`, `MB/s`. */
  metric: string;
  candidate: Stats;
  /** Absent for rows measured against a fixed goal rather than a baseline. */
  baseline?: Stats;
  /** `candidate.median / baseline.median` (or the row's own figure). */
  ratio?: number;
  /** The goal, e.g. `<= 1.2`, `>= 0.8`, `< 16 MB`. */
  goal: string;
  /** Whether the goal is met. */
  met: boolean;
  /** Anything a reader needs (sizes, counts). */
  note?: string;
}

export interface RowContext {
  /** A short pass (`npm run bench -- --quick`): fewer repeats, smaller sizes. */
  quick: boolean;
  log(message: string): void;
}

export interface BenchRow {
  /** Stable id, used by `--only` and as the key in results.json. */
  id: string;
  title: string;
  /** What the candidate is compared with. */
  baseline: string;
  run(context: RowContext): Promise<Measurement[]>;
}

export function stats(samples: number[]): Stats {
  const sorted = [...samples].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  const median = sorted.length % 2 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
  return { min: sorted[0]!, median, max: sorted.at(-1)!, samples };
}

/** Runs `candidate` and `baseline` alternately `repeats` times (after one untimed warm-up each). */
export async function interleaved(
  repeats: number,
  candidate: () => Promise<number>,
  baseline: () => Promise<number>,
): Promise<{ candidate: Stats; baseline: Stats; ratio: number }> {
  await candidate();
  await baseline();
  const a: number[] = [];
  const b: number[] = [];
  for (let i = 0; i < repeats; i++) {
    // Alternate which goes first, so neither always runs on a warmer machine.
    if (i % 2) {
      b.push(await baseline());
      a.push(await candidate());
    } else {
      a.push(await candidate());
      b.push(await baseline());
    }
  }
  const cs = stats(a);
  const bs = stats(b);
  return { candidate: cs, baseline: bs, ratio: cs.median / bs.median };
}

/** Milliseconds `fn` takes. */
export async function timed(fn: () => Promise<unknown>): Promise<number> {
  const start = process.hrtime.bigint();
  await fn();
  return Number(process.hrtime.bigint() - start) / 1e6;
}

let gcFunction: (() => void) | undefined;

/** A full garbage collection (twice, so weak and finalized objects go too). */
export function collectGarbage(): void {
  if (!gcFunction) {
    setFlagsFromString('--expose-gc');
    gcFunction = runInNewContext('gc') as () => void;
  }
  gcFunction();
  gcFunction();
}

export const MB = 1024 * 1024;

export function round(value: number, digits = 2): number {
  const f = 10 ** digits;
  return Math.round(value * f) / f;
}
