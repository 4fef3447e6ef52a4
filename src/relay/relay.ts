/**
 * The relay a host backend mounts: a web-standard `fetch(request) => Response` handler that
 * checks a session token, lets only browser-safe operations through, injects the API key and
 * the session's `user`, and streams answers (and uploads) through without holding them (only
 * error bodies are held, to scrub them). Its state (the rate limits, the open-stream leases and
 * the run-start records) sits in one `RelayStore`: in memory by default, Redis for several
 * instances behind a load balancer.
 */
import { APP_OPERATIONS, pathOf, type SessionGrant } from '../protocol/index.js';
import { declaredLength, parseJsonObject, readLimited, readStreamLimited, withUser } from './body.js';
import { CorsPolicy, type CorsOptions } from './cors.js';
import { hardened, relayError } from './errors.js';
import { formDataBoundary, rewriteMultipartUser, type MultipartRewrite } from './multipart.js';
import { RateLimiter, userKey, type RateLimitOptions, type RateLimitSubject, type SessionRateLimitOptions } from './rate-limit.js';
import { Redactor, type KeyScrubber } from './redact.js';
import { matchRoute, RUN_EVENTS_ROUTE, type RelayRoute } from './routes.js';
import { IDEMPOTENCY_KEY, runStartFingerprint, RunStarts } from './run-starts.js';
import { createSessionHandler, grantResponse, NO_STORE, type SessionAuthenticator } from './session-endpoint.js';
import { sessionInputProblem, SessionSigner, type SessionClaims } from './session-token.js';
import { MemoryRelayStore, withTimeout, type RelayStore } from './store.js';
import { StreamSlots } from './stream-slots.js';
import { isUserField } from './user-field.js';
import { bodyEnds, DOCUMENT_TYPES, failureReason, genericCode, isUpstreamTimeout, releasingWhenDone, scrubbedBody, upstreamFailure, upstreamTimeout, uploadRefusal, UPSTREAM_TIMEOUT_MS } from './upstream-answers.js';

/** The shortest API key the relay accepts (see `apiKey`). */
const MIN_API_KEY_LENGTH = 8;

export interface RelayOptions {
  /** Upstream API base, e.g. `https://api.dify.ai/v1` or the embedded service's URL. */
  upstreamUrl: string;
  /**
   * The app's API key (Dify's are `app-` and 24 more characters). It never leaves the server:
   * every answer is scrubbed of it, so it must be at least 8 characters.
   */
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
  /**
   * Where every piece of shared state lives: both rate limits, the stream slots and the run-start
   * records. Default: this process's memory (`MemoryRelayStore`), right for one instance; give
   * several instances one shared store (`createRedisStore` from `hitl-elements/relay/redis`).
   */
  store?: RelayStore;
  /** The longest one store call may take before the failure policy for its kind of state applies; default 1000 ms. */
  storeTimeoutMs?: number;
  /**
   * How long the relay waits on a silent upstream: for its answer to start, and for each next
   * piece of its body; default 300 000 ms (what Node's own fetch waits). The API's streams send a
   * ping every 10 s, so only an upstream that has stopped answering runs into it: the browser then
   * gets `504 upstream_unavailable` before an answer started, or a broken stream (which the
   * element reconnects) after. Without it, a hung upstream would hold the browser's request, and a
   * stream slot, until the browser gave up.
   */
  upstreamTimeoutMs?: number;
  /** Request limit per user (all of a user's sessions together); default 600 requests a minute. `false` turns it off. */
  rateLimit?: RateLimitOptions | false;
  /** Sessions issued per user through `sessionHandler` and `sessionResponse`; default 30 a minute. `false` turns it off. */
  sessionRateLimit?: SessionRateLimitOptions | false;
  /**
   * Streaming requests (run starts, chat messages, run events, text to audio) one user may hold
   * open at once, across every instance sharing the store; default 6. `false` turns the cap off.
   */
  maxStreamsPerUser?: number | false;
  /** How long a stream slot outlives an instance that stopped renewing it (one that died); default 30 s. */
  streamLeaseSeconds?: number;
  /** Run starts sent with an `Idempotency-Key` (each starts at most one run). */
  idempotency?: IdempotencyOptions;
  /** Where the relay reports trouble (never with tokens, keys or paths' ids); default `console.warn`. */
  log?: (entry: RelayLogEntry) => void;
  /** The fetch used upstream (tests, instrumentation). */
  fetch?: typeof fetch;
}

export interface RelayLogEntry {
  level: 'warn' | 'error';
  /** `upstream_unavailable`, `upstream_auth_failed`, `rate_limit_store_failed`, `relay_store_failed`, `relay_store_recovered`. */
  code: string;
  message: string;
}

export interface IdempotencyOptions {
  /** How long a key is remembered (and a repeated one follows its run); default 24 hours. */
  recordTtlSeconds?: number;
  /** How long a repeated key waits for the first attempt's run id before `409 run_start_pending`; default 5 s. */
  waitSeconds?: number;
  /**
   * How long the first attempt may take to see its run id; past it (or when its stream ends
   * without one) the key answers `409 run_start_unknown` for good: a run may exist. Default 60 s.
   */
  pendingLimitSeconds?: number;
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

/** Store trouble is logged at most this often (an outage would otherwise log every request). */
const STORE_LOG_INTERVAL_MS = 10_000;

export const FORWARDED_REQUEST_HEADERS = ['accept', 'accept-language', 'last-event-id'];
const FORWARDED_RESPONSE_HEADERS = ['content-type', 'cache-control', 'content-disposition', 'content-length', 'x-accel-buffering', 'retry-after'];
/** Largest upstream error body passed on (after redaction); the API's errors are a few hundred bytes. */
export const MAX_ERROR_BODY_BYTES = 64 * 1024;

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
  // Answers are scrubbed of the key, wherever it turns up: a key of a letter or two would be
  // cut out of ordinary words (`"task_id"` with the key `k` became `"tas[redacted]_id"`).
  if (options.apiKey.length < MIN_API_KEY_LENGTH) throw new Error(`The app API key is shorter than ${MIN_API_KEY_LENGTH} characters, so it cannot be one (Dify's are app- and 24 more): check what the relay is given.`);
  const maxJson = options.maxJsonBodyBytes ?? 1024 * 1024;
  const maxUpload = options.maxUploadBytes ?? 15 * 1024 * 1024;
  const cors = new CorsPolicy(options.cors);
  const store = options.store ?? new MemoryRelayStore();
  const storeTimeoutMs = options.storeTimeoutMs ?? 1000;
  const upstreamTimeoutMs = options.upstreamTimeoutMs ?? UPSTREAM_TIMEOUT_MS;
  if (!(upstreamTimeoutMs > 0)) throw new Error('upstreamTimeoutMs must be a positive number of milliseconds.');
  /** Each forwarded request's way to give up on its upstream fetch once it has gone silent (see `send`). */
  const stalled = new WeakMap<Request, () => void>();
  const guarded = <T>(call: () => Promise<T> | T, what: string): Promise<T> => withTimeout(Promise.resolve().then(call), storeTimeoutMs, what);
  const limiter = options.rateLimit === false ? undefined : new RateLimiter<RateLimitSubject>({ ...options.rateLimit, store: options.rateLimit?.store ?? store, timeoutMs: storeTimeoutMs }, 600, 'relay', options.rateLimit?.key ?? userKey);
  const issuance = options.sessionRateLimit === false ? undefined : new RateLimiter<{ user: string; app: string }>({ ...options.sessionRateLimit, store: options.sessionRateLimit?.store ?? store, timeoutMs: storeTimeoutMs }, 30, 'session', userKey);
  const redactor = new Redactor(options.apiKey, upstream);
  const log = options.log ?? ((entry: RelayLogEntry) => console.warn(`[relay] ${entry.message}`));
  const upstreamFetch = options.fetch ?? globalThis.fetch.bind(globalThis);
  const storeLoggedAt = new Map<string, number>();
  /** Logs store trouble of one kind at most once per interval. */
  const storeTrouble = (code: string, message: string, error?: unknown) => {
    const now = Date.now();
    if (now - (storeLoggedAt.get(code) ?? -Infinity) < STORE_LOG_INTERVAL_MS) return;
    storeLoggedAt.set(code, now);
    log({ level: 'error', code, message: error === undefined ? message : `${message} (${failureReason(error)})` });
  };
  const streamSlots =
    options.maxStreamsPerUser === false
      ? undefined
      : new StreamSlots({
          max: options.maxStreamsPerUser ?? 6,
          leaseMs: (options.streamLeaseSeconds ?? 30) * 1000,
          store,
          timeoutMs: storeTimeoutMs,
          onStoreError: (error) => storeTrouble('relay_store_failed', "The relay store failed on a stream slot; this instance counts streams on its own until it is back.", error),
        });
  const runStarts = new RunStarts({
    store,
    guarded,
    storeTrouble,
    recordTtlMs: (options.idempotency?.recordTtlSeconds ?? 24 * 60 * 60) * 1000,
    waitMs: (options.idempotency?.waitSeconds ?? 5) * 1000,
    pendingLimitMs: (options.idempotency?.pendingLimitSeconds ?? 60) * 1000,
  });

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
    if (verdict.ok === 'unknown') storeTrouble('rate_limit_store_failed', 'The rate-limit store failed; sessions are issued without the limit until it is back.', verdict.error);
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
    const { route } = matched;
    const idempotencyKey = route.startsRun ? request.headers.get('idempotency-key') : null;
    const admitted = await admit(matched, request.headers.get('authorization'), idempotencyKey);
    if (admitted instanceof Response) return admitted;
    const { claims, release } = admitted;
    const answerFor = () => (idempotencyKey === null ? forward(request, url, path, route, claims) : startOnce(request, url, path, route, claims, idempotencyKey));
    if (!release) return answerFor();
    let answer: Response;
    try {
      answer = await answerFor();
    } catch (error) {
      release();
      throw error;
    }
    return releasingWhenDone(answer, release, request.signal);
  }

  /**
   * Every check a request passes before it is forwarded, whichever transport carries it: the
   * session, a run-bound session's reach, the request limit, a well-formed `Idempotency-Key` and
   * a stream slot for a streaming route (`release` frees it; absent when the route holds none).
   */
  async function admit(matched: MatchedRoute, authorization: string | null, idempotencyKey: string | null): Promise<Admitted | Response> {
    const { route, match } = matched;
    const claims = await authenticate(authorization);
    if (claims instanceof Response) return claims;
    if (claims.runId) {
      if (!route.runBound) return relayError(403, 'session_run_bound', 'This session is bound to one run and only answers it (its events, forms and uploads).');
      if (route.runParam !== undefined && match[route.runParam] !== claims.runId) return relayError(403, 'session_run_bound', 'This session is bound to another run.');
    }
    // The slot is asked for alongside the count (one store round trip of waiting, not two), and
    // given back if the request is refused.
    const slot = route.streams && streamSlots ? streamSlots.acquire(userKey(claims)) : undefined;
    const refusal = await refusalOf(claims, idempotencyKey);
    const release = await slot;
    if (refusal) {
      release?.();
      return refusal;
    }
    if (slot && !release) return relayError(429, 'too_many_streams', 'Too many streams open for this user; close one (another tab, say) and try again.');
    return { claims, release };
  }

  /** Past the request limit, or a malformed `Idempotency-Key`: the refusal, else `undefined`. */
  async function refusalOf(claims: SessionClaims, idempotencyKey: string | null): Promise<Response | undefined> {
    if (limiter) {
      const limited = await limiter.check(claims);
      if (limited.ok === false) {
        return relayError(429, 'rate_limited', 'Too many requests for this user; try again shortly.', { 'Retry-After': String(limited.retryAfterSeconds) });
      }
      if (limited.ok === 'unknown') storeTrouble('rate_limit_store_failed', 'The rate-limit store failed; requests are let through without the limit until it is back.', limited.error);
    }
    if (idempotencyKey !== null && !IDEMPOTENCY_KEY.test(idempotencyKey)) {
      return relayError(400, 'invalid_idempotency_key', 'Idempotency-Key must be 1 to 128 letters, digits, `-` or `_`.');
    }
    return undefined;
  }

  async function forward(request: Request, url: URL, path: string, route: RelayRoute, claims: SessionClaims): Promise<Response> {
    const prepared = await prepare(request, url, path, route, claims);
    if (prepared instanceof Response) return prepared;
    const sent = await send(request, prepared, route, request.signal);
    return 'refusal' in sent ? sent.refusal : relayAnswer(sent, route, request);
  }

  /**
   * A run start with an `Idempotency-Key`: the first request with the key starts the run, every
   * later one follows it (see run-starts.ts).
   */
  async function startOnce(request: Request, url: URL, path: string, route: RelayRoute, claims: SessionClaims, key: string): Promise<Response> {
    const prepared = await prepare(request, url, path, route, claims);
    if (prepared instanceof Response) return prepared;
    const body = JSON.parse(prepared.body as string) as Record<string, unknown>;
    if (body.response_mode !== 'streaming') return relayError(400, 'invalid_param', 'Idempotency-Key applies to streaming run starts (response_mode "streaming").');
    return runStarts.start(`runstart:${key}:${userKey(claims)}`, await runStartFingerprint(path, body), request.signal, {
      send: (signal) => send(request, prepared, route, signal),
      answer: (sent) => relayAnswer(sent, route, request),
      follow: (runId) => followRun(request, runId, claims),
    });
  }

  /** A repeated key whose run is known: that run's events, from a snapshot of its state. */
  async function followRun(request: Request, runId: string, claims: SessionClaims): Promise<Response> {
    const path = pathOf(APP_OPERATIONS.workflowEvents.path, runId);
    const target = new URL(upstream + path);
    target.searchParams.set('user', claims.user);
    target.searchParams.set('include_state_snapshot', 'true');
    target.searchParams.set('continue_on_pause', 'true');
    const sent = await send(request, { target, headers: upstreamHeaders(request), body: undefined }, RUN_EVENTS_ROUTE, request.signal, 'GET');
    return 'refusal' in sent ? sent.refusal : relayAnswer(sent, RUN_EVENTS_ROUTE, request);
  }

  function upstreamHeaders(request: Request): Headers {
    const headers = new Headers();
    for (const name of FORWARDED_REQUEST_HEADERS) {
      const value = request.headers.get(name);
      if (value) headers.set(name, value);
    }
    headers.set('Authorization', `Bearer ${options.apiKey}`);
    return headers;
  }

  /** The upstream request for a relayed one, `user` set; or the refusal of its body. */
  async function prepare(request: Request, url: URL, path: string, route: RelayRoute, claims: SessionClaims): Promise<Prepared | Response> {
    const target = new URL(upstream + path);
    // Every spelling a lenient server might bind to `user` goes, not just the exact name.
    for (const [key, value] of url.searchParams) if (!isUserField(key)) target.searchParams.append(key, value);
    if (route.user === 'query') target.searchParams.set('user', claims.user);
    const headers = upstreamHeaders(request);
    const body = await outgoingBody(request, route, claims.user, headers);
    if (body instanceof Response) return body;
    return { target, headers, body };
  }

  /**
   * Sends `prepared` upstream: the upstream's answer, or the refusal when no answer came (nothing
   * reached the upstream's handler). Told apart by shape: under @hono/node-server the global
   * `Response` is not the class fetch answers with.
   */
  async function send(request: Request, prepared: Prepared, route: RelayRoute, signal: AbortSignal, method = request.method): Promise<Response | { refusal: Response }> {
    const { target, headers, body } = prepared;
    const multipart = body && typeof body !== 'string' ? body : undefined;
    const aborter = new AbortController();
    let answer: Response | undefined;
    const giveUp = () => aborter.abort(upstreamTimeout(answer === undefined ? 'UND_ERR_HEADERS_TIMEOUT' : 'UND_ERR_BODY_TIMEOUT'));
    const timer = setTimeout(giveUp, upstreamTimeoutMs);
    try {
      answer = await upstreamFetch(target, {
        method,
        headers,
        body: multipart ? multipart.body : body,
        signal: AbortSignal.any([signal, aborter.signal]),
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
      clearTimeout(timer);
      const timedOut = isUpstreamTimeout(aborter.signal.reason);
      aborter.abort();
      const refused = multipart?.failure;
      if (refused) return { refusal: uploadRefusal(refused) };
      if (request.signal.aborted) return { refusal: relayError(499, 'upstream_unavailable', 'The client closed the request.') };
      return { refusal: upstreamFailure(route, timedOut ? aborter.signal.reason : error, log) };
    }
    clearTimeout(timer);
    stalled.set(request, giveUp);
    return answer;
  }

  /**
   * What the browser may see of an upstream answer, decided on its status and headers alone: a
   * refusal in the relay's own words (the caller drops the upstream body), or the headers to pass
   * on, scrubbed. An error's body is then held and scrubbed (`errorAnswer`); any other body streams
   * through the key scrubber.
   */
  function answerHead(status: number, header: (name: string) => string | null, route: RelayRoute): Response | AnswerHeaders {
    if (status < 200 || status > 599) {
      // Not a final HTTP status (a `Response` can't even carry one): a broken upstream or a proxy.
      log({ level: 'error', code: 'upstream_unavailable', message: `The upstream service answered ${route.method} ${route.name} with status ${status}.` });
      return relayError(502, 'upstream_unavailable', `The upstream service answered with an invalid status (${status}).`);
    }
    if (status === 401) {
      // The upstream refused the relay's API key. A 401 to the browser would read as "your
      // session is bad" and send it asking for new sessions in a loop.
      log({ level: 'error', code: 'upstream_auth_failed', message: `The upstream service refused the relay's API key for ${route.method} ${route.name}.` });
      return relayError(502, 'upstream_unavailable', "The upstream service refused the relay's credentials.");
    }
    const contentType = header('content-type') ?? '';
    if (status >= 400 && !/^application\/(problem\+)?json\b/i.test(contentType)) {
      // Not the API's {code, message, status} (a proxy's HTML page, say): don't pass it on.
      return relayError(status, genericCode(status), `The upstream service answered ${status} without an error body.`);
    }
    if (DOCUMENT_TYPES.test(contentType)) {
      // The API answers JSON, SSE or audio. A page here is a gateway's login or the wrong
      // upstream URL, and passed on it could run as a document on the relay's origin.
      log({ level: 'warn', code: 'upstream_unavailable', message: `The upstream service answered ${route.method} ${route.name} with a web page instead of the API's answer.` });
      return relayError(502, 'upstream_unavailable', 'The upstream service answered with a web page instead of the API.');
    }
    // A plain record, not `Headers`: the Node transport writes it as it is, per request (issue 15).
    const headers: AnswerHeaders = {};
    for (const name of FORWARDED_RESPONSE_HEADERS) {
      const value = header(name);
      if (value === null) continue;
      const scrubbed = redactor.headerValue(value);
      if (scrubbed) headers[name] = scrubbed;
    }
    // fetch has already decoded a compressed body, so its original length no longer holds.
    if (header('content-encoding') !== null) delete headers['content-length'];
    if (status >= 400) {
      // Errors are small; held whole, they can be scrubbed of the key and the upstream's address.
      delete headers['content-length'];
      headers['cache-control'] = 'no-store';
    } else if (route.streams) {
      headers['cache-control'] ??= 'no-cache';
      // Asks a proxy in front of the relay (nginx) not to buffer the stream either.
      headers['x-accel-buffering'] = 'no';
    } else {
      headers['cache-control'] = 'no-store';
    }
    return headers;
  }

  /** An upstream error answer passed on: its body (`null` past the size limit, `undefined` when it broke off) scrubbed. */
  function errorAnswer(status: number, text: string | null | undefined, headers: AnswerHeaders): Response {
    if (text === undefined) return relayError(502, 'upstream_unavailable', `The upstream service broke off its ${status} answer.`);
    if (text === null) return relayError(status, genericCode(status), `The upstream service answered ${status} with an error too large to pass on.`);
    const scrubbed = redactor.errorText(text);
    if (scrubbed === undefined) return relayError(status, genericCode(status), `The upstream service answered ${status} with an error nested too deep to pass on.`);
    return new Response(scrubbed, { status, headers });
  }

  async function relayAnswer(answer: Response, route: RelayRoute, request: Request): Promise<Response> {
    const clientSignal = request.signal;
    const head = answerHead(answer.status, (name) => answer.headers.get(name), route);
    if (head instanceof Response) {
      void answer.body?.cancel();
      return head;
    }
    const headers = head;
    if (answer.status >= 400) {
      let text: string | null | undefined;
      // An error body that goes silent is given up like any other (the Node transport's socket
      // timeout does the same): a stream slot would be held for as long as the upstream stalls.
      let silent = false;
      const giveUp = stalled.get(request);
      const silence = giveUp && { ms: upstreamTimeoutMs, giveUp: () => ((silent = true), giveUp()) };
      try {
        text = answer.body ? await readStreamLimited(answer.body, MAX_ERROR_BODY_BYTES, silence) : '';
      } catch {
        if (silent) return upstreamFailure(route, upstreamTimeout('UND_ERR_BODY_TIMEOUT'), log);
        text = undefined;
      }
      return errorAnswer(answer.status, text, headers);
    }
    if (!answer.body) return new Response(null, { status: answer.status, headers });
    // Every body, whatever its type or none: see Redactor.keyScrubber. A replaced key changes the length.
    delete headers['content-length'];
    const relayed = scrubbedBody(answer.body, redactor.keyScrubber(), clientSignal, `${route.method} ${route.name}`, { ms: upstreamTimeoutMs, giveUp: stalled.get(request) });
    const response = new Response(relayed.stream, { status: answer.status, headers });
    bodyEnds.set(response, relayed.onEnd);
    return response;
  }

  async function authenticate(authorization: string | null): Promise<SessionClaims | Response> {
    const match = /^Bearer\s+(\S+)$/i.exec((authorization ?? '').trim());
    if (!match) return relayError(401, 'unauthorized', 'A session token is required: Authorization: Bearer <token>.', { 'WWW-Authenticate': 'Bearer realm="relay"' });
    const result = await sessions().verify(match[1]!, app);
    if (!result.ok) return relayError(401, result.code, result.message, { 'WWW-Authenticate': 'Bearer realm="relay", error="invalid_token"' });
    return result.claims;
  }

  /** The body to send upstream with the session's `user` in it (setting its Content-Type), or a refusal. */
  async function outgoingBody(request: Request, route: RelayRoute, user: string, headers: Headers): Promise<string | MultipartRewrite | undefined | Response> {
    if (route.user === 'multipart') {
      const boundary = uploadBoundary(declaredLength(request), request.headers.get('content-type'));
      if (boundary instanceof Response) return boundary;
      if (!request.body) return relayError(400, 'invalid_param', MULTIPART_NEEDED);
      const rewrite = rewriteMultipartUser(request.body, boundary, user, { maxBytes: maxUpload });
      headers.set('Content-Type', rewrite.contentType);
      return rewrite;
    }
    if (route.user !== 'json') return undefined;
    const body = jsonBody(await readLimited(request, maxJson), user);
    if (typeof body === 'string') headers.set('Content-Type', 'application/json');
    return body;
  }

  /** An upload's boundary, or its refusal before a byte is read: too large as declared, or not multipart. */
  function uploadBoundary(declared: number, contentType: string | null): string | Response {
    if (declared > maxUpload) return relayError(413, 'payload_too_large', `The upload exceeds the ${maxUpload} byte limit.`);
    return formDataBoundary(contentType) ?? relayError(400, 'invalid_param', MULTIPART_NEEDED);
  }

  /** A JSON body as sent upstream, the session's `user` in it; or its refusal (`null`: past the size limit). */
  function jsonBody(text: string | null, user: string): string | Response {
    if (text === null) return relayError(413, 'payload_too_large', `The request body exceeds the ${maxJson} byte limit.`);
    const parsed = parseJsonObject(text);
    if (!parsed.ok) return relayError(400, 'invalid_param', parsed.problem);
    return text.trim() ? withUser(text, user) : JSON.stringify({ user });
  }

  const relay: Relay = {
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
  cores.set(relay, {
    basePath,
    upstream,
    apiKey: options.apiKey,
    direct: options.fetch === undefined,
    cors: cors.enabled,
    maxJson,
    maxUpload,
    upstreamTimeoutMs,
    admit,
    uploadBoundary,
    jsonBody,
    answerHead,
    errorAnswer,
    scrubber: () => redactor.keyScrubber(),
    log,
  });
  return relay;
}

/**
 * What a transport other than `fetch` needs to forward for a relay with exactly the same checks
 * and scrubbing: `toNodeListener` pipes Node's request and response through it (node-pipe.ts)
 * instead of wrapping both in web streams. Not part of the public API.
 */
export interface RelayCore {
  basePath: string;
  /** The upstream API base, without a trailing slash. */
  upstream: string;
  apiKey: string;
  /** Whether requests may go upstream without the relay's fetch (the host gave none of its own). */
  direct: boolean;
  /** Whether CORS is on: requests with an `Origin` then take the fetch handler, which answers it. */
  cors: boolean;
  maxJson: number;
  maxUpload: number;
  /** How long a silent upstream is waited on (see `RelayOptions.upstreamTimeoutMs`). */
  upstreamTimeoutMs: number;
  admit(matched: MatchedRoute, authorization: string | null, idempotencyKey: string | null): Promise<Admitted | Response>;
  jsonBody(text: string | null, user: string): string | Response;
  uploadBoundary(declared: number, contentType: string | null): string | Response;
  answerHead(status: number, header: (name: string) => string | null, route: RelayRoute): Response | AnswerHeaders;
  errorAnswer(status: number, text: string | null | undefined, headers: AnswerHeaders): Response;
  scrubber(): KeyScrubber;
  log(entry: RelayLogEntry): void;
}

const cores = new WeakMap<Relay, RelayCore>();

/** The forwarding core of a relay made by `createRelay`, or `undefined` for any other object. */
export function relayCore(relay: object): RelayCore | undefined {
  return cores.get(relay as Relay);
}

/** The headers of an upstream answer the browser may see, by lowercase name (see `answerHead`). */
export type AnswerHeaders = Record<string, string>;

export type MatchedRoute = NonNullable<ReturnType<typeof matchRoute>>;

interface Admitted {
  claims: SessionClaims;
  /** Frees the request's stream slot; absent when it holds none. */
  release: (() => void) | undefined;
}

interface Prepared {
  target: URL;
  headers: Headers;
  body: string | MultipartRewrite | undefined;
}

const MULTIPART_NEEDED = 'An upload must be multipart/form-data with a boundary.';
