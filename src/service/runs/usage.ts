/** Token usage as `message_end` and blocking answers report it (nothing is billed here). */
import type { Usage } from '../../protocol/index.js';

export function usage(promptTokens: number, completionTokens: number, latencySeconds: number): Usage {
  return {
    prompt_tokens: promptTokens,
    prompt_unit_price: '0',
    prompt_price_unit: '0.000001',
    prompt_price: '0',
    completion_tokens: completionTokens,
    completion_unit_price: '0',
    completion_price_unit: '0.000001',
    completion_price: '0',
    total_tokens: promptTokens + completionTokens,
    total_price: '0',
    currency: 'USD',
    latency: latencySeconds,
  };
}

/** A rough token count: four characters a token. */
export const tokensOf = (text: string): number => Math.ceil(text.length / 4);

/** Waits `ms`, or less when `signal` aborts first. */
export const delay = (ms: number, signal?: AbortSignal): Promise<void> =>
  new Promise((resolve) => {
    if (ms <= 0 || signal?.aborted) return resolve();
    const done = () => {
      clearTimeout(timer);
      signal?.removeEventListener('abort', done);
      resolve();
    };
    const timer = setTimeout(done, ms);
    signal?.addEventListener('abort', done, { once: true });
  });
