/**
 * A landmark name unique on the page: the forms in the page, in the order they came, so a second
 * form of the same title is named with a number (`Approval (2)`).
 */
import type { ReactiveController, ReactiveControllerHost } from 'lit';

const live = new Set<Landmark>();

export class Landmark implements ReactiveController {
  /** The name as the host last rendered it ('' for none). */
  name = '';
  readonly #host: ReactiveControllerHost;
  readonly #title: () => string;
  #changed = false;

  /** `title` is the name the host would give its landmark now. */
  constructor(host: ReactiveControllerHost, title: () => string) {
    (this.#host = host).addController(this);
    this.#title = title;
  }

  /** 1 for the first landmark of its name on the page, 2 for the second… */
  get nth(): number {
    return [...live].filter((other) => other.name === this.name).indexOf(this) + 1;
  }

  hostConnected(): void {
    live.add(this);
  }

  hostDisconnected(): void {
    live.delete(this);
  }

  hostUpdate(): void {
    const name = this.#title();
    if (name !== this.name) ((this.name = name), (this.#changed = true));
  }

  /** The others of the page number themselves again once this name changed. */
  hostUpdated(): void {
    if (!this.#changed) return;
    this.#changed = false;
    for (const other of live) if (other !== this) other.#host.requestUpdate();
  }
}
