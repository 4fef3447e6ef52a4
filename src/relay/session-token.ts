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
  /** When set, the token only reaches this run's events. */
  runId?: string;
  expiresAt: number;
}

export type VerifyResult =
  | { ok: true; claims: SessionClaims }
  | { ok: false; code: 'session_invalid' | 'session_expired' | 'session_wrong_audience'; message: string };

const ISSUER = 'hitl-elements-relay';

export class SessionSigner {
  readonly #keys: Uint8Array[];

  constructor(secrets: string | readonly string[]) {
    const list = typeof secrets === 'string' ? [secrets] : [...secrets];
    if (!list.length || list.some((s) => s.length < 32)) {
      throw new Error('Relay session secrets must each be at least 32 characters long.');
    }
    this.#keys = list.map((s) => new TextEncoder().encode(s));
  }

  async sign(claims: Omit<SessionClaims, 'expiresAt'>, ttlSeconds: number): Promise<{ token: string; expiresAt: number }> {
    const expiresAt = Math.floor(Date.now() / 1000) + ttlSeconds;
    const jwt = new SignJWT(claims.runId ? { run: claims.runId } : {})
      .setProtectedHeader({ alg: 'HS256', typ: 'JWT' })
      .setIssuer(ISSUER)
      .setSubject(claims.user)
      .setAudience(claims.app)
      .setIssuedAt()
      .setExpirationTime(expiresAt);
    return { token: await jwt.sign(this.#keys[0]!), expiresAt };
  }

  async verify(token: string, app: string): Promise<VerifyResult> {
    let lastFailure: VerifyResult = { ok: false, code: 'session_invalid', message: 'The session token is not valid.' };
    for (const key of this.#keys) {
      try {
        const { payload } = await jwtVerify(token, key, { issuer: ISSUER, audience: app, algorithms: ['HS256'] });
        if (typeof payload.sub !== 'string' || !payload.sub) return lastFailure;
        return {
          ok: true,
          claims: {
            user: payload.sub,
            app,
            runId: typeof payload.run === 'string' ? payload.run : undefined,
            expiresAt: payload.exp ?? 0,
          },
        };
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
    return lastFailure;
  }
}
