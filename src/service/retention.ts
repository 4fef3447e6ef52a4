/**
 * How much finished work the embedded service remembers. Without a bound, every finished run
 * (its node executions and forms), every chat reply and every conversation (its messages) stayed
 * for the life of the process: a long QA day or a load test grew the heap without end. The
 * newest finished ones are kept, and runs that are still running or paused are never forgotten,
 * so a QA session (a paused form, a run followed after a reload, its conversation) keeps working.
 */

export interface RetentionOptions {
  /**
   * Finished workflow runs kept (with their events and forms), and as many finished chat
   * replies; the oldest finished go first. Default 10,000.
   */
  finishedRuns?: number;
  /** Conversations kept (with their messages); the least recently active go first. Default 10,000. */
  conversations?: number;
  /** Annotations kept per app (`/apps/annotations`); the oldest go first. Default 10,000. */
  annotations?: number;
}

export const DEFAULT_RETENTION: Required<RetentionOptions> = { finishedRuns: 10_000, conversations: 10_000, annotations: 10_000 };

export function retentionOf(options: RetentionOptions | undefined): Required<RetentionOptions> {
  const merged = { ...DEFAULT_RETENTION, ...options };
  for (const [name, value] of Object.entries(merged)) {
    if (!Number.isInteger(value) || value < 1) throw new Error(`retention.${name} must be an integer of at least 1 (got ${value})`);
  }
  return merged;
}

/** Remembers the newest `limit` finished ids, in the order they finished; `forget` gets each one pushed out. */
export class FinishedQueue {
  readonly #ids = new Set<string>();

  constructor(
    readonly limit: number,
    private readonly forget: (id: string) => void,
  ) {}

  finished(id: string): void {
    if (this.#ids.has(id)) return;
    this.#ids.add(id);
    while (this.#ids.size > this.limit) {
      const oldest = this.#ids.values().next().value as string;
      this.#ids.delete(oldest);
      this.forget(oldest);
    }
  }

  get size(): number {
    return this.#ids.size;
  }

  clear(): void {
    this.#ids.clear();
  }
}
