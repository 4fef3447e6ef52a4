/**
 * Relay latency with its state in Redis against the in-memory default (issue 16: ≤ 1.3×). Starts
 * a `redis-server` (Debian's, or `REDIS_SERVER`) on a free port, then a process of its own
 * (`store-relays.ts`, compiled as the package ships) with a small upstream and the same relay
 * mounted twice (memory store, Redis store), and times sequential requests through each from
 * this process, round by round, interleaved: `GET /site` (one Redis call: the request count) and
 * a short event stream (two more: a slot granted, then freed). A round's figure is the p50 of its
 * requests; the row gives min / median / max over rounds.
 */
import { startRedis } from '../../test/relay/redis-helpers.js';
import { interleaved, round, stats, type BenchRow, type Measurement } from '../harness.js';
import { startChild } from '../lib/processes.js';

interface Target {
  url: string;
  token: string;
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
    const redis = await startRedis();
    const relays = await startChild<{ memory: Target; redis: Target }>('./store-relays.ts', [redis.url]);
    const { memory, redis: inRedis } = relays.info;
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
      await relays.stop();
      await redis.stop();
    }
  },
};
