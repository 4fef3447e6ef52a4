/** Types of bundle-size.mjs, for the tests and the benchmark that import it. */
export const DIST: string;
export const ENTRY: string;
export const CRITICAL_BUDGET_BYTES: number;
export const TOTAL_BUDGET_BYTES: number;
export const TERM_FILE: RegExp;
export interface FileSize {
  name: string;
  raw: number;
  gzip: number;
}
export interface Verdict {
  bytes: number;
  budget: number;
  ok: boolean;
}
export interface Budgets {
  critical: number;
  total: number;
}
export function gzipSize(bytes: Uint8Array | string): number;
export function scriptGraph(dir: string): string[];
export function measure(dir?: string, budgets?: Budgets): { entry: FileSize; chunks: FileSize[]; terms: FileSize[]; critical: Verdict; total: Verdict };
export function checkBundleSize(dir?: string, budgets?: Budgets): boolean;
