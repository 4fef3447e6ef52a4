/**
 * Several relay instances, each in a process of its own, sharing one real `redis-server`: one
 * request limit and one stream cap across them, slots freed at once when a stream closes and
 * within a lease when the instance holding them dies, and a relay that rides out a Redis restart.
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { createRelay } from '../../src/relay/index.js';
import { bearer, KEY, readAll, SECRET, sleep, startUpstream, until, type ControlledUpstream } from './helpers.js';
import { startRedis, startRelayInstance, type RedisServer, type RelayInstance } from './redis-helpers.js';

const LIMIT = 100;
const STREAMS = 3;
const LEASE_SECONDS = 1;

let redis: RedisServer;
let upstream: ControlledUpstream;
let instances: RelayInstance[] = [];
/** Signs sessions with the instances' secret and app. */
const signer = createRelay({ upstreamUrl: 'http://127.0.0.1:1/v1', apiKey: KEY, secret: SECRET });
const tokenFor = async (user: string) => (await signer.createSession({ user })).token;

before(async () => {
  redis = await startRedis();
  upstream = await startUpstream();
  upstream.handler = async (req, res, received) => {
    received.body = await readAll(req);
    if (received.url.pathname.endsWith('/events')) {
      // A run's events: open until the browser leaves.
      res.writeHead(200, { 'Content-Type': 'text/event-stream' });
      res.write('event: ping\n\n');
      return;
    }
    res.writeHead(200, { 'Content-Type': 'application/json' });
    res.end('{"title":"site"}');
  };
  // Roomy time-outs: on two cores a thousand requests at once keep the event loops so busy that a
  // short one would expire before Redis's answer is read, and a timed-out count lets the request
  // through (the failure policy), which is not what this file measures. A Redis that is down
  // fails at once, without waiting for them.
  const options = { rateLimit: { requests: LIMIT, windowSeconds: 60 }, maxStreamsPerUser: STREAMS, streamLeaseSeconds: LEASE_SECONDS, storeTimeoutMs: 5000, redisTimeoutMs: 5000 };
  instances = await Promise.all([0, 1, 2].map(() => startRelayInstance(upstream.url, redis.url, options)));
});

after(async () => {
  await Promise.all(instances.map((i) => i.kill()));
  await upstream?.close();
  await redis?.stop();
});

/** Opens a run's event stream through `instance`; answers its status, and a way to close it. */
async function openStream(instance: RelayInstance, token: string): Promise<{ status: number; code?: string; close(): void }> {
  const aborter = new AbortController();
  const response = await fetch(`${instance.url}/workflow/run-1/events`, { headers: bearer(token), signal: aborter.signal });
  if (response.status !== 200) return { status: response.status, code: ((await response.json()) as { code: string }).code, close() {} };
  // Read the first frame, so the stream is known to be open end to end.
  const reader = response.body!.getReader();
  await reader.read();
  return { status: 200, close: () => aborter.abort() };
}

test('a thousand concurrent requests spread over three instances never pass one shared limit', async () => {
  const token = await tokenFor('crowd');
  const before = upstream.requests.length;
  const statuses = await Promise.all(
    Array.from({ length: 1000 }, async (_, i) => {
      const response = await fetch(`${instances[i % 3]!.url}/site`, { headers: bearer(token) });
      await response.arrayBuffer();
      return response.status;
    }),
  );
  assert.equal(statuses.filter((s) => s === 200).length, LIMIT);
  assert.equal(statuses.filter((s) => s === 429).length, 1000 - LIMIT);
  assert.equal(upstream.requests.length - before, LIMIT, 'only the allowed requests reached the upstream');
  // Another user has a budget of their own.
  const other = await fetch(`${instances[1]!.url}/site`, { headers: bearer(await tokenFor('someone-else')) });
  assert.equal(other.status, 200);
});

test('one stream cap across instances; a closed stream frees its slot at once', async () => {
  const token = await tokenFor('streamer');
  const open = [await openStream(instances[0]!, token), await openStream(instances[0]!, token), await openStream(instances[1]!, token)];
  assert.deepEqual(open.map((s) => s.status), [200, 200, 200]);
  const refused = await openStream(instances[2]!, token);
  assert.deepEqual([refused.status, refused.code], [429, 'too_many_streams']);
  open[0]!.close();
  // Freed at once, not after a lease: the close reaches instance 0, which releases the slot.
  let again = await openStream(instances[2]!, token);
  for (let i = 0; again.status !== 200 && i < 20; i++) {
    await sleep(25);
    again = await openStream(instances[2]!, token);
  }
  assert.equal(again.status, 200);
  for (const s of [...open, again]) s.close();
});

test('an instance that dies holding streams frees its slots within one lease', async () => {
  const token = await tokenFor('orphaned');
  const doomed = instances[2]!;
  const held = await Promise.all(Array.from({ length: STREAMS }, () => openStream(doomed, token)));
  assert.deepEqual(held.map((s) => s.status), [200, 200, 200]);
  // Held a while, so the leases are known to be renewed rather than merely young.
  await sleep(LEASE_SECONDS * 1500);
  assert.equal((await openStream(instances[0]!, token)).status, 429);
  const killedAt = Date.now();
  await doomed.kill('SIGKILL');
  let stream = await openStream(instances[0]!, token);
  while (stream.status !== 200 && Date.now() - killedAt < 5_000) {
    await sleep(50);
    stream = await openStream(instances[0]!, token);
  }
  assert.equal(stream.status, 200);
  const freedAfter = Date.now() - killedAt;
  assert.ok(freedAfter <= LEASE_SECONDS * 1000 + 750, `slots freed ${freedAfter} ms after the kill`);
  stream.close();
  for (const s of held) s.close();
});

test('while Redis is down requests pass (logged) and streams are capped per instance; once it is back the shared limit holds again', async () => {
  const [a, b] = instances;
  await redis.stop();
  const token = await tokenFor('outage');
  const started = Date.now();
  for (let i = 0; i < 5; i++) {
    const response = await fetch(`${a!.url}/site`, { headers: bearer(token) });
    assert.equal(response.status, 200, 'request limits fail open');
    await response.arrayBuffer();
  }
  assert.ok(Date.now() - started < 5_000, 'no request hangs on the missing Redis');
  const streams = await Promise.all(Array.from({ length: STREAMS + 1 }, () => openStream(b!, token)));
  assert.deepEqual(streams.map((s) => s.status).sort(), [200, 200, 200, 429], "the cap holds on the instance's own count");
  for (const s of streams) s.close();
  // A run start that could not be recorded is refused rather than risk a second run.
  const upstreamBefore = upstream.requests.length;
  const start = await fetch(`${a!.url}/workflows/run`, {
    method: 'POST',
    headers: { ...bearer(token), 'Content-Type': 'application/json', 'Idempotency-Key': 'during-outage' },
    body: JSON.stringify({ inputs: {}, response_mode: 'streaming' }),
  });
  assert.equal(start.status, 503);
  assert.equal(start.headers.get('retry-after'), '1');
  assert.equal(((await start.json()) as { code: string }).code, 'relay_store_unavailable');
  assert.equal(upstream.requests.length, upstreamBefore);
  await until(() => /rate_limit_store_failed/.test(a!.output()) && /relay_store_failed/.test(b!.output()), 'the outage to be logged');

  await redis.start();
  // Recovered when a fresh user's LIMIT+1st request is refused again, through another instance.
  const deadline = Date.now() + 15_000;
  let recovered = false;
  for (let attempt = 0; !recovered && Date.now() < deadline; attempt++) {
    const fresh = await tokenFor(`after-restart-${attempt}`);
    const statuses: number[] = [];
    await Promise.all(
      Array.from({ length: LIMIT + 1 }, async (_, i) => {
        const response = await fetch(`${instances[i % 2]!.url}/site`, { headers: bearer(fresh) });
        await response.arrayBuffer();
        statuses.push(response.status);
      }),
    );
    recovered = statuses.filter((s) => s === 429).length === 1;
    if (!recovered) await sleep(200);
  }
  assert.ok(recovered, 'the shared limit holds again after Redis came back');
  assert.match(a!.output(), /relay_store_recovered/);
});
