/**
 * What the relay holds per open event stream: N streams (2,000; 500 in a quick pass) opened
 * through it to an upstream that sends one event and holds each open; the relay process's heap
 * after a full collection, with every stream held, over its heap before, per stream. The stream
 * cap is on (as deployed: each stream holds a slot lease) but high enough for all of them. The
 * bare pipe proxy's figure is given for information.
 */
import { Agent } from 'node:http';
import { openStream } from '../lib/client.js';
import { MB, round, stats, type BenchRow, type Measurement } from '../harness.js';
import { heapOf, startChild, type Child } from '../lib/processes.js';

/** Opens `count` held streams (a few at a time), waits for each one's first event; returns a closer. */
async function hold(url: string, token: string, count: number): Promise<() => Promise<void>> {
  const agent = new Agent({ keepAlive: false, maxSockets: Infinity });
  const open: { destroy(): void; ended: Promise<void> }[] = [];
  let next = 0;
  await Promise.all(
    Array.from({ length: 50 }, async () => {
      while (next < count) {
        next++;
        let first!: () => void;
        const arrived = new Promise<void>((resolve) => (first = resolve));
        const stream = await openStream(`${url}/workflow/bench-run/events?hold=1`, { Authorization: `Bearer ${token}` }, () => first(), agent);
        await arrived;
        open.push({ destroy: () => stream.response.destroy(), ended: stream.ended });
      }
    }),
  );
  return async () => {
    for (const s of open) s.destroy();
    await Promise.all(open.map((s) => s.ended));
    agent.destroy();
  };
}

/**
 * The server's heap once the closed streams are gone: a server takes a moment (over a second
 * here) to let go of 2,000 closed sockets, and a reading before that would count them as the
 * next round's baseline. Waits (at most 10 s) for the heap to come back near `level`.
 */
async function settled(server: Child<unknown>, level: number): Promise<number> {
  const deadline = Date.now() + 10_000;
  for (;;) {
    await new Promise((resolve) => setTimeout(resolve, 500));
    const heap = await heapOf(server);
    if (heap < level + 2 * MB || Date.now() > deadline) return heap;
  }
}

/** Heap bytes per held stream in `server`, over `rounds` rounds. */
async function perStream(server: Child<{ url: string; token?: string }>, token: string, count: number, rounds: number): Promise<number[]> {
  // Warm-up: the code paths compiled, pools and caches filled, before the first heap reading.
  await (await hold(server.info.url, token, 50))();
  const out: number[] = [];
  let before = await heapOf(server);
  for (let i = 0; i < rounds; i++) {
    const close = await hold(server.info.url, token, count);
    const during = await heapOf(server);
    out.push((during - before) / count);
    await close();
    before = await settled(server, before);
  }
  return out;
}

export const row: BenchRow = {
  id: 'relay-streams',
  title: 'relay heap per held event stream',
  baseline: 'a fixed goal (the bare pipe proxy for information)',
  async run({ quick, log }) {
    const count = quick ? 500 : 2000;
    const rounds = quick ? 2 : 3;
    const upstream = await startChild<{ url: string }>('./sse-server.ts');
    const relay = await startChild<{ url: string; token: string }>('./relay-server.ts', [upstream.info.url, 'app-bench-key', JSON.stringify({ maxStreamsPerUser: 100_000 })], ['--expose-gc']);
    const pipe = await startChild<{ url: string }>('./pipe-proxy.ts', [upstream.info.url], ['--expose-gc']);
    try {
      const relayKb = stats((await perStream(relay, relay.info.token, count, rounds)).map((b) => b / 1024));
      log(`relay: ${round(relayKb.median, 1)} KB per stream, ${count} held`);
      const pipeKb = stats((await perStream(pipe, 'direct', count, rounds)).map((b) => b / 1024));
      log(`pipe: ${round(pipeKb.median, 1)} KB per stream`);
      const out: Measurement[] = [
        { metric: 'relay heap per held stream, KB', candidate: relayKb, goal: '<= 16 KB', met: relayKb.max <= 16, note: `${count} streams held at once, ${rounds} rounds; heap after a full collection` },
        { metric: 'bare pipe proxy heap per held stream, KB', candidate: pipeKb, goal: '(information)', met: true, note: 'what Node itself holds per proxied stream (two sockets)' },
      ];
      if (!quick) out.push({ metric: 'streams held at once', candidate: stats([count]), goal: '>= 2000', met: count >= 2000 });
      return out;
    } finally {
      await Promise.all([relay.stop(), pipe.stop()]);
      await upstream.stop();
    }
  },
};
