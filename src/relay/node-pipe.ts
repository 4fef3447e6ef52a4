/**
 * The relay on Node without web streams: `toNodeListener(relay)` forwards through here, piping
 * Node's request to a `node:http(s)` request upstream and the upstream's answer to Node's
 * response. Every check, rewrite and scrub is the relay's own (`RelayCore`: the session, the
 * allowlist, the run binding, the limits and stream slots in the relay store, `user` rewriting,
 * key scrubbing of every header and body); only the carrying differs. Wrapping each answer in 3–4
 * web streams, the adapter's copy of every chunk and fetch's per-request machinery cost the relay
 * 2–4× a bare proxy's latency and 4× its throughput (issue 15; `npm run bench`).
 *
 * What this path does not carry goes to the fetch handler (`fallback`), which answers it the
 * same way it always has: preflights and requests with an `Origin` when CORS is on, run starts
 * with an `Idempotency-Key`, paths the allowlist refuses (404), anything whose URL would
 * need normalizing to read, bodies a framework already parsed, relays given their own `fetch`.
 */
import { Agent as HttpAgent, request as httpRequest, type ClientRequest, type IncomingHttpHeaders, type IncomingMessage, type OutgoingHttpHeaders, type ServerResponse } from 'node:http';
import { Agent as HttpsAgent, request as httpsRequest } from 'node:https';
import { constants as zlibConstants, createBrotliDecompress, createGunzip, createInflate, createInflateRaw } from 'node:zlib';
import { Transform, type Readable, type TransformCallback } from 'node:stream';
import { HARDENING } from './errors.js';
import { MultipartRewriter } from './multipart.js';
import { FORWARDED_REQUEST_HEADERS, MAX_ERROR_BODY_BYTES, type AnswerHeaders, type RelayCore } from './relay.js';
import { brokeOff, upstreamFailure, upstreamTimeout, uploadRefusal } from './upstream-answers.js';
import type { KeyScrubber } from './redact.js';
import { matchRoute, type RelayRoute } from './routes.js';
import { isUserField } from './user-field.js';

type Listener = (req: IncomingMessage, res: ServerResponse) => Promise<void>;

/** A path the relay reads the same raw as parsed: segments of the characters routes allow. */
const PLAIN_PATH = /^(?:\/[A-Za-z0-9_-]+)*\/?$/;
/** A query `URL` would not re-encode: printable ASCII, no fragment. */
const PLAIN_QUERY = /^[\x21-\x22\x24-\x7e]*$/;
/** Largest answer held whole to be sent in one write (see `Exchange`); larger ones stream. */
const SMALL_ANSWER_BYTES = 64 * 1024;
/** Statuses fetch follows, or with `redirect: 'error'` refuses, when they carry a `Location`. */
const REDIRECTS = new Set([301, 302, 303, 307, 308]);
/** Statuses whose answers have no body (fetch gives them a `null` body). */
const NULL_BODY = new Set([101, 204, 205, 304]);

export function nodeRelayListener(core: RelayCore, fallback: Listener): Listener {
  const base = new URL(core.upstream);
  if (!core.direct || base.search || base.hash || (base.protocol !== 'http:' && base.protocol !== 'https:')) return fallback;
  const secure = base.protocol === 'https:';
  const send = secure ? httpsRequest : httpRequest;
  // Kept-alive connections upstream, like fetch's pool.
  const agent = secure ? new HttpsAgent({ keepAlive: true }) : new HttpAgent({ keepAlive: true });
  const hostname = base.hostname.replace(/^\[(.*)\]$/, '$1');
  const port = base.port;
  const prefix = base.pathname === '/' ? '' : base.pathname;

  return async (req, res) => {
    const raw = req.url ?? '/';
    const q = raw.indexOf('?');
    const pathname = q < 0 ? raw : raw.slice(0, q);
    const search = q < 0 ? '' : raw.slice(q + 1);
    const { basePath } = core;
    if (
      (req as { rawBody?: unknown }).rawBody !== undefined ||
      (core.cors && req.headers.origin !== undefined) ||
      !PLAIN_PATH.test(pathname) ||
      !PLAIN_QUERY.test(search) ||
      (basePath && pathname !== basePath && !pathname.startsWith(`${basePath}/`))
    ) {
      return fallback(req, res);
    }
    const path = pathname.slice(basePath.length) || '/';
    const matched = matchRoute(req.method ?? 'GET', path);
    const route = matched?.route;
    if (!matched || !route || (route.startsRun && req.headers['idempotency-key'] !== undefined) || repeated(req, 'authorization') || (route.user === 'multipart' && repeated(req, 'content-type'))) {
      return fallback(req, res);
    }
    try {
      await forward(req, res, route, matched, path, search);
    } catch (error) {
      // What the fetch adapter does with a handler that throws: a bare 500, the error logged.
      console.error(error);
      if (!res.headersSent) res.writeHead(500);
      res.end();
    }
  };

  async function forward(req: IncomingMessage, res: ServerResponse, route: RelayRoute, matched: NonNullable<ReturnType<typeof matchRoute>>, path: string, search: string): Promise<void> {
    const exchange = new Exchange(core, res, route);
    const admitted = await core.admit(matched, req.headers.authorization ?? null, null);
    if (admitted instanceof Response) return writeResponse(res, admitted);
    const { claims } = admitted;
    exchange.release = admitted.release;
    if (exchange.clientGone) return exchange.end();

    const query = new URLSearchParams();
    // Every spelling a lenient server might bind to `user` goes, not just the exact name.
    if (search) for (const [key, value] of new URLSearchParams(search)) if (!isUserField(key)) query.append(key, value);
    if (route.user === 'query') query.set('user', claims.user);
    const qs = query.toString();
    const headers: OutgoingHttpHeaders = {};
    for (const name of FORWARDED_REQUEST_HEADERS) {
      const value = req.headers[name];
      if (value) headers[name] = value;
    }
    // What fetch sends when the browser named no type.
    headers.accept ??= '*/*';
    headers.authorization = `Bearer ${core.apiKey}`;
    let body: string | Upload | undefined;
    if (route.user === 'multipart') {
      const declared = Number(req.headers['content-length'] ?? 0);
      const boundary = core.uploadBoundary(Number.isFinite(declared) ? declared : 0, req.headers['content-type'] ?? null);
      if (boundary instanceof Response) {
        exchange.end();
        res.setHeader('Connection', 'close');
        return writeResponse(res, boundary);
      }
      const rewriter = new MultipartRewriter(boundary, claims.user, { maxBytes: core.maxUpload });
      body = { req, rewriter };
      headers['content-type'] = rewriter.contentType;
    } else if (route.user === 'json') {
      const text = await readLimited(req, core.maxJson);
      // Broken off: the browser has gone.
      if (text === undefined) return exchange.end();
      const json = core.jsonBody(text, claims.user);
      if (json instanceof Response) {
        exchange.end();
        // The rest of an oversized body is left unread: the connection ends with the answer.
        if (text === null) res.setHeader('Connection', 'close');
        return writeResponse(res, json);
      }
      body = json;
      headers['content-type'] = 'application/json';
      headers['content-length'] = Buffer.byteLength(body);
    }
    if (exchange.clientGone) return exchange.end();
    exchange.start(send({ hostname, port, path: prefix + path + (qs ? `?${qs}` : ''), method: req.method, headers, agent }), body);
  }
}

/**
 * One request on its way through: the upstream request, the answer piped back scrubbed, the
 * stream slot freed when either side ends. Its state is one object and listeners that close over
 * it alone, so a held stream keeps little more than Node's own sockets alive (issue 15: ≤ 16 KB).
 */
class Exchange {
  release: (() => void) | undefined;
  clientGone = false;
  #upstream: ClientRequest | undefined;
  #scrubber: KeyScrubber | undefined;
  #finished = false;
  /** The upstream's answer has begun. */
  #answered = false;
  /** Why the upstream was given up, when it went silent. */
  #silence: Error | undefined;

  constructor(
    readonly core: RelayCore,
    readonly res: ServerResponse,
    readonly route: RelayRoute,
  ) {
    res.once('close', () => {
      if (!res.writableFinished) {
        this.clientGone = true;
        this.#upstream?.destroy();
      }
      this.end();
    });
  }

  /** Frees the stream slot (once). */
  end(): void {
    const release = this.release;
    this.release = undefined;
    release?.();
  }

  start(upstream: ClientRequest, body: string | Upload | undefined): void {
    this.#upstream = upstream;
    // Silent this long (nothing read or written): given up, as fetch gives up (see `upstreamTimeoutMs`).
    upstream.setTimeout(this.core.upstreamTimeoutMs, () => {
      this.#silence = upstreamTimeout(this.#answered ? 'UND_ERR_BODY_TIMEOUT' : 'UND_ERR_HEADERS_TIMEOUT');
      upstream.destroy(this.#silence);
    });
    upstream.once('error', (error) => this.#unreachable(error, body));
    upstream.once('response', (answer) => {
      this.#answered = true;
      answer.on('error', () => undefined);
      if (REDIRECTS.has(answer.statusCode ?? 0) && answer.headers.location !== undefined) {
        // fetch's `redirect: 'error'`: the API never redirects, and a relay must not follow one.
        upstream.destroy();
        return this.#unreachable(new TypeError('unexpected redirect'), body);
      }
      this.#relay(answer).catch((error: unknown) => {
        console.error(error);
        this.res.destroy();
      });
    });
    if (typeof body === 'object') pipeUpload(body, upstream);
    else upstream.end(body);
  }

  /** No usable answer came: an upload's refusal, else `502` (logged), as the fetch handler answers. */
  #unreachable(error: unknown, body: string | Upload | undefined): void {
    if (this.clientGone || this.#finished || this.res.headersSent) return;
    const refused = typeof body === 'object' ? body.rewriter.failure : undefined;
    if (refused) {
      // The rest of the upload is left unread: the connection ends with the answer.
      this.res.setHeader('Connection', 'close');
      return void this.#answerWith(uploadRefusal(refused));
    }
    // Reported as fetch reports it (`ECONNREFUSED`…, else `TypeError`), so logs read the same either way.
    void this.#answerWith(upstreamFailure(this.route, this.#silence ?? Object.assign(new TypeError('fetch failed'), { cause: error }), this.core.log));
  }

  #answerWith(response: Response): Promise<void> {
    this.#finished = true;
    this.end();
    return writeResponse(this.res, response);
  }

  async #relay(answer: IncomingMessage): Promise<void> {
    const { core, res } = this;
    const status = answer.statusCode ?? 502;
    const head = core.answerHead(status, (name) => headerValue(answer.headers, name), this.route);
    if (head instanceof Response) {
      this.#upstream?.destroy();
      return this.#answerWith(head);
    }
    // No body, so nothing to decode, whatever `Content-Encoding` says (as fetch does): an empty
    // gzip stream is an error, and a decoder nobody reads from threw it past every listener.
    if (NULL_BODY.has(status)) {
      answer.resume();
      return this.#answerWith(new Response(null, { status, headers: head }));
    }
    const source = decoded(answer);
    if (!source) {
      this.#upstream?.destroy();
      return this.#unreachable(new TypeError(`More than ${MAX_CODINGS} content codings.`), undefined);
    }
    if (status >= 400) {
      const text = await readText(source, MAX_ERROR_BODY_BYTES);
      if (text === null) this.#upstream?.destroy();
      return this.#answerWith(core.errorAnswer(status, text, head));
    }
    // Every body, whatever its type: see Redactor.keyScrubber. A replaced key changes the length,
    // so `outgoingHeaders` leaves the upstream's out.
    const length = Number(head['content-length'] ?? NaN);
    // Whatever the route: a blocking answer on a route that may stream (a chat message) is as
    // small and as complete as any JSON answer; only an answer of unknown length streams.
    if (source === answer && length <= SMALL_ANSWER_BYTES) return this.#small(answer, status, head);
    res.writeHead(status, outgoingHeaders(head));
    // A stream's headers go now, not with its first event: they tell the browser it is open.
    if (this.route.streams) res.flushHeaders();
    this.#scrubber = core.scrubber();
    source.on('data', (chunk: Buffer) => this.#data(source, chunk));
    source.once('end', () => this.#end());
    source.once('error', () => this.#broken(terminated()));
    answer.once('close', () => {
      if (!answer.complete) this.#broken(terminated());
    });
  }

  /**
   * A settings or JSON answer of known, small length: held whole, scrubbed, and sent with its
   * (scrubbed) length in one write, as a bare proxy would, rather than chunked. Callbacks, not a
   * promise: this is every non-streaming answer, and each await costs it latency (issue 15).
   */
  #small(answer: IncomingMessage, status: number, head: AnswerHeaders): void {
    const chunks: Buffer[] = [];
    answer.on('data', (chunk: Buffer) => chunks.push(chunk));
    answer.once('end', () => {
      if (this.clientGone) return;
      const scrubber = this.core.scrubber();
      const first = scrubber.push(chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks));
      const rest = scrubber.flush();
      const body = rest.length ? Buffer.concat([first, rest]) : first;
      this.#finished = true;
      this.end();
      this.res.writeHead(status, outgoingHeaders(head, body.length));
      this.res.end(body);
    });
    // Node's parser stops at the declared length, so more than that cannot come: only a break.
    answer.once('close', () => {
      if (!answer.complete) this.#broken(terminated());
    });
  }

  #data(source: Readable, chunk: Buffer): void {
    const out = this.#scrubber!.push(chunk);
    if (out.length && !this.res.write(out)) {
      source.pause();
      this.res.once('drain', () => source.resume());
    }
  }

  #end(): void {
    if (this.#finished) return;
    this.#finished = true;
    const rest = this.#scrubber!.flush();
    this.res.end(rest.length ? rest : undefined);
    this.end();
  }

  #broken(error: unknown): void {
    if (this.#finished) return;
    this.#finished = true;
    if (!this.clientGone) {
      // Like the fetch path: the browser sees a broken stream, never a clean end, and the report
      // names the route template only.
      console.error(brokeOff(`${this.route.method} ${this.route.name}`, this.#silence ?? error));
      this.res.destroy();
    }
    this.end();
  }
}

/** An upload on its way: the browser's request and the rewrite of its multipart body. */
interface Upload {
  req: IncomingMessage;
  rewriter: MultipartRewriter;
}

/**
 * Bytes the upload may run ahead of the upstream socket: the browser's side keeps arriving while
 * the socket drains, instead of one chunk at a time in lockstep (a few socket reads).
 */
const UPLOAD_AHEAD_BYTES = 256 * 1024;

/**
 * Sends the rewritten upload upstream as a pipe would: each chunk Node reads goes through the
 * rewriter and out in the same tick, the request paused while the upstream socket is behind. A
 * refusal or a request that ends before its body did breaks the upstream request off; a refused
 * request is paused, not destroyed, so its answer (a 413, say) still goes out on its connection.
 */
function pipeUpload({ req, rewriter }: Upload, upstream: ClientRequest): void {
  const out: Uint8Array[] = [];
  let ended = false;
  const resume = () => req.resume();
  const stop = (error: Error) => {
    ended = true;
    req.off('data', data);
    req.pause();
    upstream.destroy(error);
  };
  const data = (chunk: Buffer) => {
    if (upstream.destroyed) return stop(new Error('The upstream request has ended.'));
    try {
      rewriter.push(chunk, out);
    } catch (error) {
      return stop(error as Error);
    }
    for (const piece of out) upstream.write(piece);
    out.length = 0;
    if (upstream.writableLength > UPLOAD_AHEAD_BYTES) {
      req.pause();
      upstream.once('drain', resume);
    }
  };
  upstream.write(rewriter.head);
  req.on('data', data);
  req.once('end', () => {
    if (ended) return;
    ended = true;
    try {
      rewriter.end();
    } catch (error) {
      return void upstream.destroy(error as Error);
    }
    upstream.end();
  });
  const broken = (error?: Error) => {
    if (!ended) stop(error ?? new Error('The request ended before its body did.'));
  };
  req.once('error', broken);
  req.once('close', () => broken());
}

/** An upstream body broken off, as fetch reports it (so the log names `UND_ERR_SOCKET` either way). */
function terminated(): Error {
  return Object.assign(new TypeError('terminated'), { cause: Object.assign(new Error('other side closed'), { code: 'UND_ERR_SOCKET' }) });
}

/** Whether `name` came more than once (a web `Headers` would join them, and refuse the join). */
function repeated(req: IncomingMessage, name: string): boolean {
  let seen = 0;
  for (let i = 0; i < req.rawHeaders.length; i += 2) if (req.rawHeaders[i]!.length === name.length && req.rawHeaders[i]!.toLowerCase() === name && ++seen > 1) return true;
  return false;
}

function headerValue(headers: IncomingHttpHeaders, name: string): string | null {
  const value = headers[name];
  if (value === undefined) return null;
  return Array.isArray(value) ? value.join(', ') : value;
}

/**
 * fetch's leniency: a compressed body cut short (or empty: `Content-Length: 0`) gives what it
 * holds rather than an error, as browsers and cURL read it.
 */
const ZLIB_LENIENT = { flush: zlibConstants.Z_SYNC_FLUSH, finishFlush: zlibConstants.Z_SYNC_FLUSH };
const BROTLI_LENIENT = { flush: zlibConstants.BROTLI_OPERATION_FLUSH, finishFlush: zlibConstants.BROTLI_OPERATION_FLUSH };

/** The codings fetch undoes, each a fresh decoder. */
const DECODERS: Record<string, () => Transform> = {
  gzip: () => createGunzip(ZLIB_LENIENT),
  'x-gzip': () => createGunzip(ZLIB_LENIENT),
  deflate: () => new Inflate(),
  br: () => createBrotliDecompress(BROTLI_LENIENT),
};

/** More stacked codings than this and fetch refuses the answer (undici's bound on a decompression bomb's multiplier). */
const MAX_CODINGS = 5;

/**
 * The answer's body decoded as fetch decodes it: each coding of `Content-Encoding` undone, last
 * first (`gzip`, `deflate`, `br`); a list naming any other coding (`identity` too) passes as it
 * is; `undefined` past `MAX_CODINGS`, where fetch fails.
 */
function decoded(answer: IncomingMessage): Readable | undefined {
  const header = answer.headers['content-encoding'];
  if (!header) return answer;
  const codings = String(header).toLowerCase().split(',').map((coding) => coding.trim());
  if (codings.length > MAX_CODINGS) return undefined;
  if (!codings.every((coding) => Object.hasOwn(DECODERS, coding))) return answer;
  let source: Readable = answer;
  for (const coding of codings.reverse()) {
    const decoder = DECODERS[coding]!();
    source.on('error', (error) => decoder.destroy(error));
    source = source.pipe(decoder);
  }
  return source;
}

/**
 * `deflate` as fetch reads it: wrapped in zlib's header (RFC 1950), as the name says, or raw
 * (RFC 1951), as some servers send it, told apart by the first byte.
 */
class Inflate extends Transform {
  #inflate: Transform | undefined;

  override _transform(chunk: Buffer, _encoding: BufferEncoding, callback: TransformCallback): void {
    if (!this.#inflate) {
      if (!chunk.length) return callback();
      const inflate = (this.#inflate = (chunk[0]! & 0x0f) === 0x08 ? createInflate(ZLIB_LENIENT) : createInflateRaw(ZLIB_LENIENT));
      inflate.on('data', (data: Buffer) => this.push(data));
      inflate.once('error', (error) => this.destroy(error));
    }
    this.#inflate.write(chunk, callback);
  }

  override _flush(callback: TransformCallback): void {
    if (!this.#inflate) return callback();
    this.#inflate.once('end', () => callback());
    this.#inflate.end();
  }
}

/** A request body as text, or `null` once it passes `limit` bytes (reading stops there). */
async function readLimited(req: IncomingMessage, limit: number): Promise<string | null | undefined> {
  const declared = Number(req.headers['content-length'] ?? 0);
  if (Number.isFinite(declared) && declared > limit) return null;
  return readText(req, limit);
}

/** A stream as text, read as the fetch handler's `TextDecoder` reads it; `null` past `limit` bytes; `undefined` when it broke off. */
async function readText(source: Readable, limit: number): Promise<string | null | undefined> {
  const bytes = await readBytes(source, limit);
  if (!bytes) return bytes;
  const text = bytes.toString('utf8');
  // A byte order mark goes, as `TextDecoder` drops it: a JSON body that starts with one is the same body either way.
  return text.charCodeAt(0) === 0xfeff ? text.slice(1) : text;
}

/** A stream's bytes; `null` past `limit` bytes (reading stops there); `undefined` when it broke off. */
function readBytes(source: Readable, limit: number): Promise<Buffer | null | undefined> {
  return new Promise((resolve) => {
    const chunks: Buffer[] = [];
    let size = 0;
    source.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size > limit) {
        source.pause();
        source.removeAllListeners('data');
        resolve(null);
        return;
      }
      chunks.push(chunk);
    });
    source.once('end', () => resolve(chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks)));
    source.once('error', () => resolve(undefined));
    source.once('close', () => resolve(undefined));
  });
}

/** The headers every relay answer carries (see `hardened`), by lowercase name. */
const HARDENING_HEADERS: OutgoingHttpHeaders = Object.fromEntries(Object.entries(HARDENING).map(([name, value]) => [name.toLowerCase(), value]));

/**
 * `headers` for `writeHead`: all but their length (the relay's answer has its own, given as
 * `length`, or none and is chunked), and the headers every relay answer carries. Copied name by
 * name rather than with `delete`, which would turn the object into a slow dictionary that
 * `writeHead` then walks (issue 15: every answer goes through here).
 */
function outgoingHeaders(headers: AnswerHeaders, length?: number): OutgoingHttpHeaders {
  const out: OutgoingHttpHeaders = {};
  for (const name in headers) if (name !== 'content-length') out[name] = headers[name];
  for (const name in HARDENING_HEADERS) out[name] = HARDENING_HEADERS[name];
  if (length !== undefined) out['content-length'] = length;
  return out;
}

/** Writes one of the relay's own (small, complete) answers. */
async function writeResponse(res: ServerResponse, response: Response): Promise<void> {
  const body = response.body ? Buffer.from(await response.arrayBuffer()) : undefined;
  if (res.destroyed) return;
  const headers = outgoingHeaders(Object.fromEntries(response.headers), body?.length);
  res.writeHead(response.status, headers);
  res.end(body);
}
