import { html, nothing, type PropertyDeclarations, type PropertyValues, type TemplateResult } from 'lit';
import type { Query, Transport } from '../../client/transport.js';
import { CONVERSATION_MODES, type Conversation, type ConversationSort } from '../../protocol/index.js';
import { PagedCompanion } from '../shared/companion.js';
import { format } from '../shared/terms.js';
import { styles } from './conversation-list.styles.js';
import { BeforeConversationDeleteEvent, ConversationDeletedEvent, ConversationRenamedEvent, ConversationSelectedEvent } from './events.js';
import { CONVERSATION_NAME_PATH, CONVERSATION_PATH, CONVERSATIONS_PATH } from '../../protocol/companion-paths.js';
import { pathOf } from '../../protocol/paths.js';

const SORTS: ConversationSort[] = ['-updated_at', 'updated_at', '-created_at', 'created_at'];
const SORT_TERMS = ['byActive', 'byInactive', 'byNewest', 'byOldest'] as const;

/** Seconds per unit, largest first, for relative times. */
const UNITS: [Intl.RelativeTimeFormatUnit, number][] = [
  ['year', 31_557_600],
  ['month', 2_629_800],
  ['week', 604_800],
  ['day', 86_400],
  ['hour', 3600],
  ['minute', 60],
  ['second', 1],
];

/**
 * The signed-in user's conversations with a chat app, a page at a time, to pick one, rename it
 * or delete it.
 *
 * @summary A user's conversations: paged, sortable, selectable, renamable.
 * @tag conversation-list
 *
 * @attr {string} session-url - URL of the host backend's session endpoint; elements naming the same URL share one session and one fetch of the app's web settings. Required: without it the element shows an error (`companion-error` code `session_url_missing`).
 * @attr {number} page-size - Items per page, 1 to 100 (default 20).
 *
 * @fires {ConversationSelectedEvent} conversation-selected - A conversation was chosen; `detail` is the conversation (`ConversationSelectedEvent`).
 * @fires {ConversationRenamedEvent} conversation-renamed - A rename succeeded; `detail` is the renamed conversation (`ConversationRenamedEvent`).
 * @fires {BeforeConversationDeleteEvent} before-conversation-delete - Cancelable, before a delete; `detail` is the conversation (`BeforeConversationDeleteEvent`).
 * @fires {ConversationDeletedEvent} conversation-deleted - A delete succeeded; `detail` is the deleted conversation (`ConversationDeletedEvent`).
 * @fires {CompanionErrorEvent} companion-error - A failure, with `{code, message, status}` as `error` and `detail` (`CompanionErrorEvent`).
 *
 * @csspart container - The outer box.
 * @csspart sort - The sort order select (inside its `label`).
 * @csspart list - The listbox of conversations.
 * @csspart option - A conversation; also `option-selected` for the chosen one, `option-active` for the one the keyboard is on.
 * @csspart name - A conversation's name.
 * @csspart time - When it was last active (or created, when sorted by creation), relative.
 * @csspart empty - The status line in the empty state, where it says so (a part name besides `status`).
 * @csspart more - The "Load more" button.
 * @csspart row - A row of buttons (the actions, the rename form's buttons).
 * @csspart rename - The rename button; `del` the delete button.
 * @csspart rename-form - The rename form; `name-input` its text input.
 * @csspart confirm - The delete confirmation.
 * @csspart error - An error message.
 * @csspart retry - The retry button.
 * @csspart status - The announced status line.
 *
 * @cssproperty --hitl-accent - Accent colour (selection, focus rings); default the app's `chat_color_theme`.
 * @cssproperty --hitl-accent-contrast - Text colour on the accent; default black or white, whichever reads better on the app's colour (white on the default blue).
 * @cssproperty --hitl-border-color - Borders.
 * @cssproperty --hitl-radius - Corner radius.
 * @cssproperty --hitl-padding - Padding of the box.
 * @cssproperty --hitl-background - Background of the box.
 * @cssproperty --hitl-input-background - Background of inputs.
 * @cssproperty --hitl-button-background - Background of buttons.
 * @cssproperty --hitl-font - Font shorthand.
 * @cssproperty --hitl-color - Text colour.
 * @cssproperty --hitl-muted-color - Colour of times and the status line.
 * @cssproperty --hitl-error-color - Colour of errors.
 * @cssproperty --hitl-list-max-height - Height after which the list scrolls (default 24rem).
 *
 * @cssstate loading - A page is loading.
 * @cssstate ready - Conversations are listed.
 * @cssstate empty - The user has no conversations.
 * @cssstate error - Loading failed; a retry button is shown.
 * @cssstate other-mode - The app's mode does not serve this element; it says so instead of its content.
 * @csspart other-mode - The status line then, where it says so (a part name besides `status`).
 */
export class ConversationList extends PagedCompanion<Conversation> {
  static override styles = styles;
  static override properties: PropertyDeclarations = {
    sortBy: { attribute: 'sort-by', reflect: true },
    selected: { reflect: true },
    readonly: { type: Boolean },
    infiniteScroll: { attribute: 'infinite-scroll', type: Boolean },
  };

  protected override reloadOn = ['sessionUrl', 'sortBy', 'pageSize'];
  protected override modes = CONVERSATION_MODES;
  protected override otherMode = 'appNoConversations' as const;
  /** Index of the option the keyboard is on; unset, the `selected` one's (see `#index`). */
  #active?: number;
  #mode: '' | 'rename' | 'delete' = '';
  /** A reload asked for while a rename or delete was open, done when it closes. */
  #stale = false;
  #observer: IntersectionObserver | undefined;

  /** Order: `-updated_at` (default, most recently active first), `updated_at`, `-created_at` or `created_at`. */
  sortBy: ConversationSort = '-updated_at';
  /** Id of the chosen conversation. */
  selected = '';
  /** Hides rename and delete. */
  readonly = false;
  /** Loads the next page when the end of the list scrolls into view, instead of waiting for "Load more". */
  infiniteScroll = false;

  /** The conversations listed so far. */
  get conversations(): readonly Conversation[] {
    return this.items;
  }

  protected get emptyNote(): string {
    return this.t.empty;
  }

  override disconnectedCallback(): void {
    super.disconnectedCallback();
    this.#observer?.disconnect();
  }

  protected override willUpdate(changed: PropertyValues): void {
    super.willUpdate(changed);
    if (changed.has('selected')) this.#active = undefined;
  }

  /** The option the keyboard is on: the one it moved to, else the chosen one once listed (Rename and Delete act on it), else the first. */
  get #index(): number {
    return this.#active ?? Math.max(0, this.items.findIndex((c) => c.id === this.selected));
  }

  protected override updated(): void {
    this.renderRoot.querySelector('[part~=option-active]')?.scrollIntoView?.({ block: 'nearest' });
    const more = this.renderRoot.querySelector('[part=more]');
    this.#observer?.disconnect();
    if (more && this.infiniteScroll) {
      this.#observer = new IntersectionObserver((entries) => entries[0]?.isIntersecting && void this.loadMore());
      this.#observer.observe(more);
    }
  }

  /** Lists from the first page again; after the rename or delete being typed, if one is open. */
  override reload(): Promise<void> {
    // The host reloads when a conversation changes (after each reply): that must not throw away a name being typed.
    if ((this.#stale = !!this.#mode)) return Promise.resolve();
    this.#active = undefined;
    return super.reload();
  }

  /** Chooses a conversation by id (one already listed). */
  select(id: string): void {
    const index = this.items.findIndex((c) => c.id === id);
    if (index < 0) return;
    this.#active = index;
    this.selected = id;
    this.dispatchEvent(new ConversationSelectedEvent(this.items[index]!));
  }

  /** Renames a listed conversation. */
  async rename(id: string, name: string): Promise<void> {
    const renamed = await this.#act(id, async (api) => api.json<Conversation>('POST', pathOf(CONVERSATION_NAME_PATH, id), { json: { name } }));
    if (!renamed) return;
    // A rename makes the conversation the most recently active: the loaded items keep the listing's
    // order (within the same second, the renamed one counts as the later).
    const field = this.sortBy.replace('-', '') as 'created_at' | 'updated_at';
    const sign = this.sortBy.startsWith('-') ? -1 : 1;
    const later = (c: Conversation) => (field === 'updated_at' && c.id === id ? 1 : 0);
    this.items = this.items.map((c) => (c.id === id ? renamed : c)).sort((a, b) => sign * (a[field] - b[field] || later(a) - later(b)));
    this.#active = Math.max(0, this.items.findIndex((c) => c.id === id));
    this.#done(this.t.saved);
    this.dispatchEvent(new ConversationRenamedEvent(renamed));
  }

  /** Deletes a listed conversation, unless a `before-conversation-delete` listener cancels it. */
  async delete(id: string): Promise<void> {
    const target = this.items.find((c) => c.id === id);
    if (!target || !this.dispatchEvent(new BeforeConversationDeleteEvent(target))) return;
    if (!(await this.#act(id, (api) => api.json('DELETE', pathOf(CONVERSATION_PATH, id), { json: {} }).then(() => true)))) return;
    this.items = this.items.filter((c) => c !== target);
    this.#active = Math.min(this.#index, this.items.length - 1);
    if (this.selected === id) this.selected = '';
    this.#done(this.t.deleted);
    if (!this.items.length) this.set('empty');
    this.dispatchEvent(new ConversationDeletedEvent(target));
  }

  protected request(): [string, Query] {
    return [CONVERSATIONS_PATH, { sort_by: this.sortBy }];
  }

  /** Runs a rename or delete; a failure is shown and reported, and answers undefined. */
  async #act<T>(id: string, work: (api: Transport) => Promise<T>): Promise<T | undefined> {
    const run = this.run;
    try {
      const result = await work(await this.api());
      return run === this.run ? result : undefined;
    } catch (error) {
      if (run === this.run && this.items.some((c) => c.id === id)) this.fail(error, true);
      return undefined;
    }
  }

  #done(note: string): void {
    this.#mode = '';
    this.failure = '';
    if (this.#stale) void this.reload();
    this.say(note);
    this.requestUpdate();
    void this.updateComplete.then(() => this.renderRoot.querySelector<HTMLElement>('[part=list]')?.focus());
  }

  #onKey(e: KeyboardEvent): void {
    const last = this.items.length - 1;
    const at = this.#index;
    const moves: Record<string, number> = { ArrowDown: at + 1, ArrowUp: at - 1, Home: 0, End: last, PageDown: at + 10, PageUp: at - 10 };
    const current = this.items[at];
    if (e.key in moves) {
      const wasLast = at === last;
      this.#active = Math.max(0, Math.min(last, moves[e.key]!));
      // Reaching the end asks for the next page as scrolling would; ↓ past the end moves into it once it is there.
      if (e.key === 'ArrowDown' && this.#active === last && this.more) {
        void this.loadMore().then(() => {
          if (wasLast && this.#active === last && this.items.length > last + 1) {
            this.#active = last + 1;
            this.requestUpdate();
          }
        });
      }
      this.requestUpdate();
    } else if ((e.key === 'Enter' || e.key === ' ') && current) this.select(current.id);
    else if (e.key === 'F2' && current && !this.readonly) this.#open('rename');
    else if (e.key === 'Delete' && current && !this.readonly) this.#open('delete');
    else return;
    e.preventDefault();
  }

  #open(mode: 'rename' | 'delete'): void {
    this.#mode = mode;
    this.failure = '';
    this.note = '';
    this.requestUpdate();
    void this.updateComplete.then(() => this.renderRoot.querySelector<HTMLElement>('[data-focus]')?.focus());
  }

  /** Relative time of the sort field (`updated_at` unless sorted by creation). */
  #when(c: Conversation): TemplateResult {
    const at = this.sortBy.endsWith('created_at') ? c.created_at : c.updated_at;
    const diff = at - Date.now() / 1000;
    const [unit, size] = UNITS.find(([, s]) => Math.abs(diff) >= s) ?? UNITS[6]!;
    const date = new Date(at * 1000);
    return html`<time part="time" datetime=${date.toISOString()} title=${date.toLocaleString(this.locale)}
      >${new Intl.RelativeTimeFormat(this.locale, { numeric: 'auto' }).format(Math.round(diff / size), unit)}</time
    >`;
  }

  protected override render(): TemplateResult {
    const t = this.t;
    const items = this.items;
    const at = this.#index;
    const current = items[at];
    const busy = this.state === 'loading';
    return this.frame(html`
      <label part="sort"
        >${t.sortBy}
        <select @change=${(e: Event) => (this.sortBy = (e.target as HTMLSelectElement).value as ConversationSort)}>
          ${SORTS.map((s, i) => html`<option value=${s} ?selected=${s === this.sortBy}>${t[SORT_TERMS[i]!]}</option>`)}
        </select>
      </label>
      <ul
        part="list"
        role="listbox"
        tabindex="0"
        aria-label=${t.conversations}
        aria-busy=${busy}
        aria-activedescendant=${current ? `o${at}` : nothing}
        @keydown=${this.#onKey}
      >
        ${items.map(
          (c, i) =>
            html`<li
              id="o${i}"
              role="option"
              part="option${c.id === this.selected ? ' option-selected' : ''}${i === at ? ' option-active' : ''}"
              aria-selected=${c.id === this.selected}
              @click=${() => this.select(c.id)}
            >
              <span part="name">${c.name || t.untitled}</span> ${this.#when(c)}
            </li>`,
        )}
      </ul>
      ${this.renderPaging()}
      ${current && !this.readonly ? this.#renderActions(current) : nothing}
    `);
  }

  #renderActions(c: Conversation): TemplateResult {
    const t = this.t;
    const name = c.name || t.untitled;
    const cancel = html`<button type="button" @click=${() => this.#done('')}>${t.cancel}</button>`;
    if (this.#mode === 'rename') {
      return html`<form
        part="rename-form"
        @submit=${(e: SubmitEvent) => {
          e.preventDefault();
          const value = (e.target as HTMLFormElement).elements.namedItem('name') as HTMLInputElement;
          if (value.value.trim()) void this.rename(c.id, value.value.trim());
        }}
        @keydown=${(e: KeyboardEvent) => e.key === 'Escape' && this.#done('')}
      >
        <label>${t.newName} <input part="name-input" name="name" required maxlength="255" .value=${c.name} data-focus /></label>
        <div part="row"><button data-primary>${t.save}</button>${cancel}</div>
      </form>`;
    }
    if (this.#mode === 'delete') {
      return html`<div part="confirm" role="group" aria-labelledby="q" @keydown=${(e: KeyboardEvent) => e.key === 'Escape' && this.#done('')}>
        <p id="q">${format(t.confirmDelete, name)}</p>
        <div part="row"><button data-primary data-focus @click=${() => this.delete(c.id)}>${t.del}</button>${cancel}</div>
      </div>`;
    }
    return html`<div part="row">
      <button part="rename" aria-label="${t.rename}: ${name}" @click=${() => this.#open('rename')}>${t.rename}</button>
      <button part="del" aria-label="${t.del}: ${name}" @click=${() => this.#open('delete')}>${t.del}</button>
    </div>`;
  }
}

declare global {
  interface HTMLElementEventMap {
    'conversation-selected': ConversationSelectedEvent;
    'conversation-renamed': ConversationRenamedEvent;
    'before-conversation-delete': BeforeConversationDeleteEvent;
    'conversation-deleted': ConversationDeletedEvent;
  }
}
