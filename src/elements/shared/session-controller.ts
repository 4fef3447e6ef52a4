/**
 * An element's session, for the form and the companions alike: the relay it reaches through the
 * page's shared `SessionSource` (one per session URL, see `session.ts`), and the app's web settings
 * (`/site`: its title, default language and accent colour), fetched once per session and applied
 * the same way everywhere (`site-settings.ts`). Without the settings the element keeps its defaults.
 */
import type { ReactiveControllerHost } from 'lit';
import type { Transport } from '../../client/transport.js';
import type { SiteSettings } from '../../protocol/index.js';
import { SessionSource } from './session.js';
import { siteLocale, themeStyle } from './site-settings.js';

export class SessionController {
  /** The relay, once the session is there. */
  api: Transport | undefined;
  /** The app's web settings, once they came. */
  site: SiteSettings | undefined;
  readonly #host: ReactiveControllerHost & Element;
  /** The session URL whose settings are wanted: an answer for another one is dropped. */
  #url = '';

  constructor(host: ReactiveControllerHost & Element) {
    this.#host = host;
  }

  /** The app's accent (and the text colour on it) as a style for the host's container ('' when it is no colour). */
  get theme(): string {
    return themeStyle(this.site);
  }

  /** The host's language: the nearest `lang`, else the app's `default_language`, else English. */
  get locale(): string {
    return siteLocale(this.#host, this.site);
  }

  /** The relay of `sessionUrl`'s session (the grant is asked for, or refreshed, as needed). */
  async transport(sessionUrl: string): Promise<Transport> {
    return (this.api = await SessionSource.for(sessionUrl).transport());
  }

  /** Asks for the settings of `sessionUrl`'s session (none without one); those of another session are forgotten at once. */
  settings(sessionUrl: string): void {
    if (sessionUrl !== this.#url) this.site = undefined;
    if (!(this.#url = sessionUrl)) return;
    SessionSource.for(sessionUrl)
      .site()
      .then((site) => {
        if (sessionUrl !== this.#url) return;
        this.site = site;
        this.#host.requestUpdate();
      }, () => undefined);
  }

  /**
   * Gets the session of `sessionUrl`, then the app's settings beside what follows; undefined
   * when `signal` was aborted meanwhile (a part failed to load, or the element left).
   */
  async open(sessionUrl: string, signal: AbortSignal): Promise<Transport | undefined> {
    const api = await this.transport(sessionUrl);
    if (signal.aborted) return undefined;
    this.settings(sessionUrl);
    return api;
  }
}
