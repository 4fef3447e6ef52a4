/**
 * The time left to answer a form: the host renders again once a second while a form with an
 * expiry is on screen, and `expire` runs once the expiry has passed (at each tick after it).
 * Its timers run only while the host is in the page and a form has an expiry.
 */
import type { ReactiveController, ReactiveControllerHost } from 'lit';
import { formatUnit } from '../shared/terms.js';

export class Countdown implements ReactiveController {
  readonly #host: ReactiveControllerHost;
  readonly #expire: () => void;
  /** Epoch seconds; 0 for none. */
  #expiry = 0;
  #ticks: ReturnType<typeof setInterval> | undefined;
  #at: ReturnType<typeof setTimeout> | undefined;
  #connected = false;

  constructor(host: ReactiveControllerHost, expire: () => void) {
    (this.#host = host).addController(this);
    this.#expire = expire;
  }

  /** Seconds left (negative once past; 0 without an expiry). */
  get left(): number {
    return this.#expiry && this.#expiry - Date.now() / 1000;
  }

  /** Counts down to `expiry` (epoch seconds), or stops (`null`). */
  set(expiry: number | null | undefined): void {
    this.#expiry = expiry ?? 0;
    this.#start();
  }

  hostConnected(): void {
    this.#connected = true;
    this.#start();
  }

  hostDisconnected(): void {
    this.#connected = false;
    this.#stop();
  }

  #start(): void {
    this.#stop();
    if (!this.#expiry || !this.#connected) return;
    this.#ticks = setInterval(() => this.#tick(), 1000);
    // Besides the ticks, once exactly at the expiry (a longer wait than timers allow just ticks early).
    this.#at = setTimeout(() => this.#tick(), this.#expiry * 1000 - Date.now());
    this.#tick();
  }

  #stop(): void {
    clearInterval(this.#ticks);
    clearTimeout(this.#at);
    this.#ticks = this.#at = undefined;
  }

  #tick(): void {
    if (this.left <= 0) this.#expire();
    this.#host.requestUpdate();
  }
}

/** `2 days`, `5 hours`, or `4:59` under an hour. */
export function duration(seconds: number, locale: string): string {
  const s = Math.ceil(seconds);
  const days = s >= 86400;
  return s < 3600 ? `${(s / 60) | 0}:${String(s % 60).padStart(2, '0')}` : formatUnit(locale, s / (days ? 86400 : 3600), days ? 'day' : 'hour', true);
}
