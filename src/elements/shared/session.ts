/**
 * The session an element gets from its host backend's `session-url`, shared by every element on
 * the page that names the same URL, and refreshed shortly before it expires.
 */
import { isSessionGrant, type SessionGrant } from '../../protocol/index.js';
import { AppClient } from '../../client/index.js';
import { ServiceError } from '../../client/errors.js';

/** Refresh this long before the token's expiry, so a request never leaves with a stale token. */
const REFRESH_MARGIN_SECONDS = 30;

const shared = new Map<string, SessionSource>();

export class SessionSource {
  readonly url: string;
  #grant: SessionGrant | undefined;
  #pending: Promise<SessionGrant> | undefined;
  #client: AppClient | undefined;

  private constructor(url: string) {
    this.url = url;
  }

  /** The one session source for this URL on this page. */
  static for(sessionUrl: string): SessionSource {
    const url = new URL(sessionUrl, document.baseURI).href;
    let source = shared.get(url);
    if (!source) shared.set(url, (source = new SessionSource(url)));
    return source;
  }

  /** A client that reaches the relay with this session. */
  async client(): Promise<AppClient> {
    const grant = await this.grant();
    this.#client ??= new AppClient({
      baseUrl: new URL(grant.relay_url, this.url).href,
      credential: async () => (await this.grant()).token,
    });
    return this.#client;
  }

  /** A valid grant, asking the session endpoint when there is none or it is about to expire. */
  grant(): Promise<SessionGrant> {
    const now = Date.now() / 1000;
    if (this.#grant && this.#grant.expires_at - REFRESH_MARGIN_SECONDS > now) return Promise.resolve(this.#grant);
    this.#pending ??= this.#fetchGrant().finally(() => (this.#pending = undefined));
    return this.#pending;
  }

  async #fetchGrant(): Promise<SessionGrant> {
    let response: Response;
    try {
      response = await fetch(this.url, {
        method: 'POST',
        credentials: 'same-origin',
        headers: { 'Content-Type': 'application/json', Accept: 'application/json' },
        body: '{}',
      });
    } catch (error) {
      throw new ServiceError({ code: 'upstream_unavailable', message: `The session endpoint could not be reached (${(error as Error).message}).`, status: 0 });
    }
    if (!response.ok) throw await ServiceError.fromResponse(response);
    const body: unknown = await response.json().catch(() => undefined);
    if (!isSessionGrant(body)) {
      throw new ServiceError({ code: 'session_invalid', message: 'The session endpoint answered without a session.', status: response.status });
    }
    this.#grant = body;
    return body;
  }
}
