/**
 * The relay store on Redis, written once as Lua scripts and run through whatever can send
 * `EVAL`: a TCP client (`./redis.ts`, Node) or Redis over HTTP (`./redis-http.ts`, edge
 * runtimes). Each script touches one key, so each runs atomically (and on a Redis Cluster too);
 * leases and windows are timed by the Redis server's clock, so the instances' clocks don't matter.
 * No Node imports: this file runs on edge runtimes.
 */
import type { RateLimitCount } from './rate-limit.js';
import type { RelayStore, RunStartRecord } from './store.js';

export interface RedisScript {
  name: string;
  lua: string;
}

/** Runs `script` with `keys` and `args` (as `EVAL`/`EVALSHA` would) and answers its raw reply. */
export type RedisEval = (script: RedisScript, keys: string[], args: (string | number)[]) => Promise<unknown>;

/** The server's time in milliseconds, inside a script. */
const NOW = "local t = redis.call('TIME') local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)";
/** Keeps a lease set alive exactly as long as its last lease. */
const EXPIRE_WITH_LAST = "local last = redis.call('ZRANGE', KEYS[1], -1, -1, 'WITHSCORES') if last[2] then redis.call('PEXPIREAT', KEYS[1], last[2]) end";

export const SCRIPTS = {
  increment: {
    name: 'hitl_increment',
    lua: `local count = redis.call('INCR', KEYS[1])
local ttl = redis.call('PTTL', KEYS[1])
if ttl < 0 then redis.call('PEXPIRE', KEYS[1], ARGV[1]) ttl = tonumber(ARGV[1]) end
return {count, ttl}`,
  },
  acquireLease: {
    name: 'hitl_acquire_lease',
    lua: `${NOW}
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', now)
if redis.call('ZCARD', KEYS[1]) >= tonumber(ARGV[2]) then return 0 end
redis.call('ZADD', KEYS[1], now + tonumber(ARGV[3]), ARGV[1])
${EXPIRE_WITH_LAST}
return 1`,
  },
  renewLease: {
    name: 'hitl_renew_lease',
    lua: `${NOW}
redis.call('ZADD', KEYS[1], now + tonumber(ARGV[2]), ARGV[1])
${EXPIRE_WITH_LAST}
return 1`,
  },
  releaseLease: { name: 'hitl_release_lease', lua: "redis.call('ZREM', KEYS[1], ARGV[1]) return 1" },
  claim: {
    name: 'hitl_claim',
    lua: `if redis.call('EXISTS', KEYS[1]) == 1 then return redis.call('HGETALL', KEYS[1]) end
redis.call('HSET', KEYS[1], unpack(ARGV, 2))
redis.call('PEXPIRE', KEYS[1], ARGV[1])
return false`,
  },
  get: { name: 'hitl_get', lua: "return redis.call('HGETALL', KEYS[1])" },
  update: {
    name: 'hitl_update',
    lua: `if redis.call('HGET', KEYS[1], 'owner') ~= ARGV[2] then return 0 end
redis.call('DEL', KEYS[1])
redis.call('HSET', KEYS[1], unpack(ARGV, 3))
redis.call('PEXPIRE', KEYS[1], ARGV[1])
return 1`,
  },
  release: {
    name: 'hitl_release',
    lua: "if redis.call('HGET', KEYS[1], 'owner') == ARGV[1] then redis.call('DEL', KEYS[1]) end return 1",
  },
} satisfies Record<string, RedisScript>;

export interface ScriptedStoreOptions {
  /** Put before every key, so several apps (or environments) can share one Redis; default `hitl:`. */
  prefix?: string;
}

const RECORD_FIELDS = ['owner', 'fingerprint', 'state', 'claimedAt', 'runId', 'taskId', 'conversationId', 'messageId'] as const;

function recordFields(record: RunStartRecord): string[] {
  const flat: string[] = [];
  for (const field of RECORD_FIELDS) {
    const value = record[field];
    if (value !== undefined) flat.push(field, String(value));
  }
  return flat;
}

function recordFrom(reply: unknown): RunStartRecord | null {
  if (!Array.isArray(reply) || reply.length === 0) return null;
  const fields: Record<string, string> = {};
  for (let i = 0; i + 1 < reply.length; i += 2) fields[String(reply[i])] = String(reply[i + 1]);
  const state = fields.state === 'started' || fields.state === 'unknown' ? fields.state : 'pending';
  return {
    owner: fields.owner ?? '',
    fingerprint: fields.fingerprint ?? '',
    state,
    claimedAt: Number(fields.claimedAt ?? 0),
    ...(fields.runId ? { runId: fields.runId } : {}),
    ...(fields.taskId ? { taskId: fields.taskId } : {}),
    ...(fields.conversationId ? { conversationId: fields.conversationId } : {}),
    ...(fields.messageId ? { messageId: fields.messageId } : {}),
  };
}

/** A `RelayStore` over any way of running the scripts above. */
export function createScriptedStore(evaluate: RedisEval, options: ScriptedStoreOptions = {}): RelayStore {
  const prefix = options.prefix ?? 'hitl:';
  const key = (name: string) => prefix + name;
  const ms = (value: number) => Math.max(1, Math.ceil(value));
  return {
    async increment(name, windowMs): Promise<RateLimitCount> {
      const reply = (await evaluate(SCRIPTS.increment, [key(name)], [ms(windowMs)])) as [number | string, number | string];
      return { count: Number(reply[0]), resetAt: Date.now() + Number(reply[1]) };
    },
    async acquireLease(name, id, max, ttlMs) {
      return Number(await evaluate(SCRIPTS.acquireLease, [key(`slots:${name}`)], [id, max, ms(ttlMs)])) === 1;
    },
    async renewLease(name, id, ttlMs) {
      await evaluate(SCRIPTS.renewLease, [key(`slots:${name}`)], [id, ms(ttlMs)]);
    },
    async releaseLease(name, id) {
      await evaluate(SCRIPTS.releaseLease, [key(`slots:${name}`)], [id]);
    },
    async claimRunStart(name, record, ttlMs) {
      return recordFrom(await evaluate(SCRIPTS.claim, [key(`run:${name}`)], [ms(ttlMs), ...recordFields(record)]));
    },
    async getRunStart(name) {
      return recordFrom(await evaluate(SCRIPTS.get, [key(`run:${name}`)], []));
    },
    async updateRunStart(name, record, ttlMs) {
      return Number(await evaluate(SCRIPTS.update, [key(`run:${name}`)], [ms(ttlMs), record.owner, ...recordFields(record)])) === 1;
    },
    async releaseRunStart(name, owner) {
      await evaluate(SCRIPTS.release, [key(`run:${name}`)], [owner]);
    },
  };
}
