/**
 * Relay latency with its state in Redis against the in-memory default (issue 16: ≤ 1.3×). Starts
 * a `redis-server` (Debian's, or `REDIS_SERVER`) on a free port and a small upstream, mounts the
 * same relay twice (memory store, Redis store) and times sequential requests through each, round
 * by round, interleaved: `GET /site` (one Redis call: the request count) and a short event stream
 * (two more: a slot granted, then freed). A round's figure is the p50 of its requests; the row
 * gives min / median / max over rounds.
 */
import { createServer, type Server } from 'node:http';
import { createRelay, MemoryRelayStore, type RelayStore } from '../../src/relay/index.js';
import { toNodeListener } from '../../src/relay/node.js';
import { createRedisStore } from '../../src/relay/redis.js';
import { closeServer, listen } from '../../test/relay/helpers.js';
import { startRedis } from '../../test/relay/redis-helpers.js';
import { interleaved, round, stats, type BenchRow, type Measurement } from '../harness.js';

const SECRET = 'bench-secret-0123456789-abcdefghijklmnop';

function startUpstream(): Server {
  return createServer((req, res) => {
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
}

interface Target {
  url: string;
  token: string;
  server: Server;
}

async function mount(upstreamUrl: string, store: RelayStore): Promise<Target> {
  // Limits high enough never to refuse: the bench times the store calls, not refusals.
  const relay = createRelay({ upstreamUrl, apiKey: 'app-bench', secret: SECRET, store, rateLimit: { requests: 1e9 }, maxStreamsPerUser: 1000 });
  const server = createServer(toNodeListener(relay));
  const url = await listen(server);
  return { url, token: (await relay.createSession({ user: 'bench' })).token, server };
}

/** The p50 of `requests` sequential requests, in ms. */
async function p50(target: Target, path: string, requests: number): Promise<number> {
  const times: number[] = [];
  for (let i = 0; i < requests; i++) {
    const started = performance.now();
    const response = await fetch(target.url + path, { headers: { Authorization: `Bearer ${target.token}` } });
    if (response.status !== 200) throw new Error(`GET ${path} answered ${response.status}`);
    await response.arrayBuffer();
    times.push(performance.now() - started);
  }
  return stats(times).median;
}

export const row: BenchRow = {
  id: 'relay-store',
  title: 'relay p50 latency with the Redis store vs the memory store',
  baseline: 'the same relay with the in-memory store',
  async run({ quick, log }) {
    const rounds = quick ? 3 : 7;
    const requests = quick ? 300 : 1000;
    const upstream = startUpstream();
    const upstreamUrl = `${await listen(upstream)}/v1`;
    const redis = await startRedis();
    const redisStore = createRedisStore({ url: redis.url });
    const memory = await mount(upstreamUrl, new MemoryRelayStore());
    const inRedis = await mount(upstreamUrl, redisStore);
    log(`redis-server on ${redis.url}`);
    try {
      const out: Measurement[] = [];
      for (const [label, path] of [
        ['GET /site', '/site'],
        ['short event stream (GET /workflow/r/events)', '/workflow/r/events'],
      ] as const) {
        // The warm-up round opens connections, warms the JIT and loads the Redis scripts.
        const result = await interleaved(rounds, () => p50(inRedis, path, requests), () => p50(memory, path, requests));
        log(`${label}: Redis ${round(result.candidate.median, 3)} ms, memory ${round(result.baseline.median, 3)} ms`);
        out.push({
          metric: `${label}: p50 ms`,
          ...result,
          goal: '<= 1.3',
          met: result.ratio <= 1.3,
          note: `${rounds} interleaved rounds of ${requests} sequential requests; each figure a round's p50; Redis on loopback`,
        });
      }
      return out;
    } finally {
      await Promise.all([closeServer(memory.server), closeServer(inRedis.server), closeServer(upstream)]);
      await redisStore.close();
      await redis.stop();
    }
  },
};
