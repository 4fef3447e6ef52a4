/**
 * A run's live event channel. Like the real service's per-run pub/sub topic it keeps no backlog:
 * a subscriber sees only what is published after it subscribed (which is why a client opens the
 * events stream before it submits a form).
 */
import type { RunEvent } from '../../protocol/index.js';

export type RunListener = (event: RunEvent) => void;

export class RunTopic {
  readonly #listeners = new Set<RunListener>();

  subscribe(listener: RunListener): () => void {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }

  publish(event: RunEvent): void {
    for (const listener of [...this.#listeners]) listener(event);
  }

  get size(): number {
    return this.#listeners.size;
  }
}
