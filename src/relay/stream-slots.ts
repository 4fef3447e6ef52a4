/**
 * A cap on the long-lived requests (streams) one user holds open at once, each of which holds an
 * upstream connection too. Counted in this process: a slot lives exactly as long as a connection
 * through this relay instance, so there is nothing to share or expire.
 */
export class StreamSlots {
  readonly #max: number;
  readonly #open = new Map<string, number>();

  constructor(max: number) {
    if (!Number.isInteger(max) || max < 1) throw new Error('maxStreamsPerUser must be a whole number of at least 1, or false.');
    this.#max = max;
  }

  /** A release function when `key` has a slot free (call it exactly when the stream ends), else `undefined`. */
  acquire(key: string): (() => void) | undefined {
    const open = this.#open.get(key) ?? 0;
    if (open >= this.#max) return undefined;
    this.#open.set(key, open + 1);
    let released = false;
    return () => {
      if (released) return;
      released = true;
      const left = (this.#open.get(key) ?? 1) - 1;
      if (left > 0) this.#open.set(key, left);
      else this.#open.delete(key);
    };
  }

}
