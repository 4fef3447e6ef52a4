import { withTimeout } from './store.js';

/**
 * Fixed-window counters per user: relayed requests, and sessions issued. The counts live behind `RateLimitStore`, so several
 * relay instances can share them (a Redis `INCR` + `PEXPIRE` per key implements it in a few
 * lines); the default keeps them in this process's memory.
 */

export interface RateLimitCount {
  /** Requests counted in the current window, this one included. */
  count: number;
  /** When the current window ends, epoch milliseconds. */
  resetAt: number;
}

export interface RateLimitStore {
  /** Counts one request for `key` in its current window of `windowMs` and answers the window's state. */
  increment(key: string, windowMs: number): Promise<RateLimitCount> | RateLimitCount;
}

/** What a relayed request is counted by. */
export interface RateLimitSubject {
  /** The session's user (`sub`). */
  user: string;
  /** The app (audience) the session belongs to. */
  app: string;
  /** The issued session (`jti`). */
  sessionId: string;
  runId?: string;
}

export interface RateLimitOptions {
  /** Requests allowed per window; default 600. */
  requests?: number;
  /** Window length; default 60 seconds. */
  windowSeconds?: number;
  /** Where counts live; default the relay's `store` (in memory unless given). */
  store?: RateLimitStore;
  /**
   * What is counted together; default the user within the app, so a fresh session brings no
   * fresh budget. Return e.g. `` `${s.user}:${s.sessionId}` `` to count each session apart.
   */
  key?: (session: RateLimitSubject) => string;
}

/** The session endpoint's limit, always counted per user within the app. */
export type SessionRateLimitOptions = Omit<RateLimitOptions, 'key'>;

/** The default request key: one budget per user of an app, whichever of its sessions asks. */
export const userKey = (subject: { user: string; app: string }): string => `${encodeURIComponent(subject.app)}:${subject.user}`;

/** Counts in this process. Bounded: expired windows are swept, and past `maxKeys` the oldest go. */
export class MemoryRateLimitStore implements RateLimitStore {
  readonly #windows = new Map<string, RateLimitCount>();
  readonly #maxKeys: number;
  #nextSweep = 0;

  constructor(options: { maxKeys?: number } = {}) {
    this.#maxKeys = options.maxKeys ?? 100_000;
  }

  increment(key: string, windowMs: number): RateLimitCount {
    const now = Date.now();
    if (now >= this.#nextSweep || this.#windows.size >= this.#maxKeys) this.#sweep(now, windowMs);
    let window = this.#windows.get(key);
    if (!window || window.resetAt <= now) {
      this.#windows.delete(key);
      window = { count: 0, resetAt: now + windowMs };
      this.#windows.set(key, window);
    }
    window.count += 1;
    return { ...window };
  }

  get size(): number {
    return this.#windows.size;
  }

  #sweep(now: number, windowMs: number): void {
    this.#nextSweep = now + windowMs;
    for (const [key, window] of this.#windows) if (window.resetAt <= now) this.#windows.delete(key);
    // Map order is insertion order, and a renewed window is re-inserted: the first keys are the oldest.
    for (const key of this.#windows.keys()) {
      if (this.#windows.size < this.#maxKeys) break;
      this.#windows.delete(key);
    }
  }
}

export type RateLimitVerdict = { ok: true } | { ok: false; retryAfterSeconds: number } | { ok: 'unknown'; error: unknown };

export class RateLimiter<Subject> {
  readonly #requests: number;
  readonly #windowMs: number;
  readonly #store: RateLimitStore;
  readonly #key: (subject: Subject) => string;
  readonly #prefix: string;

  readonly #timeoutMs: number;

  /** `prefix` keeps counters of different kinds apart in a shared store; a store call past `timeoutMs` counts as failed. */
  constructor(options: Omit<RateLimitOptions, 'key'> & { timeoutMs?: number }, defaultRequests: number, prefix: string, key: (subject: Subject) => string) {
    this.#requests = options.requests ?? defaultRequests;
    this.#windowMs = (options.windowSeconds ?? 60) * 1000;
    if (!(this.#requests > 0) || !(this.#windowMs > 0)) throw new Error('A rate limit needs a positive number of requests and window.');
    this.#store = options.store ?? new MemoryRateLimitStore();
    this.#key = key;
    this.#prefix = prefix;
    this.#timeoutMs = options.timeoutMs ?? 1000;
  }

  async check(subject: Subject): Promise<RateLimitVerdict> {
    let window: RateLimitCount;
    try {
      window = await withTimeout(Promise.resolve().then(() => this.#store.increment(`${this.#prefix}:${this.#key(subject)}`, this.#windowMs)), this.#timeoutMs, 'Counting a request');
    } catch (error) {
      return { ok: 'unknown', error };
    }
    if (window.count <= this.#requests) return { ok: true };
    return { ok: false, retryAfterSeconds: Math.max(1, Math.ceil((window.resetAt - Date.now()) / 1000)) };
  }
}
