/**
 * The contract between an element's `session-url` and the host backend's session endpoint.
 * The element `POST`s to its `session-url` (with the page's cookies) and gets this body back;
 * it then calls the relay at `relay_url` with `Authorization: Bearer <token>`.
 */
export interface SessionGrant {
  /** Signed, short-lived session token; opaque to the browser. */
  token: string;
  /** Epoch seconds after which the token is refused; ask the session endpoint again before. */
  expires_at: number;
  /** Base URL of the relay, mirroring the upstream's `/v1` paths; may be relative to the session URL. */
  relay_url: string;
}

/** Optional body the element sends to its session endpoint. */
export interface SessionRequest {
  /** Ask for a token bound to one run, when the element follows a known run. */
  run_id?: string;
}

/** True when `value` has the shape of a session grant. */
export function isSessionGrant(value: unknown): value is SessionGrant {
  if (typeof value !== 'object' || value === null) return false;
  const v = value as Record<string, unknown>;
  return typeof v.token === 'string' && typeof v.expires_at === 'number' && typeof v.relay_url === 'string';
}
