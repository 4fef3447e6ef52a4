/**
 * The relay's two transports, `toNodeListener(relay)` (Node's streams piped through, node-pipe.ts)
 * and its fetch handler (what edge runtimes and Next.js mount), side by side in front of one
 * upstream: the same requests get the same answers, and the upstream sees the same requests.
 * (`RELAY_TRANSPORT=fetch` runs the whole relay suite through the fetch handler too.)
 */
import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import { after, before, describe, test } from 'node:test';
import { createRelay, type Relay } from '../../src/relay/index.js';
import { toNodeListener } from '../../src/relay/node.js';
import { BASE_PATH, bearer, closeServer, KEY, listen, readAll, SECRET, startUpstream, type ControlledUpstream } from './helpers.js';

let upstream: ControlledUpstream;
let relay: Relay;
let piped: Server;
let viaFetch: Server;
const urls: Record<'piped' | 'fetch', string> = { piped: '', fetch: '' };
let token: string;

before(async () => {
  upstream = await startUpstream();
  relay = createRelay({ upstreamUrl: upstream.url, apiKey: KEY, secret: SECRET, basePath: BASE_PATH });
  piped = createServer(toNodeListener(relay));
  viaFetch = createServer(toNodeListener((request: Request) => relay.fetch(request)));
  urls.piped = (await listen(piped)) + BASE_PATH;
  urls.fetch = (await listen(viaFetch)) + BASE_PATH;
  token = (await relay.createSession({ user: 'alice' })).token;
});

after(async () => {
  await Promise.all([closeServer(piped), closeServer(viaFetch)]);
  await upstream?.close();
});

/** What a browser sees of an answer, minus what only the transport decides (dates, framing). */
async function seen(response: Response): Promise<{ status: number; headers: Record<string, string>; body: string }> {
  const headers: Record<string, string> = {};
  for (const [name, value] of response.headers) if (!['date', 'connection', 'keep-alive', 'transfer-encoding', 'content-length'].includes(name)) headers[name] = value;
  return { status: response.status, headers, body: await response.text() };
}

/** Sends the same request through both transports; returns both answers and both upstream requests. */
async function both(path: string, init: RequestInit = {}) {
  const out = [];
  for (const transport of ['piped', 'fetch'] as const) {
    const before = upstream.requests.length;
    const response = await fetch(urls[transport] + path, { ...init, headers: { ...bearer(token), ...(init.headers as Record<string, string>) } });
    const answer = await seen(response);
    const received = upstream.requests.length > before ? upstream.last() : undefined;
    out.push({ answer, received: received && { method: received.method, path: received.url.pathname, query: [...received.url.searchParams], authorization: received.headers.authorization, contentType: received.headers['content-type'], body: received.body.toString() } });
  }
  return { piped: out[0]!, fetch: out[1]! };
}

describe('the piped transport and the fetch handler', () => {
  test('answer a query route alike and send the upstream the same request (user set, lookalike fields dropped)', async () => {
    upstream.handler = async (req, res, received) => {
      received.body = await readAll(req);
      res.writeHead(200, { 'Content-Type': 'application/json', 'Cache-Control': 'private' });
      res.end(JSON.stringify({ data: [], echo: KEY }));
    };
    const { piped: a, fetch: b } = await both('/conversations?user=mallory&User=x&user%5B%5D=y&limit=20&last_id=');
    assert.deepEqual(a, b);
    assert.deepEqual(a.received?.query, [['limit', '20'], ['last_id', ''], ['user', 'alice']]);
    assert.equal(a.received?.authorization, `Bearer ${KEY}`);
    assert.ok(!a.answer.body.includes(KEY));
    assert.equal(a.answer.headers['x-content-type-options'], 'nosniff');
    assert.equal(a.answer.headers['cache-control'], 'no-store');
  });

  test('rewrite a JSON body alike', async () => {
    upstream.handler = async (req, res, received) => {
      received.body = await readAll(req);
      res.writeHead(200, { 'Content-Type': 'application/json' });
      res.end(received.body);
    };
    const body = JSON.stringify({ inputs: { a: 1 }, query: 'hi', response_mode: 'blocking', user: 'mallory' });
    const { piped: a, fetch: b } = await both('/chat-messages', { method: 'POST', body, headers: { 'Content-Type': 'application/json' } });
    assert.deepEqual(a, b);
    assert.deepEqual(JSON.parse(a.answer.body), { inputs: { a: 1 }, query: 'hi', response_mode: 'blocking', user: 'alice' });
  });

  test('pass a JSON body on as written but for its user: numbers past 2^53, -0, 1e400, a byte order mark', async () => {
    upstream.handler = async (req, res, received) => {
      received.body = await readAll(req);
      res.writeHead(200, { 'Content-Type': 'application/json' });
      res.end('{}');
    };
    const body = '\uFEFF{"inputs": {"id": 12345678901234567890, "z": -0, "big": 1e400, "user": "kept"}, "user": "mallory", "us\\u0065r": "m2", "query": "hi"}';
    const { piped: a, fetch: b } = await both('/chat-messages', { method: 'POST', body, headers: { 'Content-Type': 'application/json' } });
    assert.deepEqual(a, b);
    assert.equal(a.answer.status, 200);
    assert.equal(a.received?.body, '{"inputs": {"id": 12345678901234567890, "z": -0, "big": 1e400, "user": "kept"},"query": "hi","user":"alice"}');
  });

  test('answer alike what no upstream should send: a bodiless status naming a coding, a status past 599, an error nested thousands deep', async () => {
    const answers: [string, (res: import('node:http').ServerResponse) => void, number][] = [
      ['204 with gzip', (res) => (res.writeHead(204, { 'Content-Encoding': 'gzip' }), res.end()), 204],
      ['304 with br', (res) => (res.writeHead(304, { 'Content-Encoding': 'br' }), res.end()), 304],
      ['an empty gzip body', (res) => (res.writeHead(200, { 'Content-Type': 'application/json', 'Content-Encoding': 'gzip', 'Content-Length': '0' }), res.end()), 200],
      ['status 600', (res) => (res.writeHead(600, { 'Content-Type': 'application/json' }), res.end('{}')), 502],
      ['an error nested 5,000 deep', (res) => (res.writeHead(500, { 'Content-Type': 'application/json' }), res.end(`${'['.repeat(5000)}${']'.repeat(5000)}`)), 500],
    ];
    for (const [what, answer, status] of answers) {
      upstream.handler = async (req, res) => {
        await readAll(req);
        answer(res);
      };
      const { piped: a, fetch: b } = await both('/parameters');
      assert.deepEqual(a.answer, b.answer, what);
      assert.equal(a.answer.status, status, what);
      if (status >= 400) assert.equal(JSON.parse(a.answer.body).status, status, what);
    }
    // The piped transport's decoder for that 204 once failed after the answer went, and ended the process.
    await new Promise((resolve) => setTimeout(resolve, 50));
  });

  test('decode alike every coding fetch reads: zlib and raw deflate, gzip, br, a list of codings, one it does not know', async () => {
    const { brotliCompressSync, deflateRawSync, deflateSync, gzipSync } = await import('node:zlib');
    const json = Buffer.from(JSON.stringify({ opening_statement: 'Hello', echo: KEY }));
    const codings: [string, Buffer][] = [
      ['deflate', deflateSync(json)],
      // What some servers send as `deflate` (RFC 1951 without the zlib wrapper): fetch reads it too.
      ['deflate', deflateRawSync(json)],
      ['gzip', gzipSync(json)],
      ['x-gzip', gzipSync(json)],
      ['br', brotliCompressSync(json)],
      ['gzip, br', brotliCompressSync(gzipSync(json))],
      [' Deflate ,GZIP', gzipSync(deflateRawSync(json))],
      ['identity', json],
      ['gzip, zstd', gzipSync(json)],
      ['deflate', Buffer.alloc(0)],
      ['deflate, gzip, br, gzip, deflate, gzip', json],
    ];
    for (const [coding, body] of codings) {
      upstream.handler = async (req, res) => {
        await readAll(req);
        res.writeHead(200, { 'Content-Type': 'application/json', 'Content-Encoding': coding, 'Content-Length': body.length });
        res.end(body);
      };
      const { piped: a, fetch: b } = await both('/parameters').catch((error: Error) => assert.fail(`${coding}: ${error.cause ?? error}`));
      assert.deepEqual(a.answer, b.answer, coding);
      if (!body.length || coding.split(',').length > 5) assert.ok(a.answer.status === 200 ? a.answer.body === '' : a.answer.status === 502, coding);
      else if (!/identity|zstd/.test(coding)) assert.equal(JSON.parse(a.answer.body).opening_statement, 'Hello', coding);
      assert.ok(!a.answer.body.includes(KEY), coding);
    }
  });

  test('refuse alike: a malformed body, a bad token, a redirect, an upstream refusing the key, a web page, an error echoing the key', async () => {
    upstream.handler = async (req, res) => {
      await readAll(req);
      res.writeHead(400, { 'Content-Type': 'application/json' });
      res.end(JSON.stringify({ code: 'invalid_param', message: `bad key ${KEY} at ${upstream.url}`, status: 400 }));
    };
    for (const [path, init] of [
      ['/chat-messages', { method: 'POST', body: '[1,2]', headers: { 'Content-Type': 'application/json' } }],
      ['/site', { headers: { Authorization: 'Bearer nope' } }],
      ['/messages/m1/feedbacks', { method: 'POST', body: '{}', headers: { 'Content-Type': 'application/json' } }],
    ] as const) {
      const { piped: a, fetch: b } = await both(path, init);
      assert.deepEqual(a.answer, b.answer, path);
      assert.ok(!a.answer.body.includes(KEY) && !a.answer.body.includes(upstream.url), path);
    }
    for (const answer of [
      { status: 302, type: 'application/json', body: '{}', location: 'http://elsewhere.invalid/' },
      { status: 401, type: 'application/json', body: '{"code":"unauthorized"}' },
      { status: 200, type: 'text/html', body: '<h1>login</h1>' },
      { status: 503, type: 'text/html', body: '<h1>down</h1>' },
    ]) {
      upstream.handler = (_req, res) => {
        res.writeHead(answer.status, { 'Content-Type': answer.type, ...(answer.location ? { Location: answer.location } : {}) });
        res.end(answer.body);
      };
      const { piped: a, fetch: b } = await both('/parameters');
      assert.deepEqual(a.answer, b.answer, JSON.stringify(answer));
      assert.ok(a.answer.status >= 500 && a.answer.body.includes('upstream_unavailable'), JSON.stringify(a.answer));
    }
  });

  test('stream events alike, the key scrubbed wherever the chunks split it', async () => {
    upstream.handler = async (_req, res) => {
      res.writeHead(200, { 'Content-Type': 'text/event-stream' });
      for (const piece of ['data: {"a":1}\n\n', `data: {"x":"${KEY.slice(0, 7)}`, `${KEY.slice(7)}"}\n\n`]) {
        res.write(piece);
        await new Promise((r) => setTimeout(r, 20));
      }
      res.end();
    };
    const { piped: a, fetch: b } = await both('/workflow/run-1/events');
    assert.deepEqual(a, b);
    assert.equal(a.answer.body, 'data: {"a":1}\n\ndata: {"x":"[redacted]"}\n\n');
    assert.equal(a.answer.headers['x-accel-buffering'], 'no');
  });

  test('carry an upload alike: the session user first, the browser\'s own user part dropped', async () => {
    upstream.handler = async (req, res, received) => {
      received.body = await readAll(req);
      const form = await new Response(received.body, { headers: { 'Content-Type': String(req.headers['content-type']) } }).formData();
      res.writeHead(201, { 'Content-Type': 'application/json' });
      res.end(JSON.stringify({ users: form.getAll('user'), size: (form.get('file') as File).size }));
    };
    const form = new FormData();
    form.set('user', 'mallory');
    form.set('file', new File([new Uint8Array(300_000).fill(7)], 'a.bin', { type: 'application/octet-stream' }));
    const { piped: a, fetch: b } = await both('/files/upload', { method: 'POST', body: form });
    assert.deepEqual(a.answer, b.answer);
    assert.deepEqual(JSON.parse(a.answer.body), { users: ['alice'], size: 300_000 });
  });

  test('the piped transport is the one toNodeListener(relay) uses (no fetch upstream)', async () => {
    upstream.handler = (_req, res) => {
      res.writeHead(200, { 'Content-Type': 'application/json' });
      res.end('{}');
    };
    await fetch(`${urls.piped}/site`, { headers: bearer(token) }).then((r) => r.arrayBuffer());
    assert.equal(upstream.last().headers['sec-fetch-mode'], undefined);
    await fetch(`${urls.fetch}/site`, { headers: bearer(token) }).then((r) => r.arrayBuffer());
    assert.equal(upstream.last().headers['sec-fetch-mode'], 'cors');
  });
});

describe('the piped transport', () => {
  test('sends a small answer of known length in one write with its length, on a route that may stream too (a blocking chat message)', async () => {
    const answer = JSON.stringify({ event: 'message', answer: 'Hello', metadata: {} });
    upstream.handler = async (req, res) => {
      await readAll(req);
      res.writeHead(200, { 'Content-Type': 'application/json', 'Content-Length': Buffer.byteLength(answer) });
      res.end(answer);
    };
    const body = JSON.stringify({ inputs: {}, query: 'hi', response_mode: 'blocking', user: 'x' });
    const response = await fetch(`${urls.piped}/chat-messages`, { method: 'POST', body, headers: { ...bearer(token), 'Content-Type': 'application/json' } });
    assert.equal(response.headers.get('content-length'), String(Buffer.byteLength(answer)));
    assert.equal(response.headers.get('transfer-encoding'), null);
    assert.equal(await response.text(), answer);
  });
});

describe('verified sessions', () => {
  test('a remembered token still expires on time', async () => {
    upstream.handler = (_req, res) => {
      res.writeHead(200, { 'Content-Type': 'application/json' });
      res.end('{}');
    };
    // Two seconds: `exp` is whole seconds, so a one-second token made late in a second may be
    // over before its first request (it failed that way once in a full run).
    const { token: short, expires_at: expiresAt } = await relay.createSession({ user: 'bob', ttlSeconds: 2 });
    for (const url of [urls.piped, urls.fetch]) assert.equal((await fetch(`${url}/site`, { headers: bearer(short) })).status, 200);
    await new Promise((r) => setTimeout(r, expiresAt * 1000 - Date.now() + 50));
    for (const url of [urls.piped, urls.fetch]) {
      const response = await fetch(`${url}/site`, { headers: bearer(short) });
      assert.equal(response.status, 401);
      assert.equal(((await response.json()) as { code: string }).code, 'session_expired');
    }
  });
});

describe('a silent upstream (upstreamTimeoutMs)', () => {
  const SILENCE_MS = 300;
  let patient: Relay;
  const patientUrls: Record<'piped' | 'fetch', string> = { piped: '', fetch: '' };
  const servers: Server[] = [];
  let patientToken: string;
  /** Upstream answers held open by the tests, ended once they are done. */
  const held = new Set<import('node:http').ServerResponse>();

  before(async () => {
    const logs: unknown[] = [];
    patient = createRelay({ upstreamUrl: upstream.url, apiKey: KEY, secret: SECRET, basePath: BASE_PATH, upstreamTimeoutMs: SILENCE_MS, log: (entry) => void logs.push(entry) });
    servers.push(createServer(toNodeListener(patient)), createServer(toNodeListener((request: Request) => patient.fetch(request))));
    patientUrls.piped = (await listen(servers[0]!)) + BASE_PATH;
    patientUrls.fetch = (await listen(servers[1]!)) + BASE_PATH;
    patientToken = (await patient.createSession({ user: 'carol' })).token;
  });

  after(async () => {
    for (const res of held) res.destroy();
    await Promise.all(servers.map(closeServer));
  });

  test('one that never answers gets 504 upstream_unavailable from either transport, after the silence, not before', async () => {
    upstream.handler = (_req, res) => void held.add(res);
    for (const transport of ['piped', 'fetch'] as const) {
      const started = performance.now();
      const response = await fetch(`${patientUrls[transport]}/parameters`, { headers: bearer(patientToken) });
      const took = performance.now() - started;
      assert.equal(response.status, 504, transport);
      assert.deepEqual(await response.json(), { code: 'upstream_unavailable', message: 'The upstream service did not answer in time.', status: 504 });
      assert.ok(took >= SILENCE_MS - 20 && took < SILENCE_MS + 2000, `${transport}: ${took} ms`);
    }
  });

  test('an error body that goes silent gets 504 from either transport, after the silence', async () => {
    upstream.handler = (_req, res) => {
      held.add(res);
      res.writeHead(500, { 'Content-Type': 'application/json' });
      res.write('{"code":');
    };
    for (const transport of ['piped', 'fetch'] as const) {
      const started = performance.now();
      const response = await fetch(`${patientUrls[transport]}/chat-messages`, { method: 'POST', headers: { ...bearer(patientToken), 'Content-Type': 'application/json' }, body: '{"query":"hi"}' });
      const took = performance.now() - started;
      assert.equal(response.status, 504, transport);
      assert.equal(((await response.json()) as { code: string }).code, 'upstream_unavailable', transport);
      assert.ok(took >= SILENCE_MS - 20 && took < SILENCE_MS + 2000, `${transport}: ${took} ms`);
    }
  });

  test('a stream that goes silent breaks off after the silence; one kept alive by pings is not cut', async () => {
    upstream.handler = (req, res) => {
      held.add(res);
      res.writeHead(200, { 'Content-Type': 'text/event-stream' });
      res.write('data: {"event":"workflow_started"}\n\n');
      if (!req.url!.includes('pinged')) return;
      // Pings closer together than the silence, for three times as long, then the end.
      const ping = setInterval(() => res.write('event: ping\n\n'), SILENCE_MS / 3);
      setTimeout(() => (clearInterval(ping), res.end('data: {"event":"workflow_finished"}\n\n')), SILENCE_MS * 3);
    };
    for (const transport of ['piped', 'fetch'] as const) {
      const silent = await fetch(`${patientUrls[transport]}/workflow/run-1/events`, { headers: bearer(patientToken) });
      assert.equal(silent.status, 200);
      const started = performance.now();
      await assert.rejects(silent.text(), TypeError, `${transport}: a silent stream ends broken, never clean`);
      assert.ok(performance.now() - started < SILENCE_MS + 2000, transport);

      const pinged = await fetch(`${patientUrls[transport]}/workflow/run-1/events?pinged=1`, { headers: bearer(patientToken) });
      const body = await pinged.text();
      assert.ok(body.endsWith('data: {"event":"workflow_finished"}\n\n'), `${transport}: ${body}`);
    }
  });

  test('is a positive number of milliseconds', () => {
    assert.throws(() => createRelay({ upstreamUrl: upstream.url, apiKey: KEY, secret: SECRET, upstreamTimeoutMs: 0 }), /upstreamTimeoutMs/);
  });
});
