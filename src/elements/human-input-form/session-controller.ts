/**
 * The element's session: the relay it reaches through the page's shared `SessionSource`, and
 * the app's web settings (`/site`: its title, default language and accent colour). Without the
 * settings the element keeps its own defaults.
 */
import type { ReactiveControllerHost } from 'lit';
import type { Transport } from '../../client/transport.js';
import type { SiteSettings } from '../../protocol/index.js';
import { SessionSource } from '../shared/session.js';
import { themeStyle } from '../shared/site-settings.js';

export class SessionController {
  /** The relay, once the session is there. */
  api: Transport | undefined;
  /** The app's web settings, once they came. */
  site: SiteSettings | undefined;
  readonly #host: ReactiveControllerHost;

  constructor(host: ReactiveControllerHost) {
    this.#host = host;
  }

  /** The app's accent (and the text colour on it) as a style for the host's container ('' when it is no colour). */
  get theme(): string {
    return themeStyle(this.site);
  }

  /**
   * Gets the session of `sessionUrl`, then the app's settings beside what follows; undefined
   * when `signal` was aborted meanwhile (a part failed to load, or the element left).
   */
  async open(sessionUrl: string, signal: AbortSignal): Promise<Transport | undefined> {
    const session = SessionSource.for(sessionUrl);
    const api = (this.api = await session.transport());
    if (signal.aborted) return undefined;
    session.site().then(
      (site) => {
        this.site = site;
        this.#host.requestUpdate();
      },
      () => undefined,
    );
    return api;
  }
}
