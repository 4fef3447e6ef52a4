/**
 * The relay a host backend mounts: a web-standard `fetch(request) => Response` handler that
 * checks a session token, lets only browser-safe operations through, injects the API key and
 * the session's `user`, and streams answers back untouched. It holds no state, so any number of
 * instances can sit behind a load balancer.
 */
import type { SessionGrant } from '../protocol/index.js';
import { relayError } from './errors.js';
import { matchRoute, type RelayRoute } from './routes.js';
import { SessionSigner, type SessionClaims } from './session-token.js';

export interface RelayOptions {
  /** Upstream API base, e.g. `https://api.dify.ai/v1` or the embedded service's URL. */
  upstreamUrl: string;
  /** The app's API key. It never leaves the server. */
  apiKey: string;
  /** Session signing secret(s), at least 32 characters; the first signs, all verify. */
  secret: string | readonly string[];
  /** Audience the sessions are bound to; give each app its own. Default `default`. */
  app?: string;
  /** Path where the relay is mounted (stripped before matching), e.g. `/api/relay`. */
  basePath?: string;
  /** The relay URL handed to browsers; default `basePath`. */
  publicUrl?: string;
  /** Session lifetime; default 15 minutes. */
  sessionTtlSeconds?: number;
  /** Largest JSON body let through; default 1 MiB. */
  maxJsonBodyBytes?: number;
  /** The fetch used upstream (tests, instrumentation). */
  fetch?: typeof fetch;
}

export interface CreateSessionInput {
  /** The end user, decided by the host backend's own authentication. Never taken from the browser. */
  user: string;
  /** Bind the session to one run. */
  runId?: string;
  ttlSeconds?: number;
}

export interface Relay {
  /** The proxy handler. */
  fetch(request: Request): Promise<Response>;
  /** Issues a session for a user the host backend has authenticated. */
  createSession(input: CreateSessionInput): Promise<SessionGrant>;
  /** The session endpoint's answer: the grant as JSON, never cached. */
  sessionResponse(input: CreateSessionInput): Promise<Response>;
}

const FORWARDED_REQUEST_HEADERS = ['accept', 'accept-language', 'content-type', 'last-event-id'];
const FORWARDED_RESPONSE_HEADERS = ['content-type', 'cache-control', 'content-disposition', 'content-length', 'x-accel-buffering'];

export function createRelay(options: RelayOptions): Relay {
  const signer = new SessionSigner(options.secret);
  const app = options.app ?? 'default';
  const basePath = (options.basePath ?? '').replace(/\/$/, '');
  const upstream = options.upstreamUrl.replace(/\/$/, '');
  const ttl = options.sessionTtlSeconds ?? 15 * 60;
  const maxJson = options.maxJsonBodyBytes ?? 1024 * 1024;
  const upstreamFetch = options.fetch ?? globalThis.fetch.bind(globalThis);

  async function createSession(input: CreateSessionInput): Promise<SessionGrant> {
    if (typeof input.user !== 'string' || !input.user) throw new Error('createSession needs the user your backend authenticated.');
    const { token, expiresAt } = await signer.sign({ user: input.user, app, runId: input.runId }, input.ttlSeconds ?? ttl);
    return { token, expires_at: expiresAt, relay_url: options.publicUrl ?? (basePath || '/') };
  }

  async function proxy(request: Request): Promise<Response> {
    const url = new URL(request.url);
    if (basePath && url.pathname !== basePath && !url.pathname.startsWith(`${basePath}/`)) {
      return relayError(404, 'not_found', 'No such relay route.');
    }
    const path = url.pathname.slice(basePath.length) || '/';
    const matched = matchRoute(request.method, path);
    if (!matched) return relayError(404, 'not_found', 'No such relay route.');

    const claims = await authenticate(request);
    if (claims instanceof Response) return claims;
    const { route, match } = matched;
    if (route.runParam !== undefined && claims.runId && match[route.runParam] !== claims.runId) {
      return relayError(403, 'forbidden', 'This session is bound to another run.');
    }

    const target = new URL(upstream + path);
    for (const [key, value] of url.searchParams) if (key !== 'user') target.searchParams.append(key, value);
    if (route.user === 'query') target.searchParams.set('user', claims.user);

    const headers = new Headers();
    for (const name of FORWARDED_REQUEST_HEADERS) {
      const value = request.headers.get(name);
      if (value) headers.set(name, value);
    }
    headers.set('Authorization', `Bearer ${options.apiKey}`);

    const body = await outgoingBody(request, route, claims.user);
    if (body instanceof Response) return body;

    let answer: Response;
    try {
      answer = await upstreamFetch(target, { method: request.method, headers, body, signal: request.signal });
    } catch (error) {
      if (request.signal.aborted) return relayError(499, 'upstream_unavailable', 'The client closed the request.');
      void error;
      return relayError(502, 'upstream_unavailable', 'The upstream service could not be reached.');
    }
    const responseHeaders = new Headers();
    for (const name of FORWARDED_RESPONSE_HEADERS) {
      const value = answer.headers.get(name);
      if (value) responseHeaders.set(name, value);
    }
    if (!route.streams) responseHeaders.set('Cache-Control', 'no-store');
    const answerBody = answer.body && route.streams ? endQuietlyOnAbort(answer.body, request.signal) : answer.body;
    return new Response(answerBody, { status: answer.status, headers: responseHeaders });
  }

  async function authenticate(request: Request): Promise<SessionClaims | Response> {
    const header = request.headers.get('authorization') ?? '';
    const match = /^Bearer\s+(\S+)$/i.exec(header.trim());
    if (!match) return relayError(401, 'unauthorized', 'A session token is required: Authorization: Bearer <token>.', { 'WWW-Authenticate': 'Bearer realm="relay"' });
    const result = await signer.verify(match[1]!, app);
    if (!result.ok) return relayError(401, result.code, result.message, { 'WWW-Authenticate': 'Bearer realm="relay", error="invalid_token"' });
    return result.claims;
  }

  async function outgoingBody(request: Request, route: RelayRoute, user: string): Promise<string | undefined | Response> {
    if (request.method === 'GET' || request.method === 'HEAD') return undefined;
    if (route.user !== 'json') return undefined;
    const text = await readLimited(request, maxJson);
    if (text === null) return relayError(413, 'payload_too_large', `Request body exceeds the ${maxJson} byte limit.`);
    let parsed: unknown = {};
    if (text.trim()) {
      try {
        parsed = JSON.parse(text);
      } catch {
        return relayError(400, 'invalid_param', 'Invalid JSON payload received or JSON payload is empty.');
      }
    }
    if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) {
      return relayError(400, 'invalid_param', 'The request body must be a JSON object.');
    }
    return JSON.stringify({ ...parsed, user });
  }

  return {
    fetch: proxy,
    createSession,
    async sessionResponse(input) {
      const grant = await createSession(input);
      return new Response(JSON.stringify(grant), {
        headers: { 'Content-Type': 'application/json', 'Cache-Control': 'no-store' },
      });
    },
  };
}

/**
 * A streamed upstream body that simply ends when the browser leaves: the client's abort also
 * aborts the upstream fetch, and that abort must not surface as a stream error (which Node
 * servers log as a failed response on every closed tab).
 */
function endQuietlyOnAbort(body: ReadableStream<Uint8Array>, signal: AbortSignal): ReadableStream<Uint8Array> {
  const reader = body.getReader();
  return new ReadableStream<Uint8Array>({
    async pull(controller) {
      try {
        const { done, value } = await reader.read();
        if (done) controller.close();
        else controller.enqueue(value);
      } catch (error) {
        if (signal.aborted) controller.close();
        else controller.error(error);
      }
    },
    cancel(reason) {
      return reader.cancel(reason);
    },
  });
}

/** The body as text, or `null` once it passes `limit` bytes (reading stops there). */
async function readLimited(request: Request, limit: number): Promise<string | null> {
  if (Number(request.headers.get('content-length') ?? 0) > limit) return null;
  if (!request.body) return '';
  const reader = request.body.getReader();
  const decoder = new TextDecoder();
  let size = 0;
  let text = '';
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.byteLength;
    if (size > limit) {
      await reader.cancel();
      return null;
    }
    text += decoder.decode(value, { stream: true });
  }
  return text + decoder.decode();
}
