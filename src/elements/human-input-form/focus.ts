/**
 * Where focus goes after the host renders: to what the new state marks `focus` (an attribute
 * the sanitizer never lets the service's content carry, as it did `data-focus`), once the user
 * acted in the host (never on its own, which would pull a reader away from the page), or to an
 * element or selector named for the next render (a problem to fix).
 */
import type { ReactiveController, ReactiveControllerHost } from 'lit';

type Host = ReactiveControllerHost & { readonly renderRoot: ParentNode };

export class FocusController implements ReactiveController {
  /** The user acted here, so focus may follow the state. */
  acted = false;
  readonly #host: Host;
  /** What to focus after the next render: an element, or a selector. */
  #next: HTMLElement | string = '';

  constructor(host: Host) {
    (this.#host = host).addController(this);
  }

  /** Focuses `target` (an element, or a selector in the host's render root) after the next render; '' for nothing. */
  set(target: HTMLElement | string): void {
    this.#next = target;
  }

  /** The state changed: focus follows it to its `focus` element, if the user acted. */
  follow(): void {
    if (this.acted) this.#next = '[focus]';
  }

  hostUpdated(): void {
    const next = this.#next;
    const target = typeof next === 'string' ? next && this.#host.renderRoot.querySelector<HTMLElement>(next) : next;
    this.#next = '';
    // After the inputs' own updates, so an input just enabled again can take focus.
    if (target) setTimeout(() => target.focus());
  }
}
