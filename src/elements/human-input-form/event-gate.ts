/**
 * The order in which a run's events reach the form: one at a time, each not seen before (a
 * replay after a reconnect repeats what was shown), and none while a submission is in flight,
 * so `submitted` always comes before what the resumed run sends (its next form among it).
 */
import type { RunEvent } from '../../protocol/index.js';

/** Handles one event; a promise it returns holds the next until it settles. */
export type EventHandler = (event: RunEvent) => unknown;

export class EventGate {
  readonly #handle: EventHandler;
  /** Keys of events handled, so a replay renders nothing twice. */
  readonly #seen = new Set<string>();
  /** Settles once everything let in so far has been handled. */
  #queue: Promise<unknown> = Promise.resolve();

  constructor(handle: EventHandler) {
    this.#handle = handle;
  }

  /**
   * Lets `event` in, after what came before it. A replay of one handled is dropped when its turn
   * comes, and so is any event of a connection aborted by then (`signal`).
   */
  push(event: RunEvent, signal?: AbortSignal): void {
    this.#chain(() => {
      if (signal?.aborted) return;
      const key = keyOf(event);
      if (key && this.#seen.has(key)) return;
      if (key) this.#seen.add(key);
      return this.#handle(event);
    });
  }

  /** Holds every event let in from now on until `work` has settled; answers what it answers. */
  hold<T>(work: Promise<T>): Promise<T> {
    this.#chain(() => work);
    return work;
  }

  /** An event whose handling failed: a replay of it is handled again. */
  forget(event: RunEvent): void {
    this.#seen.delete(keyOf(event));
  }

  /** Forgets the events handled (a new run). */
  reset(): void {
    this.#seen.clear();
  }

  /** What waits no longer holds what comes next (a new connection, whose events need not wait for the last one's). */
  detach(): void {
    this.#queue = Promise.resolve();
  }

  #chain(next: () => unknown): void {
    // A failure of one step is its handler's to show; the events after it go on.
    this.#queue = this.#queue.then(next).catch(() => undefined);
  }
}

/**
 * What a replay repeats an event with: a form's id, else the event's own id (a resumption's
 * `workflow_started` repeats the run's id legitimately); '' for events that are never replayed
 * as such (text chunks, pings).
 */
function keyOf(event: RunEvent): string {
  const data = ('data' in event ? event.data : {}) as {
    id?: string;
    form_id?: string;
    reason?: string;
    reasons?: { form_id: string }[];
  };
  const id = data.form_id ?? data.reasons?.[0]?.form_id ?? (data.reason === 'resumption' ? '' : data.id);
  return id ? event.event + id : '';
}
