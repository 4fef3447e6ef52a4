/** Types of chromium.mjs, for the test helpers and the benchmarks. */
export declare const CHROMIUM_ARGS: string[];
export declare function chromiumPath(): string;
