/**
 * A 200 MB upload through the relay against the same upload sent straight to the embedded
 * service: the speed ratio, and the relay process's resident memory growth (its peak during the
 * upload over its resident set before). Client, relay and service are separate processes. A
 * second pair puts a sink that reads and discards in the service's place, which shows the relay's
 * own cost against a bare socket (for information: no goal).
 */
import { request } from 'node:http';
import { randomFillSync } from 'node:crypto';
import { interleaved, MB, round, stats, timed, type BenchRow } from '../harness.js';
import { memoryOf, resetPeak, startChild } from '../lib/processes.js';

const BOUNDARY = 'bench-boundary-7d1c';
const KEY = 'app-demo-workflow';
const CHUNK = 64 * 1024;

/** Sends `size` bytes of file as a multipart upload, chunk by chunk from one reused buffer; resolves with the answer. */
function upload(url: string, token: string, size: number, payload: Buffer): Promise<void> {
  const head = Buffer.from(`--${BOUNDARY}\r\nContent-Disposition: form-data; name="user"\r\n\r\nbench\r\n--${BOUNDARY}\r\nContent-Disposition: form-data; name="file"; filename="big.bin"\r\nContent-Type: application/octet-stream\r\n\r\n`);
  const tail = Buffer.from(`\r\n--${BOUNDARY}--\r\n`);
  return new Promise((resolve, reject) => {
    const req = request(`${url}/files/upload`, {
      method: 'POST',
      headers: { Authorization: `Bearer ${token}`, 'Content-Type': `multipart/form-data; boundary=${BOUNDARY}`, 'Content-Length': head.length + size + tail.length },
    });
    req.on('response', (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => (res.statusCode === 201 ? resolve() : reject(new Error(`upload answered ${res.statusCode}: ${Buffer.concat(chunks).toString().slice(0, 200)}`))));
    });
    req.on('error', reject);
    req.write(head);
    let sent = 0;
    const pump = () => {
      while (sent < size) {
        const n = Math.min(CHUNK, size - sent);
        sent += n;
        if (!req.write(n === CHUNK ? payload : payload.subarray(0, n))) return void req.once('drain', pump);
      }
      req.end(tail);
    };
    pump();
  });
}

export const row: BenchRow = {
  id: 'relay-upload',
  title: '200 MB upload through the relay vs direct',
  baseline: 'the same upload sent straight to the upstream',
  async run({ quick, log }) {
    const size = (quick ? 64 : 200) * MB;
    const repeats = quick ? 3 : 5;
    // Random bytes: CRs and dashes turn up as in real files, so the boundary search does real work.
    const payload = randomFillSync(Buffer.alloc(CHUNK));
    const service = await startChild<{ url: string }>('./service-server.ts');
    const sink = await startChild<{ url: string }>('./sink.ts');
    const relay = await startChild<{ url: string; token: string }>('./relay-server.ts', [service.info.url, KEY]);
    const relayToSink = await startChild<{ url: string; token: string }>('./relay-server.ts', [sink.info.url]);
    const pipe = await startChild<{ url: string }>('./pipe-proxy.ts', [service.info.url]);
    // The service keeps what it stores; forgetting it between uploads keeps its memory level.
    const forget = () => fetch(`${new URL(service.info.url).origin}/_qa/reset`, { method: 'POST' }).then((r) => r.arrayBuffer());
    try {
      const growth: number[] = [];
      const throughRelay = async () => {
        const before = memoryOf(relay.pid).rss;
        resetPeak(relay.pid);
        const ms = await timed(() => upload(relay.info.url, relay.info.token, size, payload));
        growth.push((memoryOf(relay.pid).peak - before) / MB);
        await forget();
        return ms;
      };
      const direct = async () => {
        const ms = await timed(() => upload(service.info.url, KEY, size, payload));
        await forget();
        return ms;
      };
      const speed = await interleaved(repeats, throughRelay, direct);
      log(`service: relay ${round(speed.candidate.median)} ms, direct ${round(speed.baseline.median)} ms per ${size / MB} MB`);
      // The floor on this machine: a bare pipe proxy in the relay's place.
      const pipeGrowth: number[] = [];
      const floor = await interleaved(
        repeats,
        async () => {
          const before = memoryOf(pipe.pid).rss;
          resetPeak(pipe.pid);
          const ms = await timed(() => upload(pipe.info.url, KEY, size, payload));
          pipeGrowth.push((memoryOf(pipe.pid).peak - before) / MB);
          await forget();
          return ms;
        },
        direct,
      );
      log(`service: bare pipe proxy ${round(floor.candidate.median)} ms, direct ${round(floor.baseline.median)} ms per ${size / MB} MB`);
      const bare = await interleaved(repeats, () => timed(() => upload(relayToSink.info.url, relayToSink.info.token, size, payload)), () => timed(() => upload(sink.info.url, 'direct', size, payload)));
      log(`sink: relay ${round(bare.candidate.median)} ms, direct ${round(bare.baseline.median)} ms per ${size / MB} MB`);
      // The warm-up run is not a sample.
      const rss = stats(growth.slice(1));
      const throughput = (s: typeof speed.candidate) => stats(s.samples.map((ms) => size / MB / (ms / 1000)));
      const rates = (pair: typeof speed) => {
        const candidate = throughput(pair.candidate);
        const baseline = throughput(pair.baseline);
        return { candidate, baseline, ratio: candidate.median / baseline.median };
      };
      const toService = rates(speed);
      const toSink = rates(bare);
      const pipeToService = rates(floor);
      return [
        { metric: 'speed to the service, MB/s', ...toService, goal: '>= 0.8', met: toService.ratio >= 0.8, note: `${size / MB} MB, ${repeats} interleaved repeats` },
        { metric: 'relay RSS growth, MB', candidate: rss, goal: '< 16 MB', met: rss.max < 16, note: 'peak resident set of the relay process during the upload over its resident set before it' },
        { metric: 'bare pipe proxy RSS growth, MB', candidate: stats(pipeGrowth.slice(1)), goal: '(information)', met: true, note: 'the same measure for the bare pipe: what Node itself holds while 200 MB pass' },
        { metric: 'bare pipe proxy to the service, MB/s', ...pipeToService, goal: '(information)', met: true, note: 'a 20-line node:http pipe in the relay\'s place: the most any proxy gets on this machine' },
        { metric: 'speed to a discarding sink, MB/s', ...toSink, goal: '(information)', met: true, note: 'the relay hop against a bare loopback socket' },
      ];
    } finally {
      await Promise.all([relay.stop(), relayToSink.stop(), pipe.stop()]);
      await Promise.all([service.stop(), sink.stop()]);
    }
  },
};
