/**
 * The `RelayStore` contract, held by each implementation alike: the in-memory default, the Redis
 * store on a real `redis-server`, and the Redis-over-HTTP store through a small REST shim in
 * front of that server (Upstash's wire: `POST` a JSON command array, `{result}` or `{error}`).
 */
import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import { after, before, describe, test } from 'node:test';
import { Redis } from 'ioredis';
import { MemoryRelayStore, type RelayStore, type RunStartRecord } from '../../src/relay/index.js';
import { createRedisHttpStore } from '../../src/relay/redis-http.js';
import { createRedisStore, type RedisRelayStore } from '../../src/relay/redis.js';
import { closeServer, listen, readAll, sleep } from './helpers.js';
import { startRedis, type RedisServer } from './redis-helpers.js';

const HTTP_TOKEN = 'rest-token-for-tests';

let redis: RedisServer;
let redisStore: RedisRelayStore;
let shimClient: Redis;
let shim: Server;
let shimUrl: string;
const shimCommands: string[] = [];

before(async () => {
  redis = await startRedis();
  // Roomy time-outs: 300 calls at once on a busy two-core machine; the time-outs have their own test.
  redisStore = createRedisStore({ url: redis.url, prefix: 'tcp:', timeoutMs: 10_000 });
  shimClient = new Redis(redis.url);
  // Redis over HTTP as Upstash's REST API speaks it.
  shim = createServer(async (req, res) => {
    const body = await readAll(req);
    const send = (status: number, answer: unknown) => {
      res.writeHead(status, { 'Content-Type': 'application/json' });
      res.end(JSON.stringify(answer));
    };
    if (req.method !== 'POST' || req.headers.authorization !== `Bearer ${HTTP_TOKEN}`) return send(401, { error: 'Unauthorized' });
    const command = JSON.parse(body.toString()) as (string | number)[];
    shimCommands.push(String(command[0]));
    try {
      send(200, { result: await shimClient.call(String(command[0]), ...command.slice(1)) });
    } catch (error) {
      send(400, { error: (error as Error).message });
    }
  });
  shimUrl = await listen(shim);
});

after(async () => {
  await redisStore?.close();
  shimClient?.disconnect();
  await closeServer(shim);
  await redis?.stop();
});

const implementations: [string, () => RelayStore][] = [
  ['memory', () => new MemoryRelayStore()],
  ['redis', () => redisStore],
  ['redis over http', () => createRedisHttpStore({ url: shimUrl, token: HTTP_TOKEN, prefix: 'http:', timeoutMs: 10_000 })],
];

let unique = 0;
const fresh = (what: string) => `${what}-${++unique}-${Date.now()}`;

for (const [name, make] of implementations) {
  describe(`${name} store`, () => {
    test('a window counts every request once, concurrent or not, and starts again when it ends', async () => {
      const store = make();
      const key = fresh('count');
      const counts = await Promise.all(Array.from({ length: 300 }, () => store.increment(key, 60_000)));
      assert.deepEqual(counts.map((c) => c.count).sort((a, b) => a - b), Array.from({ length: 300 }, (_, i) => i + 1));
      for (const c of counts) assert.ok(c.resetAt > Date.now() && c.resetAt <= Date.now() + 60_000 + 50, `resetAt ${c.resetAt - Date.now()} ms away`);
      const short = fresh('short');
      assert.equal((await store.increment(short, 150)).count, 1);
      assert.equal((await store.increment(short, 150)).count, 2);
      await sleep(250);
      assert.equal((await store.increment(short, 150)).count, 1);
    });

    test('leases: granted up to the cap even when asked all at once, freed on release or expiry, kept by renewal', async () => {
      const store = make();
      const key = fresh('slots');
      const granted = await Promise.all(Array.from({ length: 100 }, (_, i) => store.acquireLease(key, `s${i}`, 5, 60_000)));
      assert.equal(granted.filter(Boolean).length, 5);
      assert.equal(await store.acquireLease(key, 'late', 5, 60_000), false);
      await store.releaseLease(key, `s${granted.indexOf(true)}`);
      assert.equal(await store.acquireLease(key, 'late', 5, 60_000), true);

      const expiring = fresh('expiring');
      assert.equal(await store.acquireLease(expiring, 'a', 1, 150), true);
      assert.equal(await store.acquireLease(expiring, 'b', 1, 150), false);
      await sleep(250);
      assert.equal(await store.acquireLease(expiring, 'b', 1, 150), true, 'an unrenewed lease expires');

      const renewed = fresh('renewed');
      assert.equal(await store.acquireLease(renewed, 'a', 1, 200), true);
      for (let i = 0; i < 5; i++) {
        await sleep(80);
        await store.renewLease(renewed, 'a', 200);
      }
      assert.equal(await store.acquireLease(renewed, 'b', 1, 200), false, 'a renewed lease holds past its first term');
      // A lease the store lost (a restarted Redis) comes back with its next renewal.
      const lost = fresh('lost');
      await store.renewLease(lost, 'a', 60_000);
      assert.equal(await store.acquireLease(lost, 'b', 1, 60_000), false);
    });

    test('run-start records: one claimer, changed only by it, gone on release or expiry', async () => {
      const store = make();
      const key = fresh('run');
      const mine: RunStartRecord = { owner: 'owner-1', fingerprint: 'f'.repeat(64), state: 'pending', claimedAt: 1_700_000_000_000 };
      const claims = await Promise.all(Array.from({ length: 20 }, (_, i) => store.claimRunStart(key, { ...mine, owner: `owner-${i + 1}` }, 60_000)));
      assert.equal(claims.filter((c) => c === null).length, 1, 'exactly one claim wins');
      const winner = `owner-${claims.indexOf(null) + 1}`;
      const held = await store.getRunStart(key);
      assert.deepEqual(held, { ...mine, owner: winner });
      for (const c of claims) if (c) assert.deepEqual(c, held);

      assert.equal(await store.updateRunStart(key, { ...mine, owner: 'someone-else', state: 'started', runId: 'r' }, 60_000), false);
      const started: RunStartRecord = { ...mine, owner: winner, state: 'started', runId: 'run-1', taskId: 'task-1', conversationId: 'conv-1' };
      assert.equal(await store.updateRunStart(key, started, 60_000), true);
      assert.deepEqual(await store.getRunStart(key), started);
      await store.releaseRunStart(key, 'someone-else');
      assert.deepEqual(await store.getRunStart(key), started);
      await store.releaseRunStart(key, winner);
      assert.equal(await store.getRunStart(key), null);

      const brief = fresh('brief');
      assert.equal(await store.claimRunStart(brief, mine, 150), null);
      await sleep(250);
      assert.equal(await store.getRunStart(brief), null);
      assert.equal(await store.claimRunStart(brief, mine, 150), null);
    });
  });
}

test('the HTTP store sends only EVAL, and a refused token is an error', async () => {
  assert.ok(shimCommands.length > 0);
  assert.deepEqual([...new Set(shimCommands)], ['EVAL']);
  const wrong = createRedisHttpStore({ url: shimUrl, token: 'wrong', prefix: 'http:' });
  await assert.rejects(async () => wrong.increment('x', 1000), /Redis over HTTP refused hitl_increment: Unauthorized/);
});

test('a Redis store made from a client you have leaves it open; one made from a URL fails fast while Redis is away', async () => {
  const client = new Redis(redis.url);
  const store = createRedisStore({ client, prefix: 'own:' });
  assert.equal((await store.increment('k', 1000)).count, 1);
  await store.close();
  assert.equal(await client.ping(), 'PONG');
  client.disconnect();

  const logs: string[] = [];
  const gone = createRedisStore({ url: 'redis://127.0.0.1:1', timeoutMs: 200, log: (e) => logs.push(e.code) });
  const started = Date.now();
  await assert.rejects(async () => gone.increment('k', 1000));
  assert.ok(Date.now() - started < 1500, `took ${Date.now() - started} ms`);
  await gone.close();
  assert.ok(logs.includes('relay_store_failed'));
});
