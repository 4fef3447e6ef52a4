/**
 * What the relay's own tests share: a controlled upstream on loopback (a plain Node http server
 * that records exactly what the relay sent it and answers as each test scripts it), mounting the
 * relay in Node's http server, and capturing console output.
 */
import assert from 'node:assert/strict';
import { createServer, request as httpRequest, type IncomingMessage, type OutgoingHttpHeaders, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createRelay, type Relay, type RelayOptions } from '../../src/relay/index.js';
import { toNodeListener } from '../../src/relay/node.js';

export const KEY = 'app-relay-test-key-7f3a9c';
export const SECRET = 'relay-test-secret-0123456789-abcdefghij';
export const OTHER_SECRET = 'another-secret-0123456789-abcdefghijklmn';
export const BASE_PATH = '/api/relay';

export async function listen(server: Server): Promise<string> {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

export async function closeServer(server: Server | undefined): Promise<void> {
  if (!server) return;
  server.closeAllConnections();
  await new Promise<void>((resolve) => server.close(() => resolve()));
}

/** A `/v1` URL on a loopback port nothing listens on. */
export async function deadUpstreamUrl(): Promise<string> {
  const probe = createServer();
  const url = await listen(probe);
  await closeServer(probe);
  return `${url}/v1`;
}

/** One request as the upstream received it. */
export interface Received {
  method: string;
  url: URL;
  headers: IncomingMessage['headers'];
  /** The whole body, once read (the default handler reads it). */
  body: Buffer;
  /** Settles when the request ends: `complete` when its body arrived whole, `aborted` when the relay broke it off. */
  ended: Promise<'complete' | 'aborted'>;
  /** Settles when the answer's connection closes; `true` when it closed before the answer finished. */
  answerClosed: Promise<boolean>;
}

export type UpstreamHandler = (req: IncomingMessage, res: ServerResponse, received: Received) => void | Promise<void>;

export interface ControlledUpstream {
  /** Base URL, ending in `/v1` like the real service. */
  url: string;
  requests: Received[];
  /** How the next requests are answered; default `echo`. */
  handler: UpstreamHandler;
  last(): Received;
  close(): Promise<void>;
}

export async function readAll(req: IncomingMessage): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
}

/** Answers with what it received: method, path, query, body and the headers that matter. */
export const echo: UpstreamHandler = async (req, res, received) => {
  received.body = await readAll(req);
  const text = received.body.toString('utf8');
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    json = undefined;
  }
  res.writeHead(200, { 'Content-Type': 'application/json' });
  res.end(
    JSON.stringify({
      method: req.method,
      path: received.url.pathname,
      query: [...received.url.searchParams],
      contentType: req.headers['content-type'] ?? null,
      json,
      text: json === undefined ? text : undefined,
    }),
  );
};

export async function startUpstream(): Promise<ControlledUpstream> {
  const requests: Received[] = [];
  const upstream: ControlledUpstream = {
    url: '',
    requests,
    handler: echo,
    last() {
      const last = requests.at(-1);
      assert.ok(last, 'the upstream received nothing');
      return last;
    },
    close: () => closeServer(server),
  };
  const server = createServer((req, res) => {
    const received: Received = {
      method: req.method ?? '',
      url: new URL(req.url ?? '/', 'http://upstream.invalid'),
      headers: req.headers,
      body: Buffer.alloc(0),
      ended: new Promise((resolve) => {
        req.once('end', () => resolve('complete'));
        req.once('close', () => resolve(req.complete ? 'complete' : 'aborted'));
      }),
      answerClosed: new Promise((resolve) => res.once('close', () => resolve(!res.writableFinished))),
    };
    requests.push(received);
    void Promise.resolve(upstream.handler(req, res, received)).catch((error: unknown) => {
      if (!res.headersSent) res.writeHead(500, { 'Content-Type': 'text/plain' });
      res.end(String(error));
    });
  });
  upstream.url = `${await listen(server)}/v1`;
  return upstream;
}

export interface MountedRelay {
  relay: Relay;
  server: Server;
  origin: string;
  /** `origin` + `basePath`. */
  url: string;
  close(): Promise<void>;
}

/**
 * A relay in front of `upstreamUrl`, mounted in Node's http server: piped through Node's streams
 * (`toNodeListener(relay)`), or with `RELAY_TRANSPORT=fetch` through its fetch handler as edge
 * runtimes and Next.js mount it, so the whole suite can check either transport.
 */
export async function mountRelay(upstreamUrl: string, overrides: Partial<RelayOptions> = {}): Promise<MountedRelay> {
  const relay = createRelay({ upstreamUrl, apiKey: KEY, secret: SECRET, basePath: BASE_PATH, ...overrides });
  const server = createServer(toNodeListener(process.env.RELAY_TRANSPORT === 'fetch' ? (request: Request) => relay.fetch(request) : relay));
  const origin = await listen(server);
  return { relay, server, origin, url: origin + (overrides.basePath ?? BASE_PATH), close: () => closeServer(server) };
}

/** Everything written to the console while `run` runs. */
export async function captureConsole<T>(run: () => Promise<T>): Promise<{ result: T; output: string }> {
  const methods = ['log', 'info', 'warn', 'error', 'debug', 'trace'] as const;
  const saved = methods.map((m) => console[m]);
  let output = '';
  for (const m of methods) console[m] = (...args: unknown[]) => void (output += `${args.map((a) => (a instanceof Error ? `${a.stack} ${String(a.cause)}` : typeof a === 'string' ? a : JSON.stringify(a))).join(' ')}\n`);
  try {
    const result = await run();
    return { result, output };
  } finally {
    methods.forEach((m, i) => (console[m] = saved[i]!));
  }
}

/** A response's status line, headers and body as one text, for leak checks. */
export async function responseText(response: Response): Promise<string> {
  return `${response.status}\n${[...response.headers].map(([k, v]) => `${k}: ${v}`).join('\n')}\n\n${await response.text()}`;
}

export function bearer(token: string): Record<string, string> {
  return { Authorization: `Bearer ${token}` };
}

export const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Resolves when `predicate` holds, polling; fails after `timeoutMs`. */
export async function until(predicate: () => boolean, what: string, timeoutMs = 10_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!predicate()) {
    if (Date.now() > deadline) assert.fail(`timed out waiting for ${what}`);
    await sleep(5);
  }
}

/** A multipart/form-data body built by hand, so tests control every byte the browser would send. */
export function multipartBody(boundary: string, parts: { headers: string; body: string | Uint8Array }[]): Buffer {
  const chunks: Buffer[] = [];
  for (const part of parts) {
    chunks.push(Buffer.from(`--${boundary}\r\n${part.headers}\r\n\r\n`));
    chunks.push(Buffer.from(part.body));
    chunks.push(Buffer.from('\r\n'));
  }
  chunks.push(Buffer.from(`--${boundary}--\r\n`));
  return Buffer.concat(chunks);
}

/** Parses a multipart body with the platform's own parser (undici), independent of the relay's. */
export async function parseFormData(body: Buffer, contentType: string): Promise<FormData> {
  return new Response(body, { headers: { 'Content-Type': contentType } }).formData();
}

/**
 * One request sent with its path exactly as written (fetch would resolve `..` and `.` first),
 * header values as given (an array: the header repeated), and the body whole or, as an iterable,
 * chunk by chunk (then chunked, with no Content-Length unless given).
 */
export function rawRequest(origin: string, method: string, path: string, headers: OutgoingHttpHeaders = {}, body?: Buffer | string | Iterable<Buffer>): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const sent = httpRequest(origin + path, { method, headers: { Connection: 'close', ...headers } }, (res) => {
      readAll(res).then((data) => resolve({ status: res.statusCode ?? 0, body: data.toString('utf8') }), reject);
    });
    // The relay may answer (a refusal) before it reads the whole body and close the connection.
    sent.on('error', reject);
    if (body === undefined || typeof body === 'string' || Buffer.isBuffer(body)) return void sent.end(body);
    for (const chunk of body) sent.write(chunk);
    sent.end();
  });
}
