/**
 * Relay latency with its state in Redis against the in-memory default: `npx tsx bench/relay-store.ts
 * [--quick]`. Starts a `redis-server` (Debian's, or `REDIS_SERVER`) on a free port and a small
 * upstream, mounts the same relay twice (memory store, Redis store) and times sequential requests
 * through each, interleaved round by round: `GET /site` (one Redis call: the request count) and a
 * short event stream (two more: a slot granted, then freed). Prints p50 per round, the median
 * over rounds and the ratio (goal ≤ 1.3×).
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createRelay, MemoryRelayStore, type RelayStore } from '../src/relay/index.js';
import { toNodeListener } from '../src/relay/node.js';
import { createRedisStore } from '../src/relay/redis.js';
import { startRedis } from '../test/relay/redis-helpers.js';

const quick = process.argv.includes('--quick');
const ROUNDS = quick ? 3 : 7;
const REQUESTS = quick ? 300 : 1000;
const SECRET = 'bench-secret-0123456789-abcdefghijklmnop';

async function listen(server: Server): Promise<string> {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

const upstream = createServer((req, res) => {
  req.resume();
  req.on('end', () => {
    if (req.url?.includes('/events')) {
      res.writeHead(200, { 'Content-Type': 'text/event-stream' });
      res.end('data: {"event":"workflow_finished","workflow_run_id":"r","task_id":"r","data":{}}\n\n');
      return;
    }
    res.writeHead(200, { 'Content-Type': 'application/json' });
    res.end('{"title":"Bench","chat_color_theme":null,"default_language":"en-US"}');
  });
});
const upstreamUrl = `${await listen(upstream)}/v1`;
const redis = await startRedis();
const redisStore = createRedisStore({ url: redis.url });

async function mount(store: RelayStore): Promise<{ url: string; token: string; server: Server }> {
  // Limits high enough never to refuse: the bench times the store calls, not refusals.
  const relay = createRelay({ upstreamUrl, apiKey: 'app-bench', secret: SECRET, store, rateLimit: { requests: 1e9 }, maxStreamsPerUser: 1000 });
  const server = createServer(toNodeListener(relay));
  const url = await listen(server);
  return { url, token: (await relay.createSession({ user: 'bench' })).token, server };
}

const targets = { memory: await mount(new MemoryRelayStore()), redis: await mount(redisStore) };

async function p50(target: { url: string; token: string }, path: string): Promise<number> {
  const times: number[] = [];
  for (let i = 0; i < REQUESTS; i++) {
    const started = performance.now();
    const response = await fetch(target.url + path, { headers: { Authorization: `Bearer ${target.token}` } });
    await response.arrayBuffer();
    times.push(performance.now() - started);
  }
  times.sort((a, b) => a - b);
  return times[Math.floor(times.length / 2)]!;
}

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;
const rows: { path: string; memory: number[]; redis: number[] }[] = [
  { path: '/site', memory: [], redis: [] },
  { path: '/workflow/r/events', memory: [], redis: [] },
];
// Warm-up: connections, JIT, Redis scripts loaded.
for (const row of rows) for (const target of Object.values(targets)) await p50(target, row.path);
for (let round = 0; round < ROUNDS; round++) {
  for (const row of rows) {
    // Alternate which goes first, so neither always runs on a warmer machine.
    const order = round % 2 === 0 ? (['memory', 'redis'] as const) : (['redis', 'memory'] as const);
    for (const name of order) row[name].push(await p50(targets[name], row.path));
  }
}

console.log(`relay p50 latency, ${ROUNDS} interleaved rounds of ${REQUESTS} sequential requests (ms; min / median / max over rounds)`);
console.log('| request | memory store | Redis store | Redis / memory |');
console.log('|---|---|---|---|');
const fmt = (v: number[]) => `${Math.min(...v).toFixed(3)} / ${median(v).toFixed(3)} / ${Math.max(...v).toFixed(3)}`;
for (const row of rows) console.log(`| GET ${row.path} | ${fmt(row.memory)} | ${fmt(row.redis)} | ${(median(row.redis) / median(row.memory)).toFixed(2)}× |`);

for (const target of Object.values(targets)) target.server.close();
upstream.close();
await redisStore.close();
await redis.stop();
