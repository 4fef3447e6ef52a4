/**
 * The session endpoint an element's `session-url` points at, as a handler the host backend wraps
 * around its own authentication: the host's code says who the user is, this answers the element
 * with the shared `SessionGrant` contract (`{token, expires_at, relay_url}`, see
 * src/protocol/session.ts). The element `POST`s `{}` or `{run_id}` and calls again shortly before
 * `expires_at`: that call is the refresh, and it passes through the host's authentication again,
 * so signing out stops the renewals.
 */
import type { SessionGrant, SessionRequest } from '../protocol/index.js';
import { parseJsonObject, readLimited } from './body.js';
import { hardened, relayError } from './errors.js';

/** Who the session is for, decided by the host backend. */
export interface SessionIdentity {
  user: string;
  /**
   * Bind the session to this run (it then reaches only what answering the run needs, see
   * `CreateSessionInput.runId`); default the run the element asked for, if any.
   */
  runId?: string;
  ttlSeconds?: number;
}

/**
 * The host's authentication: the user (or a `SessionIdentity`) for a signed-in request, or
 * `null` to refuse with 401. `asked.runId` is the run the element wants to follow; binding the
 * session to it only narrows what the session reaches.
 */
export type SessionAuthenticator = (request: Request, asked: { runId?: string }) => SessionIdentity | string | null | undefined | Promise<SessionIdentity | string | null | undefined>;

export type SessionIssuer = (input: { user: string; runId?: string; ttlSeconds?: number }) => Promise<SessionGrant>;

/** The issuance limit: a `429` answer when `user` has asked for too many sessions lately, else `undefined`. */
export type IssuanceLimit = (user: string) => Promise<Response | undefined>;

const MAX_SESSION_REQUEST_BYTES = 4 * 1024;
export const NO_STORE = { 'Cache-Control': 'no-store', Pragma: 'no-cache' };

export function grantResponse(grant: SessionGrant): Response {
  return hardened(new Response(JSON.stringify(grant), { headers: { 'Content-Type': 'application/json', ...NO_STORE } }));
}

export function createSessionHandler(issue: SessionIssuer, authenticate: SessionAuthenticator, limit?: IssuanceLimit): (request: Request) => Promise<Response> {
  const answer = async (request: Request): Promise<Response> => {
    if (request.method !== 'POST') return relayError(405, 'method_not_allowed', 'The session endpoint answers POST only.', { Allow: 'POST', ...NO_STORE });
    const text = await readLimited(request, MAX_SESSION_REQUEST_BYTES);
    if (text === null) return relayError(413, 'payload_too_large', `A session request is at most ${MAX_SESSION_REQUEST_BYTES} bytes.`, NO_STORE);
    const body = parseJsonObject(text);
    if (!body.ok) return relayError(400, 'invalid_param', body.problem, NO_STORE);
    const { run_id: runId } = body.value as SessionRequest;
    if (runId !== undefined && (typeof runId !== 'string' || !/^[A-Za-z0-9_-]{1,128}$/.test(runId))) {
      return relayError(400, 'invalid_param', 'run_id must be a run id (letters, digits, `-` or `_`).', NO_STORE);
    }
    const identity = await authenticate(request, runId === undefined ? {} : { runId });
    if (!identity) return relayError(401, 'unauthorized', 'Sign in to get a session.', NO_STORE);
    const chosen: SessionIdentity = typeof identity === 'string' ? { user: identity } : identity;
    const refused = await limit?.(chosen.user);
    if (refused) return refused;
    const grant = await issue({ user: chosen.user, runId: chosen.runId ?? runId, ttlSeconds: chosen.ttlSeconds });
    return grantResponse(grant);
  };
  return async (request) => hardened(await answer(request));
}
