/**
 * The session an element gets from its host backend's `session-url`, shared by every element on
 * the page that names the same URL, and refreshed shortly before it expires.
 */
import { isSessionGrant, type AppInfo, type SessionGrant, type SiteSettings } from '../../protocol/index.js';
import { Transport } from '../../client/transport.js';
import { networkError, ServiceError } from '../../client/errors.js';
import { INFO_PATH, SITE_PATH } from '../../protocol/paths.js';

/** Refresh this long before the token's expiry, so a request never leaves with a stale token. */
const REFRESH_MARGIN_SECONDS = 30;

const shared = new Map<string, SessionSource>();

export class SessionSource {
  readonly url: string;
  #grant: SessionGrant | undefined;
  #pending: Promise<SessionGrant> | undefined;
  #transport: Transport | undefined;
  readonly #asked = new Map<string, Promise<unknown>>();

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

  /**
   * The relay, reached with this session. Elements use the client's transport rather than the
   * whole `AppClient`, whose every operation would otherwise ship in the script-tag bundle.
   */
  async transport(): Promise<Transport> {
    const grant = await this.grant();
    return (this.#transport ??= new Transport({
      baseUrl: new URL(grant.relay_url, this.url).href,
      credential: async () => (await this.grant()).token,
    }));
  }

  /** The app's web settings (`GET /site`), asked once per page; a failure is asked again next time. */
  site(): Promise<SiteSettings> {
    return this.#once(SITE_PATH);
  }

  /** The app's name and mode (`GET /info`), asked once per page like the settings. */
  info(): Promise<AppInfo> {
    return this.#once(INFO_PATH);
  }

  #once<T>(path: string): Promise<T> {
    let answer = this.#asked.get(path);
    if (!answer) {
      this.#asked.set(path, (answer = this.transport().then((transport) => transport.json<T>('GET', path))));
      answer.catch(() => this.#asked.delete(path));
    }
    return answer as Promise<T>;
  }

  /** A valid grant, asking the session endpoint when there is none or it is about to expire. */
  grant(): Promise<SessionGrant> {
    if (this.#grant && this.#grant.expires_at - REFRESH_MARGIN_SECONDS > Date.now() / 1000) return Promise.resolve(this.#grant);
    return (this.#pending ??= this.#fetchGrant().finally(() => (this.#pending = undefined)));
  }

  async #fetchGrant(): Promise<SessionGrant> {
    // The page's inline snippet may have asked already, while this script loaded (a round trip
    // less before the form: README, "Ask for the session early"); it hands its answer over once.
    // A function only: HTML in the page (`<a id="hitlSession">`) names an element so, too.
    const early = globalThis.hitlSession;
    const response = await ((typeof early == 'function' && early(this.url)) || fetch(this.url, {
      method: 'POST',
      credentials: 'same-origin',
      headers: { 'Content-Type': 'application/json', Accept: 'application/json' },
      body: '{}',
    })).catch((error: unknown) => {
      throw networkError(error);
    });
    if (!response.ok) throw await ServiceError.fromResponse(response);
    const body: unknown = await response.json().catch(() => undefined);
    if (!isSessionGrant(body)) {
      throw new ServiceError({ code: 'session_invalid', message: 'The session endpoint answered without a session.', status: response.status });
    }
    return (this.#grant = body);
  }
}

declare global {
  /**
   * Set by the page's inline snippet (`sessionSnippet` in `src/relay/session-snippet.ts`): the answer of the session
   * request it sent for `sessionUrl` (absolute), once; else nothing.
   */
  var hitlSession: ((sessionUrl: string) => Promise<Response> | null | undefined) | undefined;
}
