/**
 * Session tokens: HS256 JWTs (through jose, which runs on Node and edge runtimes alike) bound to
 * one user and one app, optionally to one run. Several secrets may be given: the first signs,
 * every one verifies, so a secret can be rotated without logging anyone out.
 */
import { errors, jwtVerify, SignJWT } from 'jose';

export interface SessionClaims {
  user: string;
  /** The app (audience) the token is good for. */
  app: string;
  /** A random id per issued session (`jti`); the rate limit counts by user unless its `key` says otherwise. */
  sessionId: string;
  /** When set, the token reaches only what answering this run needs (see `RelayRoute.runBound`). */
  runId?: string;
  expiresAt: number;
}

export type SessionErrorCode = 'session_invalid' | 'session_expired' | 'session_wrong_audience';

export type VerifyResult = { ok: true; claims: SessionClaims } | { ok: false; code: SessionErrorCode; message: string };

const ISSUER = 'hitl-elements-relay';
/** Longest lifetime a session may be given; a page asks its session endpoint again long before. */
export const MAX_SESSION_TTL_SECONDS = 24 * 60 * 60;
/** Run ids travel in paths; the same shape the allowlist accepts for a path segment. */
const RUN_ID = /^[A-Za-z0-9_-]{1,128}$/;
// eslint-disable-next-line no-control-regex
const CONTROL = /[\u0000-\u001f\u007f]/;

/** Why a session cannot be issued, or `undefined` when it can. */
export function sessionInputProblem(user: unknown, runId: unknown, ttlSeconds: number): string | undefined {
  if (typeof user !== 'string' || !user) return 'createSession needs the user your backend authenticated.';
  if (user.length > 256 || CONTROL.test(user)) return 'The session user must be at most 256 characters without control characters.';
  if (runId !== undefined && (typeof runId !== 'string' || !RUN_ID.test(runId))) return 'The run id must be 1 to 128 letters, digits, `-` or `_`.';
  if (!Number.isInteger(ttlSeconds) || ttlSeconds <= 0 || ttlSeconds > MAX_SESSION_TTL_SECONDS) {
    return `The session lifetime must be a whole number of seconds between 1 and ${MAX_SESSION_TTL_SECONDS}.`;
  }
  return undefined;
}

type HmacKey = Awaited<ReturnType<typeof crypto.subtle.importKey>>;

/** Tokens remembered as verified; past it the oldest is forgotten (and verified again if it returns). */
const VERIFIED_CACHE_SIZE = 10_000;

export class SessionSigner {
  /**
   * The secrets as HMAC keys, imported once: given raw bytes, jose imports a key on every sign
   * and verify, which was most of a verify's cost.
   */
  readonly #keys: Promise<HmacKey[]>;
  /**
   * Tokens that verified, with their claims, until they expire. A signature that held holds
   * until `exp` (the keys never change in an instance, and the tokens carry no `nbf` that could
   * come due), so every request but a session's first skips the HMAC and the claim checks.
   */
  readonly #verified = new Map<string, SessionClaims>();

  constructor(secrets: string | readonly string[]) {
    const list: unknown[] = Array.isArray(secrets) ? [...secrets] : [secrets]; // an unset variable is `undefined`, not a list
    if (!list.length || list.some((s) => typeof s !== 'string' || s.length < 32)) {
      throw new Error('Relay session secrets must each be at least 32 characters long.');
    }
    this.#keys = Promise.all(list.map((s) => crypto.subtle.importKey('raw', new TextEncoder().encode(s as string), { name: 'HMAC', hash: 'SHA-256' }, false, ['sign', 'verify'])));
  }

  async sign(claims: { user: string; app: string; runId?: string }, ttlSeconds: number): Promise<{ token: string; expiresAt: number; sessionId: string }> {
    const expiresAt = Math.floor(Date.now() / 1000) + ttlSeconds;
    const sessionId = crypto.randomUUID();
    const jwt = new SignJWT(claims.runId ? { run: claims.runId } : {})
      .setProtectedHeader({ alg: 'HS256', typ: 'JWT' })
      .setIssuer(ISSUER)
      .setSubject(claims.user)
      .setAudience(claims.app)
      .setJti(sessionId)
      .setIssuedAt()
      .setExpirationTime(expiresAt);
    return { token: await jwt.sign((await this.#keys)[0]!), expiresAt, sessionId };
  }

  async verify(token: string, app: string): Promise<VerifyResult> {
    const invalid: VerifyResult = { ok: false, code: 'session_invalid', message: 'The session token is not valid.' };
    // A real token is a few hundred bytes; refusing huge ones early spares the HMAC.
    if (token.length > 4096) return invalid;
    const known = this.#verified.get(token);
    if (known) {
      // jose's own rule: expired once the current second reaches `exp`.
      if (known.app === app && Math.floor(Date.now() / 1000) < known.expiresAt) return { ok: true, claims: known };
      this.#verified.delete(token);
    }
    for (const key of await this.#keys) {
      try {
        const { payload } = await jwtVerify(token, key, { issuer: ISSUER, audience: app, algorithms: ['HS256'], requiredClaims: ['exp', 'sub'] });
        if (typeof payload.sub !== 'string' || !payload.sub) return invalid;
        const runId = typeof payload.run === 'string' ? payload.run : undefined;
        const claims: SessionClaims = { user: payload.sub, app, sessionId: typeof payload.jti === 'string' ? payload.jti : payload.sub, runId, expiresAt: payload.exp ?? 0 };
        if (this.#verified.size >= VERIFIED_CACHE_SIZE) this.#verified.delete(this.#verified.keys().next().value!);
        this.#verified.set(token, claims);
        return { ok: true, claims };
      } catch (error) {
        if (error instanceof errors.JWTExpired) {
          return { ok: false, code: 'session_expired', message: 'The session has expired; ask the session endpoint for a new one.' };
        }
        if (error instanceof errors.JWTClaimValidationFailed && error.claim === 'aud') {
          return { ok: false, code: 'session_wrong_audience', message: 'The session token was issued for another app.' };
        }
        // A signature failure may just mean another secret signed it: try the next one.
      }
    }
    return invalid;
  }
}
