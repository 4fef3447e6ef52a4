/**
 * Every piece of state the relay shares between its instances, behind one contract: the
 * rate-limit counters, the stream slots (leases its holder renews while the stream is open) and
 * the run-start records (`Idempotency-Key`). `MemoryRelayStore` keeps them in this process (one
 * instance); `hitl-elements/relay/redis` keeps them in Redis for several instances.
 */
import { MemoryRateLimitStore, type RateLimitCount, type RateLimitStore } from './rate-limit.js';

/** Where a run start with an `Idempotency-Key` stands. */
export interface RunStartRecord {
  /** The relay request that claimed the key (a random id); only it may change the record. */
  owner: string;
  /** Hash of the route and the request body: the same key with another body is refused. */
  fingerprint: string;
  /**
   * `pending`: forwarded, run id not seen yet. `started`: the upstream answered with the run (its
   * ids below). `unknown`: the upstream answered 2xx but its stream ended (or the relay gave up
   * waiting) before any id: a run may exist, so the key is never used to start another.
   */
  state: 'pending' | 'started' | 'unknown';
  /** When the claim was made, epoch milliseconds (a pending claim older than its limit counts as `unknown`). */
  claimedAt: number;
  runId?: string;
  taskId?: string;
  conversationId?: string;
  messageId?: string;
}

export interface RelayStore extends RateLimitStore {
  /** Counts one request for `key` in its fixed window of `windowMs` (see `RateLimitStore`). */
  increment(key: string, windowMs: number): Promise<RateLimitCount> | RateLimitCount;
  /** Grants lease `id` under `key` when fewer than `max` unexpired leases are held there; it lasts `ttlMs`. */
  acquireLease(key: string, id: string, max: number, ttlMs: number): Promise<boolean>;
  /** Extends lease `id` by `ttlMs` from now, adding it back if the store lost it (a restarted Redis). */
  renewLease(key: string, id: string, ttlMs: number): Promise<void>;
  /** Frees lease `id` now. */
  releaseLease(key: string, id: string): Promise<void>;
  /** Stores `record` under `key` for `ttlMs` if nothing is there: `null` when claimed, else the record held. */
  claimRunStart(key: string, record: RunStartRecord, ttlMs: number): Promise<RunStartRecord | null>;
  getRunStart(key: string): Promise<RunStartRecord | null>;
  /** Replaces the record (for `ttlMs`) if `record.owner` still holds `key`; `false` when it does not. */
  updateRunStart(key: string, record: RunStartRecord, ttlMs: number): Promise<boolean>;
  /** Deletes the record if `owner` still holds `key`. */
  releaseRunStart(key: string, owner: string): Promise<void>;
}

/** The relay's state in this process: the default, right for one instance. Bounded like `MemoryRateLimitStore`. */
export class MemoryRelayStore implements RelayStore {
  readonly #counts: MemoryRateLimitStore;
  /** key → lease id → expiry (epoch ms). */
  readonly #leases = new Map<string, Map<string, number>>();
  readonly #records = new Map<string, { record: RunStartRecord; expiresAt: number }>();
  readonly #maxKeys: number;

  constructor(options: { maxKeys?: number } = {}) {
    this.#maxKeys = options.maxKeys ?? 100_000;
    this.#counts = new MemoryRateLimitStore({ maxKeys: this.#maxKeys });
  }

  increment(key: string, windowMs: number): RateLimitCount {
    return this.#counts.increment(key, windowMs);
  }

  async acquireLease(key: string, id: string, max: number, ttlMs: number): Promise<boolean> {
    const now = Date.now();
    const leases = this.#leases.get(key) ?? new Map<string, number>();
    for (const [held, expiresAt] of leases) if (expiresAt <= now) leases.delete(held);
    if (leases.size >= max) return false;
    leases.set(id, now + ttlMs);
    this.#leases.set(key, leases);
    return true;
  }

  async renewLease(key: string, id: string, ttlMs: number): Promise<void> {
    const leases = this.#leases.get(key) ?? new Map<string, number>();
    leases.set(id, Date.now() + ttlMs);
    this.#leases.set(key, leases);
  }

  async releaseLease(key: string, id: string): Promise<void> {
    const leases = this.#leases.get(key);
    if (!leases) return;
    leases.delete(id);
    if (leases.size === 0) this.#leases.delete(key);
  }

  async claimRunStart(key: string, record: RunStartRecord, ttlMs: number): Promise<RunStartRecord | null> {
    const held = this.#live(key);
    if (held) return { ...held };
    this.#sweep();
    this.#records.set(key, { record: { ...record }, expiresAt: Date.now() + ttlMs });
    return null;
  }

  async getRunStart(key: string): Promise<RunStartRecord | null> {
    const held = this.#live(key);
    return held ? { ...held } : null;
  }

  async updateRunStart(key: string, record: RunStartRecord, ttlMs: number): Promise<boolean> {
    if (this.#live(key)?.owner !== record.owner) return false;
    this.#records.set(key, { record: { ...record }, expiresAt: Date.now() + ttlMs });
    return true;
  }

  async releaseRunStart(key: string, owner: string): Promise<void> {
    if (this.#live(key)?.owner === owner) this.#records.delete(key);
  }

  #live(key: string): RunStartRecord | undefined {
    const entry = this.#records.get(key);
    if (entry && entry.expiresAt <= Date.now()) {
      this.#records.delete(key);
      return undefined;
    }
    return entry?.record;
  }

  #sweep(): void {
    if (this.#records.size < this.#maxKeys) return;
    const now = Date.now();
    for (const [key, entry] of this.#records) if (entry.expiresAt <= now) this.#records.delete(key);
    // Insertion order: the first records are the oldest.
    for (const key of this.#records.keys()) {
      if (this.#records.size < this.#maxKeys) break;
      this.#records.delete(key);
    }
  }
}

/** `promise`, or a rejection once `ms` have passed: no store call may hold a request up for long. */
export function withTimeout<T>(promise: Promise<T> | T, ms: number, what: string): Promise<T> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`${what} timed out after ${ms} ms`)), ms);
  });
  return Promise.race([Promise.resolve(promise), timeout]).finally(() => clearTimeout(timer));
}
