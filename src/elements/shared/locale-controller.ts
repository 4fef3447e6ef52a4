/**
 * The locale an element renders in, and its terms: the nearest `lang`, else the app's
 * `default_language` (`siteLocale`), else English; a shipped locale loads on first use (`termsFor`) and
 * the host renders again when it arrives. Elements it renders in its shadow root read the locale
 * from there: they are told to render again when it changes.
 */
import type { ReactiveController, ReactiveControllerHost } from 'lit';
import type { SiteSettings } from '../../protocol/index.js';
import { siteLocale } from './site-settings.js';
import { intlLocale, termsFor, type Terms } from './terms.js';

type Host = ReactiveControllerHost & Element;

export class LocaleController implements ReactiveController {
  readonly #host: Host;
  readonly #site: () => SiteSettings | undefined;
  readonly #dependents: () => Iterable<ReactiveControllerHost>;
  /** The locale rendered last. */
  #rendered = '';

  constructor(host: Host, site: () => SiteSettings | undefined = () => undefined, dependents: () => Iterable<ReactiveControllerHost> = () => []) {
    (this.#host = host).addController(this);
    this.#site = site;
    this.#dependents = dependents;
  }

  /** The locale in force: English until (and unless) the wanted one's terms are there, Intl included. */
  get locale(): string {
    return intlLocale(siteLocale(this.#host, this.#site()), this.#host);
  }

  get terms(): Terms {
    return termsFor(this.locale, this.#host);
  }

  hostUpdated(): void {
    const locale = this.locale;
    if (locale === this.#rendered) return;
    this.#rendered = locale;
    for (const dependent of this.#dependents()) dependent.requestUpdate();
  }
}
