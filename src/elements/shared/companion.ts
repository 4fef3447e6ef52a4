/**
 * What the companion elements (`<conversation-list>`, `<conversation-variables>`,
 * `<message-feedback>`, `<tts-player>`) share: the session of their `session-url` (one per URL
 * on the page) and the app's web settings through the form's `SessionController`, terms, custom
 * states, the status line and the error with its retry.
 */
import { html, LitElement, nothing, type PropertyDeclarations, type PropertyValues, type TemplateResult } from 'lit';
import type { Query, Transport } from '../../client/transport.js';
import type { AppMode, ErrorBody, Page } from '../../protocol/index.js';
import { CompanionErrorEvent } from './companion-events.js';
import { said } from './errors.js';
import { companionTerms, type CompanionTerms } from './companion-terms.js';
import { SessionSource } from './session.js';
import { SessionController } from './session-controller.js';
import { switchState } from './states.js';

/**
 * What every companion shares: the session, the app's web settings, a status line and errors.
 *
 * @fires {CompanionErrorEvent} companion-error - A failure, with `{code, message, status}` as `error` and `detail` (`CompanionErrorEvent`).
 */
export abstract class Companion extends LitElement {
  static override properties: PropertyDeclarations = { sessionUrl: { attribute: 'session-url' } };

  protected readonly session = new SessionController(this);
  protected readonly internals = this.attachInternals();
  /** The status line's text (a polite live region). */
  protected note = '';
  /** The failure the error line shows, worded at each render: terms that arrive later still apply. */
  protected failure: ErrorBody | '' = '';
  /** Properties whose change means loading again. */
  protected reloadOn: string[] = ['sessionUrl'];
  /** The app modes that serve this element (the availability table); unset when every mode does. */
  protected modes?: readonly AppMode[];
  /** What the element says, in place of its content, on an app of another mode. */
  protected otherMode?: 'appNoConversations' | 'appNoVariables' | 'appNoFeedback';
  #state = '';

  /**
   * URL of the host backend's session endpoint (`POST`, answers `{token, expires_at, relay_url}`).
   * Required: without it the element shows an error (`companion-error` code `session_url_missing`).
   */
  sessionUrl = '';

  protected get t(): CompanionTerms {
    return companionTerms(this.locale, this);
  }

  /** The nearest `lang`, else the app's `default_language`. */
  protected get locale(): string {
    return this.session.locale;
  }

  /** The custom state shown now (`:state(name)`). */
  protected get state(): string {
    return this.#state;
  }

  protected override willUpdate(changed: PropertyValues): void {
    if (changed.has('sessionUrl')) this.session.settings(this.sessionUrl);
    if (!this.sessionUrl) {
      // Said once, in the page (localized) and in the console (for the developer).
      if (changed.has('sessionUrl') || !this.hasUpdated) {
        console.warn(`<${this.localName}>`, companionTerms('en').noSession);
        this.fail(noSession(this.t.noSession), true);
      }
      return;
    }
    if (this.reloadOn.some((p) => changed.has(p))) void this.load();
  }

  /** Loads the element's data again, from the start. */
  abstract reload(): Promise<void>;

  /** Loads, unless the app's mode does not serve this element: then it says so and asks nothing. */
  protected async load(): Promise<void> {
    const url = this.sessionUrl;
    // Unknown (the relay refused `/info`): load, and let a `not_chat_app` answer say it instead.
    const mode = this.modes && (await SessionSource.for(url).info().then((info) => info.mode, () => undefined));
    if (url !== this.sessionUrl) return;
    if (mode && !this.modes!.includes(mode)) return this.#otherMode();
    return this.reload();
  }

  /** What the retry button does. */
  protected retry(): Promise<void> {
    return this.reload();
  }

  /** The session's relay. */
  protected api(): Promise<Transport> {
    return this.sessionUrl ? this.session.transport(this.sessionUrl) : Promise.reject(noSession(this.t.noSession));
  }

  /** Shows a state as a custom state (`:state(name)`), one at a time. */
  protected set(state: string): void {
    switchState(this.internals, this.#state, (this.#state = state));
    this.requestUpdate();
  }

  /** Reports a failure as a `companion-error` event and answers it as `{code, message, status}`. */
  protected report(error: unknown): ErrorBody {
    const event = new CompanionErrorEvent(error);
    this.dispatchEvent(event);
    return event.error;
  }

  /** Reports a failure and shows it on the error line; unless `quiet` (a failed action), in the `error` state with a retry. */
  protected fail(error: unknown, quiet = false): void {
    const body = this.report(error);
    if (body.code === 'not_chat_app' && this.otherMode) return this.#otherMode();
    this.failure = body;
    if (quiet) return this.requestUpdate();
    // The error line says what happened; a leftover "Loading…" beside it would contradict it.
    this.note = '';
    this.set('error');
  }

  /** Puts `text` on the status line, changed if it is there already: a live region announces only a change, and a second save is news too. */
  protected say(text: string): void {
    this.note = text && this.note === text ? text + '\u200b' : text;
  }

  #otherMode(): void {
    this.note = this.failure = '';
    this.set('other-mode');
  }

  #onRetry(): void {
    this.failure = '';
    void this.retry();
  }

  protected override update(changed: PropertyValues): void {
    const focused = (this.renderRoot as ShadowRoot).activeElement;
    super.update(changed);
    // A control that goes with this update (Try again with its error, "Load more" after the last
    // page) would drop the keyboard focus to the page: the element's box keeps it instead.
    if (focused && !focused.isConnected) (this.renderRoot.firstElementChild as HTMLElement).focus();
  }

  /** The box every companion renders: theme, language, content, error and status line. */
  protected frame(content: unknown): TemplateResult {
    return html`<div part="container" tabindex="-1" lang=${this.locale} style=${this.session.theme} ?data-inverted=${this.session.site?.chat_color_theme_inverted}>
      ${this.state === 'other-mode' ? nothing : content}
      ${this.failure ? html`<p part="error" role="alert">${said(this.failure, this.t.error)}</p>` : nothing}
      ${this.state === 'error' ? html`<button part="retry" @click=${this.#onRetry}>${this.t.retry}</button>` : nothing}
      <p part=${this.line == this.note ? 'status' : 'status ' + this.state} role="status">${this.line}</p>
    </div>`;
  }

  /**
   * What the status line says. The other-mode and empty notes are said there too (with their state
   * as a part name besides `status`): a live region announces a change of its text, not a region
   * inserted with its text.
   */
  protected get line(): string {
    return this.state == 'other-mode' ? this.t[this.otherMode!] : this.note;
  }
}

/** A companion that lists a cursor-paged resource (`{data, has_more, limit}`, `last_id`). */
export abstract class PagedCompanion<T extends { id: string }> extends Companion {
  static override properties: PropertyDeclarations = { pageSize: { attribute: 'page-size', type: Number } };

  protected items: T[] = [];
  protected more = false;
  /** Bumped by every reload, so an answer for an older one is dropped. */
  protected run = 0;
  #busy = false;

  /** Items per page, 1 to 100. */
  pageSize = 20;

  /** Whether the service has more pages. */
  get hasMore(): boolean {
    return this.more;
  }

  /** The status line when the list is empty. */
  protected abstract get emptyNote(): string;

  /** Empty, it says so after what was said last (deleting the last conversation: "Deleted. No conversations yet."). */
  protected override get line(): string {
    return this.state == 'empty' ? (this.note && this.note + ' ') + this.emptyNote : super.line;
  }

  /** Lists from the first page again. */
  override reload(): Promise<void> {
    this.run++;
    this.#busy = false;
    this.items = [];
    this.more = false;
    return this.loadMore();
  }

  /** Loads the next page. */
  async loadMore(): Promise<void> {
    const request = this.request();
    if (this.#busy || !this.sessionUrl) return;
    if (!request) {
      this.note = '';
      return this.set('empty');
    }
    const run = this.run;
    this.#busy = true;
    this.failure = '';
    this.note = this.t.loading;
    this.set('loading');
    try {
      const page = await (await this.api()).json<Page<T>>('GET', request[0], {
        query: { limit: this.pageSize, last_id: this.items.at(-1)?.id, ...request[1] },
      });
      if (run !== this.run) return;
      this.items = [...this.items, ...page.data];
      this.more = page.has_more;
      this.note = '';
      this.set(this.items.length ? 'ready' : 'empty');
    } catch (error) {
      if (run === this.run) this.failed(error);
    } finally {
      if (run === this.run) this.#busy = false;
    }
  }

  /** The listing's path and query, or undefined when there is nothing to list. */
  protected abstract request(): [string, Query] | undefined;

  protected override load(): Promise<void> {
    // Busy from the start, while the app's mode is asked.
    this.set('loading');
    return super.load();
  }

  /** A page that failed to load. */
  protected failed(error: unknown): void {
    this.fail(error);
  }

  protected renderPaging(): unknown {
    // "More" is aria-disabled while a page loads, not disabled: that would drop the focus of whoever pressed
    // it (loadMore ignores presses while busy).
    return html`${this.more ? html`<button part="more" aria-disabled=${this.state === 'loading'} @click=${() => this.loadMore()}>${this.t.more}</button>` : nothing}`;
  }
}

const noSession = (message: string): ErrorBody => ({ code: 'session_url_missing', message, status: 0 });

/** `m:ss` */
export const clock = (seconds: number): string => {
  const s = Math.floor(seconds || 0);
  return `${Math.floor(s / 60)}:${String(s % 60).padStart(2, '0')}`;
};

declare global {
  interface HTMLElementEventMap {
    'companion-error': CompanionErrorEvent;
  }
}
