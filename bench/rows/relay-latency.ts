/**
 * Relay p50 latency against a bare `node:http` pipe proxy (bench/lib/pipe-proxy.ts) in front of
 * the same embedded service (stream delays off): `GET /parameters`, `GET /site` and a blocking
 * `POST /chat-messages`. Service, relay and pipe run in processes of their own; the client is
 * plain `node:http` with keep-alive. A round's figure is the p50 of its sequential requests; the
 * row gives min / median / max over interleaved rounds.
 */
import { call, type Call } from '../lib/client.js';
import { interleaved, round, stats, type BenchRow, type Measurement } from '../harness.js';
import { startChild } from '../lib/processes.js';

const KEY = 'app-demo-chatbot';

async function p50(url: string, init: Call, requests: number): Promise<number> {
  const times: number[] = [];
  for (let i = 0; i < requests; i++) {
    const started = performance.now();
    await call(url, init);
    times.push(performance.now() - started);
  }
  return stats(times).median;
}

export const row: BenchRow = {
  id: 'relay-latency',
  title: 'relay p50 latency vs a bare node:http pipe proxy',
  baseline: 'a 20-line node:http pipe proxy in front of the same service',
  async run({ quick, log }) {
    const rounds = quick ? 3 : 7;
    const requests = quick ? 200 : 600;
    const service = await startChild<{ url: string }>('./service-server.ts', ['no-delays']);
    const relay = await startChild<{ url: string; token: string }>('./relay-server.ts', [service.info.url, KEY]);
    const pipe = await startChild<{ url: string }>('./pipe-proxy.ts', [service.info.url]);
    try {
      const out: Measurement[] = [];
      const chat = JSON.stringify({ inputs: {}, query: 'What can you do?', response_mode: 'blocking', user: 'bench' });
      for (const [label, path, method, body] of [
        ['GET /parameters', '/parameters', 'GET', undefined],
        ['GET /site', '/site', 'GET', undefined],
        ['POST /chat-messages (blocking)', '/chat-messages', 'POST', chat],
      ] as const) {
        const through = (base: string, token: string) => () => p50(base + path, { method, body, headers: { Authorization: `Bearer ${token}` } }, requests);
        const result = await interleaved(rounds, through(relay.info.url, relay.info.token), through(pipe.info.url, KEY));
        log(`${label}: relay ${round(result.candidate.median, 3)} ms, pipe ${round(result.baseline.median, 3)} ms`);
        out.push({ metric: `${label}: p50 ms`, ...result, goal: '<= 1.1', met: result.ratio <= 1.1, note: `${rounds} interleaved rounds of ${requests} sequential requests; each figure a round's p50` });
      }
      return out;
    } finally {
      await Promise.all([relay.stop(), pipe.stop()]);
      await service.stop();
    }
  },
};
