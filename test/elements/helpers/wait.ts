import { waitUntil } from '@open-wc/testing';

/**
 * `waitUntil` for conditions that depend on real network traffic: a longer default timeout than
 * its 1 s, a shorter poll, and what the probe found handed back (the element waited for, say).
 */
export async function until<T>(probe: () => T | undefined | null | false, what: string, timeoutMs = 8000): Promise<T> {
  let found: T | undefined | null | false;
  await waitUntil(() => (found = probe()), `waiting for ${what}`, { timeout: timeoutMs, interval: 20 });
  return found as T;
}
