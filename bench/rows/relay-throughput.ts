/**
 * Relay throughput with 50 connections against the bare pipe proxy in front of the same service:
 * 50 keep-alive connections each sending `GET /parameters` back to back for a fixed time, rounds
 * interleaved; requests per second.
 */
import { Agent } from 'node:http';
import { call } from '../lib/client.js';
import { interleaved, round, type BenchRow } from '../harness.js';
import { startChild } from '../lib/processes.js';

const KEY = 'app-demo-chatbot';
const CONNECTIONS = 50;

/** Requests per second over `ms` with `CONNECTIONS` loops sharing as many keep-alive sockets. */
async function rate(url: string, token: string, ms: number): Promise<number> {
  const agent = new Agent({ keepAlive: true, maxSockets: CONNECTIONS });
  const headers = { Authorization: `Bearer ${token}` };
  const until = performance.now() + ms;
  let done = 0;
  const started = performance.now();
  await Promise.all(
    Array.from({ length: CONNECTIONS }, async () => {
      while (performance.now() < until) {
        await call(url, { headers, agent });
        done++;
      }
    }),
  );
  const elapsed = performance.now() - started;
  agent.destroy();
  return done / (elapsed / 1000);
}

export const row: BenchRow = {
  id: 'relay-throughput',
  title: 'relay throughput, 50 connections, vs the bare pipe proxy',
  baseline: 'a 20-line node:http pipe proxy in front of the same service',
  async run({ quick, log }) {
    const rounds = quick ? 3 : 7;
    const ms = quick ? 1500 : 4000;
    const service = await startChild<{ url: string }>('./service-server.ts', ['no-delays']);
    const relay = await startChild<{ url: string; token: string }>('./relay-server.ts', [service.info.url, KEY]);
    const pipe = await startChild<{ url: string }>('./pipe-proxy.ts', [service.info.url]);
    try {
      const result = await interleaved(rounds, () => rate(`${relay.info.url}/parameters`, relay.info.token, ms), () => rate(`${pipe.info.url}/parameters`, KEY, ms));
      log(`GET /parameters: relay ${round(result.candidate.median, 0)} req/s, pipe ${round(result.baseline.median, 0)} req/s`);
      return [{ metric: 'GET /parameters, 50 connections: requests/s', ...result, goal: '>= 0.8', met: result.ratio >= 0.8, note: `${rounds} interleaved rounds of ${ms / 1000} s` }];
    } finally {
      await Promise.all([relay.stop(), pipe.stop()]);
      await service.stop();
    }
  },
};
