/**
 * The delay an event stream's events take through the relay against the bare pipe proxy: an
 * upstream (bench/lib/sse-server.ts) stamps each event with the monotonic clock as it writes it,
 * the client reads the stamp when the event arrives; the difference is the event's delay. A
 * round is one stream of events a few milliseconds apart; its figure is the median delay.
 */
import { openStream } from '../lib/client.js';
import { interleaved, round, stats, type BenchRow } from '../harness.js';
import { startChild } from '../lib/processes.js';

/** The median delay (ms) of `events` events `interval` ms apart. */
async function delay(url: string, token: string, events: number, interval: number): Promise<number> {
  const delays: number[] = [];
  const stream = await openStream(`${url}/workflow/bench-run/events?events=${events}&interval=${interval}`, { Authorization: `Bearer ${token}` }, (event, at) => {
    const stamp = /"t":"(\d+)"/.exec(event)?.[1];
    if (stamp) delays.push(Number(at - BigInt(stamp)) / 1e6);
  });
  await stream.ended;
  if (delays.length !== events) throw new Error(`${delays.length} of ${events} events arrived`);
  return stats(delays).median;
}

export const row: BenchRow = {
  id: 'relay-sse',
  title: 'SSE delay per event through the relay vs the bare pipe proxy',
  baseline: 'a 20-line node:http pipe proxy in front of the same upstream',
  async run({ quick, log }) {
    const rounds = quick ? 3 : 7;
    const events = quick ? 150 : 400;
    const interval = 5;
    const upstream = await startChild<{ url: string }>('./sse-server.ts');
    const relay = await startChild<{ url: string; token: string }>('./relay-server.ts', [upstream.info.url]);
    const pipe = await startChild<{ url: string }>('./pipe-proxy.ts', [upstream.info.url]);
    try {
      const result = await interleaved(rounds, () => delay(relay.info.url, relay.info.token, events, interval), () => delay(pipe.info.url, 'direct', events, interval));
      log(`relay ${round(result.candidate.median, 3)} ms, pipe ${round(result.baseline.median, 3)} ms per event`);
      return [{ metric: 'delay per event, ms', ...result, goal: '<= 1.3', met: result.ratio <= 1.3, note: `${rounds} interleaved rounds of one stream of ${events} events ${interval} ms apart (~400 B each); each figure a round's median` }];
    } finally {
      await Promise.all([relay.stop(), pipe.stop()]);
      await upstream.stop();
    }
  },
};
