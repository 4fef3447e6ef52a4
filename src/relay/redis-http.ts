/**
 * `hitl-elements/relay/redis-http`: the relay's shared state in a Redis reached over HTTP
 * (Upstash's REST API, or anything that speaks it), for edge runtimes (Cloudflare Workers, Vercel
 * Edge) that cannot open a TCP connection. Each store call is one `POST` of a JSON command array
 * (`["EVAL", script, numkeys, ...keys, ...args]`) answered `{"result": …}` or `{"error": "…"}`.
 * Web-standard only (fetch), no dependency.
 */
import { createScriptedStore } from './redis-scripts.js';
import type { RelayStore } from './store.js';

export interface RedisHttpStoreOptions {
  /** The REST endpoint, e.g. `https://eu1-example-12345.upstash.io` (`UPSTASH_REDIS_REST_URL`). */
  url: string;
  /** Its bearer token (`UPSTASH_REDIS_REST_TOKEN`). */
  token: string;
  /** Put before every key; default `hitl:`. */
  prefix?: string;
  /** The longest one call may take; default 1000 ms (an HTTP round trip to a regional endpoint). */
  timeoutMs?: number;
  fetch?: typeof fetch;
}

export function createRedisHttpStore(options: RedisHttpStoreOptions): RelayStore {
  const endpoint = options.url.replace(/\/$/, '');
  const timeoutMs = options.timeoutMs ?? 1000;
  const send = options.fetch ?? globalThis.fetch.bind(globalThis);
  return createScriptedStore(async (script, keys, args) => {
    const answer = await send(endpoint, {
      method: 'POST',
      headers: { Authorization: `Bearer ${options.token}`, 'Content-Type': 'application/json' },
      body: JSON.stringify(['EVAL', script.lua, keys.length, ...keys, ...args.map(String)]),
      signal: AbortSignal.timeout(timeoutMs),
    });
    let reply: { result?: unknown; error?: unknown };
    try {
      reply = (await answer.json()) as typeof reply;
    } catch {
      throw new Error(`Redis over HTTP answered ${answer.status} without a JSON body.`);
    }
    if (!answer.ok || reply.error !== undefined) throw new Error(`Redis over HTTP refused ${script.name}: ${String(reply.error ?? answer.status)}`);
    return reply.result ?? null;
  }, { prefix: options.prefix });
}
