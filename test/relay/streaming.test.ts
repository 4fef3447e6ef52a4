/**
 * Streaming through the relay, against a controlled upstream that waits for the client before
 * sending more: SSE and audio arrive piece by piece, uploads reach the upstream before the
 * browser has finished sending, aborts travel both ways, the upload limit cuts a stream off
 * mid-way, and a 64 MiB upload passes with flat memory.
 */
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { after, before, describe, test } from 'node:test';
import { bearer, captureConsole, KEY, mountRelay, readAll, startUpstream, until, type ControlledUpstream, type MountedRelay } from './helpers.js';

let upstream: ControlledUpstream;
let mounted: MountedRelay;
let token: string;

before(async () => {
  upstream = await startUpstream();
  mounted = await mountRelay(upstream.url, { maxUploadBytes: 128 * 1024 * 1024 });
  token = (await mounted.relay.createSession({ user: 'alice' })).token;
});

after(async () => {
  await mounted?.close();
  await upstream?.close();
});

/** A promise with its resolver, failing the test if it is not resolved in time. */
function gate(what: string, timeoutMs = 10_000): { promise: Promise<void>; open(): void } {
  let open!: () => void;
  const promise = new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`timed out: ${what}`)), timeoutMs);
    open = () => {
      clearTimeout(timer);
      resolve();
    };
  });
  return { promise, open };
}

/** Reads SSE frames off a body, one at a time. */
function frames(body: ReadableStream<Uint8Array>): () => Promise<string | undefined> {
  const reader = body.getReader();
  const decoder = new TextDecoder();
  let buffered = '';
  return async () => {
    for (;;) {
      const end = buffered.indexOf('\n\n');
      if (end >= 0) {
        const frame = buffered.slice(0, end);
        buffered = buffered.slice(end + 2);
        return frame;
      }
      const { done, value } = await reader.read();
      if (done) return undefined;
      buffered += decoder.decode(value, { stream: true });
    }
  };
}

describe('server-sent events', () => {
  test('each event reaches the browser before the upstream sends the next', async () => {
    const count = 5;
    const received = Array.from({ length: count }, (_, i) => gate(`the browser receiving event ${i}`));
    const log: string[] = [];
    upstream.handler = async (req, res, got) => {
      got.body = await readAll(req);
      res.writeHead(200, { 'Content-Type': 'text/event-stream', 'Cache-Control': 'no-cache' });
      for (let i = 0; i < count; i++) {
        log.push(`sent ${i}`);
        res.write(`event: message\ndata: {"n":${i}}\n\n`);
        // Only once the browser has this event does the upstream produce the next one: a relay
        // that held events back would stall here and time out.
        await received[i]!.promise;
      }
      res.end();
    };
    const response = await fetch(`${mounted.url}/workflows/run`, { method: 'POST', headers: { ...bearer(token), 'Content-Type': 'application/json' }, body: JSON.stringify({ inputs: {}, response_mode: 'streaming' }) });
    assert.equal(response.status, 200);
    assert.match(response.headers.get('content-type') ?? '', /^text\/event-stream/);
    assert.equal(response.headers.get('x-accel-buffering'), 'no');
    assert.equal(response.headers.get('cache-control'), 'no-cache');
    const next = frames(response.body!);
    for (let i = 0; i < count; i++) {
      const frame = await next();
      assert.equal(frame, `event: message\ndata: {"n":${i}}`);
      log.push(`received ${i}`);
      received[i]!.open();
    }
    assert.equal(await next(), undefined);
    assert.deepEqual(log, Array.from({ length: count }, (_, i) => [`sent ${i}`, `received ${i}`]).flat());
    assert.equal(JSON.parse(upstream.last().body.toString()).user, 'alice');
  });

  test('an in-stream error echoing the API key loses it, wherever the chunks split it, and the rest is not held back', async () => {
    const decoder = new TextDecoder();
    for (const split of [1, 7, KEY.length - 1]) {
      const before = 'event: error\ndata: {"event":"error","message":"provider refused Bearer ';
      const after = ' and again ' + KEY + '","status":500}\n\n';
      let browserText = '';
      const prefixArrived = gate(`the browser receiving the text before the key (split ${split})`);
      upstream.handler = async (req, res, got) => {
        got.body = await readAll(req);
        res.writeHead(200, { 'Content-Type': 'text/event-stream' });
        res.write('event: ping\n\n' + before + KEY.slice(0, split));
        // The rest is sent only once the browser has everything but what could still be the key.
        await prefixArrived.promise;
        res.end(KEY.slice(split) + after);
      };
      const response = await fetch(`${mounted.url}/workflow/run-${split}/events`, { headers: bearer(token) });
      assert.equal(response.headers.get('content-length'), null);
      const reader = response.body!.getReader();
      for (;;) {
        const { done, value } = await reader.read();
        if (done) break;
        browserText += decoder.decode(value, { stream: true });
        if (browserText === `event: ping\n\n${before}`) prefixArrived.open();
      }
      await prefixArrived.promise;
      assert.equal(browserText, `event: ping\n\n${before}[redacted] and again [redacted]","status":500}\n\n`);
    }
  });

  test('the browser leaving aborts the upstream request, and nothing is logged', async () => {
    const first = gate('the first event');
    upstream.handler = (_req, res) => {
      res.writeHead(200, { 'Content-Type': 'text/event-stream' });
      res.write('event: ping\n\n');
      // Never ends on its own, like a paused run's stream with keep-alive.
    };
    const { output } = await captureConsole(async () => {
      const browser = new AbortController();
      const response = await fetch(`${mounted.url}/workflow/run-7/events`, { headers: bearer(token), signal: browser.signal });
      const next = frames(response.body!);
      assert.equal(await next(), 'event: ping');
      first.open();
      const answer = upstream.last();
      browser.abort();
      assert.equal(await answer.answerClosed, true, 'the upstream answer was closed before it finished');
      await new Promise((r) => setTimeout(r, 50));
    });
    await first.promise;
    assert.equal(output, '');
  });

  test('the upstream breaking off mid-stream breaks the browser stream too (no clean end)', async () => {
    upstream.handler = (_req, res) => {
      res.writeHead(200, { 'Content-Type': 'text/event-stream' });
      res.write('event: message\ndata: {"n":0}\n\n');
      setTimeout(() => res.socket?.destroy(), 50);
    };
    const { output } = await captureConsole(async () => {
      const response = await fetch(`${mounted.url}/workflow/run-8/events`, { headers: bearer(token) });
      const next = frames(response.body!);
      assert.equal(await next(), 'event: message\ndata: {"n":0}');
      await assert.rejects(next());
    });
    // The Node adapter reports the broken response; the report names the route, not the run.
    assert.match(output, /The upstream stream for GET \/workflow\/\{workflow_run_id\}\/events broke off/);
    assert.ok(!output.includes('run-8') && !output.includes(token));
  });
});

describe('text to audio', () => {
  test('audio streams through chunk by chunk with its content type', async () => {
    const chunks = [Buffer.from([0xff, 0xfb, 0x90, 0x64]), Buffer.alloc(4096, 1), Buffer.alloc(100, 2)];
    const received = chunks.map((_, i) => gate(`audio chunk ${i}`));
    upstream.handler = async (req, res, got) => {
      got.body = await readAll(req);
      res.writeHead(200, { 'Content-Type': 'audio/mpeg' });
      for (let i = 0; i < chunks.length; i++) {
        res.write(chunks[i]);
        await received[i]!.promise;
      }
      res.end();
    };
    const response = await fetch(`${mounted.url}/text-to-audio`, { method: 'POST', headers: { ...bearer(token), 'Content-Type': 'application/json' }, body: '{"text":"hello"}' });
    assert.equal(response.status, 200);
    assert.equal(response.headers.get('content-type'), 'audio/mpeg');
    const reader = response.body!.getReader();
    const got: Buffer[] = [];
    for (let i = 0; i < chunks.length; i++) {
      let have = 0;
      while (have < chunks[i]!.length) {
        const { done, value } = await reader.read();
        assert.equal(done, false);
        got.push(Buffer.from(value!));
        have += value!.length;
      }
      assert.equal(have, chunks[i]!.length, 'no bytes of the next chunk arrived early');
      received[i]!.open();
    }
    assert.equal((await reader.read()).done, true);
    assert.deepEqual(Buffer.concat(got), Buffer.concat(chunks));
    assert.equal(JSON.parse(upstream.last().body.toString()).user, 'alice');
  });
});

/** A full garbage collection, so what is measured afterwards is memory still held. */
function collectGarbage(): () => void {
  setFlagsFromString('--expose-gc');
  return runInNewContext('gc') as () => void;
}

/** A streamed request body the test feeds by hand. */
function pushStream(): { body: ReadableStream<Uint8Array>; push(chunk: Uint8Array | string): void; end(): void } {
  let controller!: ReadableStreamDefaultController<Uint8Array>;
  const body = new ReadableStream<Uint8Array>({ start: (c) => void (controller = c) });
  return {
    body,
    push: (chunk) => controller.enqueue(typeof chunk === 'string' ? new TextEncoder().encode(chunk) : chunk),
    end: () => controller.close(),
  };
}

const BOUNDARY = 'uploadboundary42';
const FILE_HEAD = `--${BOUNDARY}\r\nContent-Disposition: form-data; name="user"\r\n\r\nmallory\r\n--${BOUNDARY}\r\nContent-Disposition: form-data; name="file"; filename="big.bin"\r\nContent-Type: application/octet-stream\r\n\r\n`;
const FILE_TAIL = `\r\n--${BOUNDARY}--\r\n`;

function upload(body: ReadableStream<Uint8Array>, signal?: AbortSignal, url = mounted.url): Promise<Response> {
  return fetch(`${url}/files/upload`, {
    method: 'POST',
    headers: { ...bearer(token), 'Content-Type': `multipart/form-data; boundary=${BOUNDARY}` },
    body,
    signal,
    duplex: 'half',
    // Keeps this test client's own fetch from teeing (and so holding) the body it sends.
    redirect: 'error',
    window: null,
  } as RequestInit);
}

describe('uploads', () => {
  test('the upstream gets the first bytes before the browser has sent the rest', async () => {
    let upstreamBytes = 0;
    upstream.handler = async (req, res, received) => {
      const chunks: Buffer[] = [];
      for await (const chunk of req) {
        chunks.push(chunk as Buffer);
        upstreamBytes += (chunk as Buffer).length;
      }
      received.body = Buffer.concat(chunks);
      res.writeHead(201, { 'Content-Type': 'application/json' });
      res.end(JSON.stringify({ id: 'file-1', size: received.body.length }));
    };
    const source = pushStream();
    const answer = upload(source.body);
    source.push(FILE_HEAD);
    source.push(Buffer.alloc(64 * 1024, 7));
    // A relay that collected the upload before sending it on would never let this happen.
    await until(() => upstreamBytes > 64 * 1024, 'the upstream receiving the first part of the file');
    source.push(Buffer.alloc(64 * 1024, 8));
    source.push(FILE_TAIL);
    source.end();
    const response = await answer;
    assert.equal(response.status, 201);
    assert.equal(((await response.json()) as { id: string }).id, 'file-1');
    const form = await new Response(upstream.last().body, { headers: { 'Content-Type': String(upstream.last().headers['content-type']) } }).formData();
    assert.deepEqual(form.getAll('user'), ['alice']);
    const file = form.get('file') as File;
    assert.equal(file.size, 128 * 1024);
    assert.equal(upstream.last().headers['transfer-encoding'], 'chunked');
  });

  test('the browser abandoning an upload aborts the upstream request', async () => {
    upstream.handler = async (req, res) => {
      await readAll(req).catch(() => undefined);
      if (!res.destroyed) res.end('{}');
    };
    const browser = new AbortController();
    const source = pushStream();
    const before = upstream.requests.length;
    const answer = upload(source.body, browser.signal).catch((error: unknown) => error);
    source.push(FILE_HEAD);
    source.push(Buffer.alloc(32 * 1024, 1));
    await until(() => upstream.requests.length > before, 'the upload reaching the upstream');
    const received = upstream.last();
    browser.abort();
    assert.equal(await received.ended, 'aborted');
    assert.ok((await answer) instanceof Error);
  });

  test('passing the size limit mid-stream answers 413 and aborts the upstream request', async () => {
    const small = await mountRelay(upstream.url, { maxUploadBytes: 256 * 1024 });
    try {
      upstream.handler = async (req, res) => {
        await readAll(req).catch(() => undefined);
        if (!res.destroyed) res.end('{}');
      };
      const before = upstream.requests.length;
      const source = pushStream();
      // No Content-Length: the limit can only be enforced while the body streams.
      const answer = upload(source.body, undefined, small.url);
      source.push(FILE_HEAD);
      for (let i = 0; i < 8; i++) source.push(Buffer.alloc(64 * 1024, i));
      const response = await answer;
      assert.equal(response.status, 413);
      assert.deepEqual(await response.json(), { code: 'payload_too_large', message: 'The upload exceeds the 262144 byte limit.', status: 413 });
      assert.equal(upstream.requests.length, before + 1, 'the upload had started streaming upstream');
      assert.equal(await upstream.last().ended, 'aborted');
      source.end();
    } finally {
      await small.close();
    }
  });

  test('a 64 MiB upload streams through holding almost nothing, every byte intact', async () => {
    const gc = collectGarbage();
    const chunk = Buffer.alloc(256 * 1024);
    for (let i = 0; i < chunk.length; i++) chunk[i] = (i * 31 + 7) % 251;
    const chunks = 256; // 64 MiB
    let upstreamHash = '';
    let upstreamSize = 0;
    let boundary = '';
    upstream.handler = async (req, res) => {
      boundary = /boundary=(.+)$/.exec(String(req.headers['content-type']))?.[1] ?? '';
      const hash = createHash('sha256');
      for await (const piece of req) {
        hash.update(piece as Buffer);
        upstreamSize += (piece as Buffer).length;
      }
      upstreamHash = hash.digest('hex');
      res.writeHead(201, { 'Content-Type': 'application/json' });
      res.end('{"id":"big"}');
    };

    gc();
    const baseline = process.memoryUsage();
    // V8 frees the backing stores of collected buffers in the background: collect a few times,
    // letting it finish, and take the lowest reading. Memory still referenced never goes down.
    const held = async () => {
      let lowest = Infinity;
      for (let i = 0; i < 20 && lowest >= 8 * 1024 * 1024; i++) {
        gc();
        await new Promise((resolve) => setTimeout(resolve, 25));
        const now = process.memoryUsage();
        lowest = Math.min(lowest, now.heapUsed + now.arrayBuffers - (baseline.heapUsed + baseline.arrayBuffers));
      }
      return lowest;
    };
    const midway = gate('the upload pausing half-way', 10_000);
    let resume!: () => void;
    const resumed = new Promise<void>((resolve) => (resume = resolve));
    let sent = 0;
    const body = new ReadableStream<Uint8Array>({
      async pull(controller) {
        if (sent === 0) controller.enqueue(new TextEncoder().encode(FILE_HEAD));
        if (sent === chunks / 2) {
          midway.open();
          await resumed;
        }
        if (sent === chunks) {
          controller.enqueue(new TextEncoder().encode(FILE_TAIL));
          controller.close();
          return;
        }
        sent += 1;
        controller.enqueue(new Uint8Array(chunk));
      },
    });
    const started = Date.now();
    const answer = upload(body);
    await midway.promise;
    // Half the file has left the browser; the relay has passed it on rather than collected it.
    await until(() => upstreamSize >= (chunks / 2 - 16) * chunk.length, 'the upstream receiving the first half', 10_000);
    const heldMidway = await held();
    resume();
    const response = await answer;
    assert.equal(response.status, 201, await response.clone().text());
    await response.text();
    const heldAfter = await held();

    const expected = createHash('sha256');
    expected.update(`--${boundary}\r\nContent-Disposition: form-data; name="user"\r\n\r\nalice\r\n--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="big.bin"\r\nContent-Type: application/octet-stream\r\n\r\n`);
    for (let i = 0; i < chunks; i++) expected.update(chunk);
    expected.update(`\r\n--${boundary}--\r\n`);
    assert.equal(upstreamHash, expected.digest('hex'), 'the upstream got every byte, with the session user');

    const mib = (n: number) => (n / 1024 / 1024).toFixed(1);
    // Holding the upload would keep 32 MiB at the half-way mark; streaming keeps a few chunks.
    assert.ok(heldMidway < 16 * 1024 * 1024, `${mib(heldMidway)} MiB held half-way through`);
    assert.ok(heldAfter < 16 * 1024 * 1024, `${mib(heldAfter)} MiB held after the upload`);
    console.log(`# 64 MiB upload in ${Date.now() - started} ms; held half-way ${mib(heldMidway)} MiB, after ${mib(heldAfter)} MiB`);
  });
});
