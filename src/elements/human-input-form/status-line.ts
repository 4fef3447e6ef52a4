/**
 * The announced status line: the phase it shows, and the ones waiting to take it. Each stays up
 * at least `hold` ms, so a screen reader reads every change, in order, before the next replaces
 * it; a passing phase (loading, waiting, submitting) gives way to the next at once.
 */
import type { ReactiveController, ReactiveControllerHost } from 'lit';

export class StatusLine<P extends string> implements ReactiveController {
  /** The phase on the status line. */
  said: P;
  readonly #host: ReactiveControllerHost;
  readonly #transient: readonly P[];
  readonly #hold: number;
  #says: P[] = [];
  #timer: ReturnType<typeof setTimeout> | undefined;

  constructor(host: ReactiveControllerHost, first: P, transient: readonly P[], hold = 1000) {
    (this.#host = host).addController(this);
    this.said = first;
    this.#transient = transient;
    this.#hold = hold;
  }

  /** Queues `phase` to be said after what is being said. */
  say(phase: P): void {
    // A passing phase is no state a user needs to hear, and the one after it is.
    if (this.#transient.includes(this.#says.at(-1)!)) this.#says.pop();
    if (!this.#says.length && this.#transient.includes(this.said)) this.#stop();
    if (phase !== (this.#says.at(-1) ?? this.said)) this.#says.push(phase);
    if (!this.#timer) this.#next();
  }

  /** Statuses that waited while the host was out of the page (a move) go on. */
  hostConnected(): void {
    this.#next();
  }

  hostDisconnected(): void {
    this.#stop();
  }

  #stop(): void {
    clearTimeout(this.#timer);
    this.#timer = undefined;
  }

  #next(): void {
    const next = this.#says.shift();
    this.#timer = next ? setTimeout(() => this.#next(), this.#hold) : undefined;
    if (next) ((this.said = next), this.#host.requestUpdate());
  }
}
