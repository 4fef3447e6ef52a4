/**
 * A cap on the long-lived requests (streams) one user holds open at once, each of which holds an
 * upstream connection too. A slot is a lease in the relay store: granted atomically while fewer
 * than the cap are held, renewed by its holder while the stream is open, freed the moment the
 * stream ends. An instance that dies stops renewing, so its slots free themselves within a lease.
 */
import { MemoryRelayStore, withTimeout, type RelayStore } from './store.js';

export interface StreamSlotOptions {
  max: number;
  /** How long a lease lasts without renewal; the holder renews it every third of that. */
  leaseMs: number;
  store: RelayStore;
  /** The longest one store call may take. */
  timeoutMs: number;
  /** Called when the store fails (the slot then comes from this instance's own count). */
  onStoreError: (error: unknown) => void;
}

export class StreamSlots {
  readonly #options: StreamSlotOptions;
  /** This instance's own count, used while the shared store fails: the cap then holds per instance. */
  readonly #local = new MemoryRelayStore();

  constructor(options: StreamSlotOptions) {
    if (!Number.isInteger(options.max) || options.max < 1) throw new Error('maxStreamsPerUser must be a whole number of at least 1, or false.');
    if (!(options.leaseMs >= 10)) throw new Error('streamLeaseSeconds must be at least 0.01.');
    this.#options = options;
  }

  /** A release function when `key` has a slot free (call it when the stream ends; later calls do nothing), else `undefined`. */
  async acquire(key: string): Promise<(() => void) | undefined> {
    const { max, leaseMs, timeoutMs } = this.#options;
    const id = crypto.randomUUID();
    let store: RelayStore = this.#options.store;
    let granted: boolean;
    try {
      granted = await withTimeout(store.acquireLease(key, id, max, leaseMs), timeoutMs, 'Granting a stream slot');
    } catch (error) {
      this.#options.onStoreError(error);
      store = this.#local;
      granted = await store.acquireLease(key, id, max, leaseMs);
    }
    if (!granted) return undefined;
    const renewal = setInterval(() => {
      withTimeout(store.renewLease(key, id, leaseMs), timeoutMs, 'Renewing a stream slot').catch((error: unknown) => this.#options.onStoreError(error));
    }, Math.max(5, Math.floor(leaseMs / 3)));
    // A renewal timer alone must not keep a Node process alive.
    (renewal as { unref?: () => void }).unref?.();
    let released = false;
    return () => {
      if (released) return;
      released = true;
      clearInterval(renewal);
      // A release that fails leaves a lease that expires on its own.
      withTimeout(store.releaseLease(key, id), timeoutMs, 'Freeing a stream slot').catch((error: unknown) => this.#options.onStoreError(error));
    };
  }
}
