/**
 * The relay a host backend mounts: a web-standard `fetch(request) => Response` handler that
 * checks a session token, lets only browser-safe operations through, injects the API key and
 * the session's `user`, and streams answers (and uploads) through without holding them (only
 * error bodies are held, to scrub them). Its only state is the per-user counters: the rate limits
 * (in memory unless a shared store is given for several instances behind a load balancer) and
 * the open-stream count of this instance.
 */
import type { SessionGrant } from '../protocol/index.js';
import { declaredLength, parseJsonObject, readLimited, readStreamLimited } from './body.js';
import { CorsPolicy, type CorsOptions } from './cors.js';
import { hardened, relayError } from './errors.js';
import { formDataBoundary, rewriteMultipartUser, type MultipartRewrite } from './multipart.js';
import { RateLimiter, userKey, type RateLimitOptions, type RateLimitSubject, type SessionRateLimitOptions } from './rate-limit.js';
import { Redactor } from './redact.js';
import { matchRoute, type RelayRoute } from './routes.js';
import { createSessionHandler, grantResponse, NO_STORE, type SessionAuthenticator } from './session-endpoint.js';
import { sessionInputProblem, SessionSigner, type SessionClaims } from './session-token.js';
import { StreamSlots } from './stream-slots.js';
import { isUserField } from './user-field.js';

export interface RelayOptions {
  /** Upstream API base, e.g. `https://api.dify.ai/v1` or the embedded service's URL. */
  upstreamUrl: string;
  /** The app's API key. It never leaves the server. */
  apiKey: string;
  /** Session signing secret(s), at least 32 characters; the first signs, all verify (rotation). */
  secret: string | readonly string[];
  /** Audience the sessions are bound to; give each app its own. Default `default`. */
  app?: string;
  /** Path where the relay is mounted (stripped before matching), e.g. `/api/relay`. */
  basePath?: string;
  /** The relay URL handed to browsers; default `basePath`. */
  publicUrl?: string;
  /** Session lifetime; default 15 minutes, at most a day. */
  sessionTtlSeconds?: number;
  /** Largest JSON body let through; default 1 MiB. */
  maxJsonBodyBytes?: number;
  /** Largest upload let through, enforced while it streams; default 15 MiB. */
  maxUploadBytes?: number;
  /** CORS for pages on other origins; off by default (same-origin mounting needs none). */
  cors?: CorsOptions;
  /** Request limit per user (all of a user's sessions together); default 600 requests a minute in memory. `false` turns it off. */
  rateLimit?: RateLimitOptions | false;
  /** Sessions issued per user through `sessionHandler` and `sessionResponse`; default 30 a minute in memory. `false` turns it off. */
  sessionRateLimit?: SessionRateLimitOptions | false;
  /**
   * Streaming requests (run starts, chat messages, run events, text to audio) one user may hold
   * open at once through this relay instance; default 6. `false` turns the cap off.
   */
  maxStreamsPerUser?: number | false;
  /** Where the relay reports trouble (never with tokens, keys or paths' ids); default `console.warn`. */
  log?: (entry: RelayLogEntry) => void;
  /** The fetch used upstream (tests, instrumentation). */
  fetch?: typeof fetch;
}

export interface RelayLogEntry {
  level: 'warn' | 'error';
  /** `upstream_unavailable`, `upstream_auth_failed`, `rate_limit_store_failed`. */
  code: string;
  message: string;
}

export interface CreateSessionInput {
  /** The end user, decided by the host backend's own authentication. Never taken from the browser. */
  user: string;
  /**
   * Bind the session to one run, for answering it: the session reaches that run's events
   * stream, the human-input forms (`GET`/`POST /form/human_input/*`), `/files/upload`, `/site`
   * and `/parameters`, and nothing else (`403 session_run_bound`): no other run's events, no run
   * start, no stop (stops name a task id the relay cannot tie to the run), no conversations,
   * messages, variables or text to audio.
   */
  runId?: string;
  ttlSeconds?: number;
}

export interface Relay {
  /** The proxy handler. */
  fetch(request: Request): Promise<Response>;
  /** Issues a session for a user the host backend has authenticated. */
  createSession(input: CreateSessionInput): Promise<SessionGrant>;
  /** The session endpoint's answer: the grant as JSON, never cached; 429 past `sessionRateLimit`. */
  sessionResponse(input: CreateSessionInput): Promise<Response>;
  /**
   * A whole session endpoint around the host's own authentication: `POST` with `{}` or
   * `{run_id}` → `{token, expires_at, relay_url}`; 401 when `authenticate` answers `null`, 429
   * past `sessionRateLimit`.
   */
  sessionHandler(authenticate: SessionAuthenticator): (request: Request) => Promise<Response>;
}

const FORWARDED_REQUEST_HEADERS = ['accept', 'accept-language', 'last-event-id'];
const FORWARDED_RESPONSE_HEADERS = ['content-type', 'cache-control', 'content-disposition', 'content-length', 'x-accel-buffering', 'retry-after'];
/** Largest upstream error body passed on (after redaction); the API's errors are a few hundred bytes. */
const MAX_ERROR_BODY_BYTES = 64 * 1024;
/** Types a browser would run as a page: never what the API answers, so never passed on. */
const DOCUMENT_TYPES = /^\s*(text\/html|application\/xhtml\+xml|image\/svg\+xml)\b/i;
/** Textual answers, which the API key is scrubbed from as they stream; audio passes untouched. */
const TEXTUAL_TYPES = /^\s*(text\/|application\/([\w.-]+\+)?json\b)/i;

export function createRelay(options: RelayOptions): Relay {
  // Made at the first request, not here: a build (`next build`) imports the route without secrets.
  let signer: SessionSigner | undefined;
  const sessions = (): SessionSigner => (signer ??= new SessionSigner(options.secret));
  const app = options.app ?? 'default';
  const basePath = (options.basePath ?? '').replace(/\/$/, '');
  const upstream = options.upstreamUrl.replace(/\/$/, '');
  const ttl = options.sessionTtlSeconds ?? 15 * 60;
  const ttlProblem = sessionInputProblem('user', undefined, ttl);
  if (ttlProblem) throw new Error(ttlProblem);
  if (!options.apiKey) throw new Error('The relay needs the app API key.');
  const maxJson = options.maxJsonBodyBytes ?? 1024 * 1024;
  const maxUpload = options.maxUploadBytes ?? 15 * 1024 * 1024;
  const cors = new CorsPolicy(options.cors);
  const limiter = options.rateLimit === false ? undefined : new RateLimiter<RateLimitSubject>(options.rateLimit ?? {}, 600, 'relay', options.rateLimit?.key ?? userKey);
  const issuance = options.sessionRateLimit === false ? undefined : new RateLimiter<{ user: string; app: string }>(options.sessionRateLimit ?? {}, 30, 'session', userKey);
  const streamSlots = options.maxStreamsPerUser === false ? undefined : new StreamSlots(options.maxStreamsPerUser ?? 6);
  const redactor = new Redactor(options.apiKey, upstream);
  const log = options.log ?? ((entry: RelayLogEntry) => console.warn(`[relay] ${entry.message}`));
  const upstreamFetch = options.fetch ?? globalThis.fetch.bind(globalThis);

  async function createSession(input: CreateSessionInput): Promise<SessionGrant> {
    const ttlSeconds = input.ttlSeconds ?? ttl;
    const problem = sessionInputProblem(input.user, input.runId, ttlSeconds);
    if (problem) throw new Error(problem);
    const { token, expiresAt } = await sessions().sign({ user: input.user, app, runId: input.runId }, ttlSeconds);
    return { token, expires_at: expiresAt, relay_url: options.publicUrl ?? (basePath || '/') };
  }

  /** A `429` when `user` has been issued too many sessions lately, else `undefined`. */
  async function issuanceRefusal(user: string): Promise<Response | undefined> {
    if (!issuance) return undefined;
    const verdict = await issuance.check({ user, app });
    if (verdict.ok === 'unknown') log({ level: 'error', code: 'rate_limit_store_failed', message: 'The rate-limit store failed; the session was issued anyway.' });
    if (verdict.ok !== false) return undefined;
    return relayError(429, 'rate_limited', 'Too many sessions asked for; try again shortly.', { 'Retry-After': String(verdict.retryAfterSeconds), ...NO_STORE });
  }

  async function handle(request: Request): Promise<Response> {
    return hardened(await answerRequest(request));
  }

  async function answerRequest(request: Request): Promise<Response> {
    const url = new URL(request.url);
    if (basePath && url.pathname !== basePath && !url.pathname.startsWith(`${basePath}/`)) {
      return relayError(404, 'not_found', 'No such relay route.');
    }
    const verdict = cors.check(request);
    const withCors = (response: Response): Response => {
      if (verdict.kind === 'none') return response;
      for (const [name, value] of verdict.headers) {
        if (name === 'vary') response.headers.append('Vary', value);
        else response.headers.set(name, value);
      }
      return response;
    };
    if (verdict.kind === 'denied') return withCors(relayError(403, 'cors_origin_denied', 'This origin may not call the relay.'));
    if (request.method === 'OPTIONS' && cors.enabled) {
      if (verdict.kind !== 'allowed') return relayError(403, 'cors_origin_denied', 'A preflight needs an Origin the relay allows.');
      return new Response(null, { status: 204, headers: cors.preflightHeaders(verdict.headers) });
    }
    return withCors(await proxy(request, url));
  }

  async function proxy(request: Request, url: URL): Promise<Response> {
    const path = url.pathname.slice(basePath.length) || '/';
    const matched = matchRoute(request.method, path);
    if (!matched) return relayError(404, 'not_found', 'No such relay route.');
    const { route, match } = matched;

    const claims = await authenticate(request);
    if (claims instanceof Response) return claims;
    if (claims.runId) {
      if (!route.runBound) return relayError(403, 'session_run_bound', 'This session is bound to one run and only answers it (its events, forms and uploads).');
      if (route.runParam !== undefined && match[route.runParam] !== claims.runId) return relayError(403, 'session_run_bound', 'This session is bound to another run.');
    }
    if (limiter) {
      const limited = await limiter.check(claims);
      if (limited.ok === false) {
        return relayError(429, 'rate_limited', 'Too many requests for this user; try again shortly.', { 'Retry-After': String(limited.retryAfterSeconds) });
      }
      if (limited.ok === 'unknown') log({ level: 'error', code: 'rate_limit_store_failed', message: 'The rate-limit store failed; the request was let through.' });
    }
    if (!route.streams || !streamSlots) return forward(request, url, path, route, claims);
    const release = streamSlots.acquire(userKey(claims));
    if (!release) return relayError(429, 'too_many_streams', 'Too many streams open for this user; close one (another tab, say) and try again.');
    let answer: Response;
    try {
      answer = await forward(request, url, path, route, claims);
    } catch (error) {
      release();
      throw error;
    }
    return releasingWhenDone(answer, release, request.signal);
  }

  async function forward(request: Request, url: URL, path: string, route: RelayRoute, claims: SessionClaims): Promise<Response> {
    const target = new URL(upstream + path);
    // Every spelling a lenient server might bind to `user` goes, not just the exact name.
    for (const [key, value] of url.searchParams) if (!isUserField(key)) target.searchParams.append(key, value);
    if (route.user === 'query') target.searchParams.set('user', claims.user);

    const headers = new Headers();
    for (const name of FORWARDED_REQUEST_HEADERS) {
      const value = request.headers.get(name);
      if (value) headers.set(name, value);
    }
    headers.set('Authorization', `Bearer ${options.apiKey}`);

    const body = await outgoingBody(request, route, claims.user, headers);
    if (body instanceof Response) return body;
    const multipart = body && typeof body !== 'string' ? body : undefined;

    const aborter = new AbortController();
    let answer: Response;
    try {
      answer = await upstreamFetch(target, {
        method: request.method,
        headers,
        body: multipart ? multipart.body : body,
        signal: AbortSignal.any([request.signal, aborter.signal]),
        // The API never redirects, and a relay must not follow one elsewhere. `redirect: 'error'`
        // (with `window: null`, per the fetch spec) also keeps fetch from cloning the request: a
        // clone tees a stream body, and the unread branch would hold the whole upload in memory
        // until it ends (measured on Node 20's fetch; the memory test guards it).
        redirect: 'error',
        window: null,
        // Lets an upload stream upstream as it arrives (Node's fetch needs it for stream bodies).
        ...(multipart ? { duplex: 'half' } : {}),
      } as RequestInit);
    } catch (error) {
      aborter.abort();
      const refused = multipart?.failure;
      if (refused) return relayError(refused.status, refused.status === 413 ? 'payload_too_large' : 'invalid_param', refused.message);
      if (request.signal.aborted) return relayError(499, 'upstream_unavailable', 'The client closed the request.');
      log({ level: 'warn', code: 'upstream_unavailable', message: `The upstream service could not be reached for ${route.method} ${route.name} (${failureReason(error)}).` });
      return relayError(502, 'upstream_unavailable', 'The upstream service could not be reached.');
    }
    return relayAnswer(answer, route, request.signal);
  }

  async function relayAnswer(answer: Response, route: RelayRoute, clientSignal: AbortSignal): Promise<Response> {
    if (answer.status === 401) {
      // The upstream refused the relay's API key. A 401 to the browser would read as "your
      // session is bad" and send it asking for new sessions in a loop.
      void answer.body?.cancel();
      log({ level: 'error', code: 'upstream_auth_failed', message: `The upstream service refused the relay's API key for ${route.method} ${route.name}.` });
      return relayError(502, 'upstream_unavailable', "The upstream service refused the relay's credentials.");
    }
    const contentType = answer.headers.get('content-type') ?? '';
    const genericCode = answer.status >= 500 ? 'upstream_unavailable' : 'unknown';
    if (answer.status >= 400 && !/^application\/(problem\+)?json\b/i.test(contentType)) {
      // Not the API's {code, message, status} (a proxy's HTML page, say): don't pass it on.
      void answer.body?.cancel();
      return relayError(answer.status, genericCode, `The upstream service answered ${answer.status} without an error body.`);
    }
    if (DOCUMENT_TYPES.test(contentType)) {
      // The API answers JSON, SSE or audio. A page here is a gateway's login or the wrong
      // upstream URL, and passed on it could run as a document on the relay's origin.
      void answer.body?.cancel();
      log({ level: 'warn', code: 'upstream_unavailable', message: `The upstream service answered ${route.method} ${route.name} with a web page instead of the API's answer.` });
      return relayError(502, 'upstream_unavailable', 'The upstream service answered with a web page instead of the API.');
    }
    const headers = new Headers();
    for (const name of FORWARDED_RESPONSE_HEADERS) {
      const value = answer.headers.get(name);
      if (value) headers.set(name, value);
    }
    // fetch has already decoded a compressed body, so its original length no longer holds.
    if (answer.headers.has('content-encoding')) headers.delete('content-length');
    if (answer.status >= 400) {
      // Errors are small; held whole, they can be scrubbed of the key and the upstream's address.
      headers.delete('content-length');
      headers.set('Cache-Control', 'no-store');
      let text: string | null;
      try {
        text = answer.body ? await readStreamLimited(answer.body, MAX_ERROR_BODY_BYTES) : '';
      } catch {
        return relayError(502, 'upstream_unavailable', `The upstream service broke off its ${answer.status} answer.`);
      }
      if (text === null) return relayError(answer.status, genericCode, `The upstream service answered ${answer.status} with an error too large to pass on.`);
      return new Response(redactor.errorText(text), { status: answer.status, headers });
    }
    if (route.streams) {
      if (!headers.has('cache-control')) headers.set('Cache-Control', 'no-cache');
      // Asks a proxy in front of the relay (nginx) not to buffer the stream either.
      headers.set('X-Accel-Buffering', 'no');
    } else {
      headers.set('Cache-Control', 'no-store');
    }
    let body = answer.body ? endQuietlyOnAbort(answer.body, clientSignal, `${route.method} ${route.name}`) : null;
    if (body && TEXTUAL_TYPES.test(contentType)) {
      body = body.pipeThrough(redactor.keyStream());
      // A replaced key changes the length.
      headers.delete('content-length');
    }
    return new Response(body, { status: answer.status, headers });
  }

  async function authenticate(request: Request): Promise<SessionClaims | Response> {
    const header = request.headers.get('authorization') ?? '';
    const match = /^Bearer\s+(\S+)$/i.exec(header.trim());
    if (!match) return relayError(401, 'unauthorized', 'A session token is required: Authorization: Bearer <token>.', { 'WWW-Authenticate': 'Bearer realm="relay"' });
    const result = await sessions().verify(match[1]!, app);
    if (!result.ok) return relayError(401, result.code, result.message, { 'WWW-Authenticate': 'Bearer realm="relay", error="invalid_token"' });
    return result.claims;
  }

  /** The body to send upstream with the session's `user` in it (setting its Content-Type), or a refusal. */
  async function outgoingBody(request: Request, route: RelayRoute, user: string, headers: Headers): Promise<string | MultipartRewrite | undefined | Response> {
    if (route.user === 'multipart') {
      if (declaredLength(request) > maxUpload) return relayError(413, 'payload_too_large', `The upload exceeds the ${maxUpload} byte limit.`);
      const boundary = formDataBoundary(request.headers.get('content-type'));
      if (!boundary || !request.body) return relayError(400, 'invalid_param', 'An upload must be multipart/form-data with a boundary.');
      const rewrite = rewriteMultipartUser(request.body, boundary, user, { maxBytes: maxUpload });
      headers.set('Content-Type', rewrite.contentType);
      return rewrite;
    }
    if (route.user !== 'json') return undefined;
    const text = await readLimited(request, maxJson);
    if (text === null) return relayError(413, 'payload_too_large', `The request body exceeds the ${maxJson} byte limit.`);
    const parsed = parseJsonObject(text);
    if (!parsed.ok) return relayError(400, 'invalid_param', parsed.problem);
    headers.set('Content-Type', 'application/json');
    return JSON.stringify({ ...parsed.value, user });
  }

  return {
    fetch: handle,
    createSession,
    async sessionResponse(input) {
      const refused = await issuanceRefusal(input.user);
      return refused ? hardened(refused) : grantResponse(await createSession(input));
    },
    sessionHandler(authenticate) {
      return createSessionHandler(createSession, authenticate, issuanceRefusal);
    },
  };
}

/**
 * `answer` with `release` called once its body has ended, broken off or been cancelled, or the
 * browser has left (whichever comes first): a stream slot lives exactly as long as the stream.
 */
function releasingWhenDone(answer: Response, release: () => void, signal: AbortSignal): Response {
  if (!answer.body) {
    release();
    return answer;
  }
  signal.addEventListener('abort', release, { once: true });
  const reader = answer.body.getReader();
  const body = new ReadableStream<Uint8Array>({
    async pull(controller) {
      try {
        const { done, value } = await reader.read();
        if (done) {
          release();
          controller.close();
        } else controller.enqueue(value);
      } catch (error) {
        release();
        controller.error(error);
      }
    },
    cancel(reason) {
      release();
      return reader.cancel(reason);
    },
  });
  return new Response(body, { status: answer.status, headers: answer.headers });
}

/** A short, secret-free reason for a failed upstream fetch (`ECONNREFUSED`, `timeout`…). */
function failureReason(error: unknown): string {
  const cause = (error as { cause?: { code?: unknown } } | null)?.cause;
  if (cause && typeof cause.code === 'string') return cause.code;
  return error instanceof Error ? error.name : 'unknown error';
}

/**
 * An upstream body that simply ends when the browser leaves: the client's abort also aborts the
 * upstream fetch, and that abort must not surface as a stream error (which Node servers log as a
 * failed response on every closed tab). An upstream that breaks off while the browser is still
 * there does surface, so the browser sees a broken stream rather than a clean end; the error is
 * the relay's own, naming the route template, so whatever the server logs holds no ids or tokens.
 */
function endQuietlyOnAbort(body: ReadableStream<Uint8Array>, signal: AbortSignal, route: string): ReadableStream<Uint8Array> {
  const reader = body.getReader();
  return new ReadableStream<Uint8Array>({
    async pull(controller) {
      try {
        const { done, value } = await reader.read();
        if (done) controller.close();
        else controller.enqueue(value);
      } catch (error) {
        if (signal.aborted) controller.close();
        else controller.error(new Error(`The upstream stream for ${route} broke off (${failureReason(error)}).`));
      }
    },
    cancel(reason) {
      return reader.cancel(reason);
    },
  });
}
