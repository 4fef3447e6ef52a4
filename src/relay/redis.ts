/**
 * `hitl-elements/relay/redis`: the relay's shared state in Redis, for several relay instances
 * behind a load balancer: `createRelay({ ..., store: createRedisStore({ url: process.env.REDIS_URL }) })`.
 * Uses `ioredis` (an optional peer dependency: install it beside this package).
 */
import { Redis, type Cluster, type RedisOptions } from 'ioredis';
import { hexDigest } from './bytes.js';
import type { RelayLogEntry } from './relay.js';
import { createScriptedStore, type RedisScript } from './redis-scripts.js';
import type { RelayStore } from './store.js';
import { withTimeout } from './store.js';

export interface RedisStoreOptions {
  /** `redis://[:password@]host:port[/db]` or `rediss://…` (TLS). Either this or `client`. */
  url?: string;
  /** A client you already have (`new Redis(…)` or `new Cluster(…)`); it stays yours to close. */
  client?: Redis | Cluster;
  /** Put before every key; default `hitl:`. */
  prefix?: string;
  /**
   * The longest one store call may take before the relay applies its failure policy; default
   * 500 ms. Also the connect time-out of a client made from `url`.
   */
  timeoutMs?: number;
  /** Where connection trouble and recovery are reported; default `console.warn`. */
  log?: (entry: RelayLogEntry) => void;
}

export interface RedisRelayStore extends RelayStore {
  readonly client: Redis | Cluster;
  /** Closes the client made from `url` (a client you passed stays open). */
  close(): Promise<void>;
}

export function createRedisStore(options: RedisStoreOptions): RedisRelayStore {
  const timeoutMs = options.timeoutMs ?? 500;
  const log = options.log ?? ((entry: RelayLogEntry) => console.warn(`[relay] ${entry.message}`));
  const own = !options.client;
  let client: Redis | Cluster;
  let closing = false;
  let firstReady: Promise<void> | undefined;
  if (options.client) client = options.client;
  else {
    if (!options.url) throw new Error('createRedisStore needs a url or a client.');
    const redisOptions: RedisOptions = {
      // Fail fast while Redis is away (the relay's failure policy answers at once) rather than
      // queueing commands that would hold requests up; reconnect in the background.
      enableOfflineQueue: false,
      maxRetriesPerRequest: 1,
      commandTimeout: timeoutMs,
      connectTimeout: Math.max(timeoutMs, 1000),
      retryStrategy: (attempt) => Math.min(50 * 2 ** attempt, 2000),
    };
    const made = new Redis(options.url, redisOptions);
    client = made;
    // Until the first connection is up, commands would fail for want of a queue: wait for it (bounded).
    firstReady = new Promise<void>((resolve) => made.once('ready', () => resolve()));
    let down = false;
    const lost = (reason: string) => {
      if (down || closing) return;
      down = true;
      log({ level: 'error', code: 'relay_store_failed', message: `Redis is unreachable (${reason}); the relay applies its failure policy until it is back.` });
    };
    made.on('error', (error: Error & { code?: string }) => lost(error.code ?? error.name));
    made.on('close', () => lost('connection closed'));
    made.on('ready', () => {
      if (!down) return;
      down = false;
      log({ level: 'warn', code: 'relay_store_recovered', message: 'Redis is reachable again.' });
    });
  }

  const shas = new Map<string, string>();
  const store = createScriptedStore(async (script: RedisScript, keys, args) => {
    // Waited for once: a Redis that was not there at start fails fast afterwards, like one that went away.
    if (firstReady) await withTimeout(firstReady, timeoutMs, 'Connecting to Redis').finally(() => (firstReady = undefined));
    let sha = shas.get(script.name);
    if (!sha) shas.set(script.name, (sha = await hexDigest('SHA-1', script.lua)));
    try {
      return await client.evalsha(sha, keys.length, ...keys, ...args);
    } catch (error) {
      // A restarted (or flushed) Redis forgets its scripts: send the script itself once.
      if (!String((error as Error).message).includes('NOSCRIPT')) throw error;
      return client.eval(script.lua, keys.length, ...keys, ...args);
    }
  }, { prefix: options.prefix });

  return {
    ...store,
    client,
    async close() {
      if (!own) return;
      closing = true;
      await client.quit().catch(() => client.disconnect());
    },
  };
}
