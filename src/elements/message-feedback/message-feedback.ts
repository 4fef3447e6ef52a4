import { html, nothing, svg, type PropertyDeclarations, type PropertyValues, type TemplateResult } from 'lit';
import { FEEDBACK_MODES, type FeedbackRating, type Message, type Page } from '../../protocol/index.js';
import { Companion } from '../shared/companion.js';
import { BeforeFeedbackEvent, FeedbackChangedEvent, type FeedbackDetail } from './events.js';
import { styles } from './message-feedback.styles.js';
import { MESSAGE_FEEDBACKS_PATH, MESSAGES_PATH } from '../../protocol/companion-paths.js';
import { pathOf } from '../../protocol/paths.js';

export type { FeedbackDetail };

/** A thumb (up; turned over by CSS for down). */
const THUMB = svg`<svg viewBox="0 0 24 24" aria-hidden="true"><path d="M1 21h4V9H1zm22-11a2 2 0 0 0-2-2h-6.3l1-4.6v-.3c0-.4-.2-.8-.5-1.1L14.2 1 7.6 7.6C7.2 8 7 8.4 7 9v10a2 2 0 0 0 2 2h9c.8 0 1.5-.5 1.8-1.2l3-7.1.2-.7z"/></svg>`;

/**
 * Like or dislike an answer, take it back, and add a comment; shows the feedback the message
 * has.
 *
 * @summary Like / dislike buttons for one message, with an optional comment.
 * @tag message-feedback
 *
 * @attr {string} session-url - URL of the host backend's session endpoint; elements naming the same URL share one session and one fetch of the app's web settings. Required: without it the element shows an error (`companion-error` code `session_url_missing`).
 *
 * @fires {BeforeFeedbackEvent} before-feedback - Cancelable, before feedback is sent; `detail` is `{rating, content}` (`rating: null` revokes) (`BeforeFeedbackEvent`).
 * @fires {FeedbackChangedEvent} feedback-changed - The service recorded it; `detail` is `{rating, content}` (`FeedbackChangedEvent`).
 * @fires {CompanionErrorEvent} companion-error - A failure, with `{code, message, status}` as `error` and `detail` (`CompanionErrorEvent`).
 *
 * @csspart container - The outer box.
 * @csspart row - The row of buttons.
 * @csspart like - The like button (`aria-pressed` when liked).
 * @csspart dislike - The dislike button.
 * @csspart comment - The button that opens the comment form.
 * @csspart comment-form - The comment form; `comment-input` its text area, `send` its button.
 * @csspart error - An error message.
 * @csspart retry - The retry button.
 * @csspart status - The announced status line.
 *
 * @cssproperty --hitl-accent - Accent colour of the chosen rating; default the app's `chat_color_theme`.
 * @cssproperty --hitl-accent-contrast - Icon colour on the accent; default black or white, whichever reads better on the app's colour (white on the default blue).
 * @cssproperty --hitl-border-color - Borders.
 * @cssproperty --hitl-radius - Corner radius.
 * @cssproperty --hitl-padding - Padding of the box.
 * @cssproperty --hitl-background - Background of the box.
 * @cssproperty --hitl-button-background - Background of buttons.
 * @cssproperty --hitl-font - Font shorthand.
 * @cssproperty --hitl-color - Text colour.
 * @cssproperty --hitl-muted-color - Colour of the status line.
 * @cssproperty --hitl-error-color - Colour of errors.
 *
 * @cssstate loading - Reading the message's current feedback.
 * @cssstate liked - The message is liked.
 * @cssstate disliked - The message is disliked.
 * @cssstate unrated - No feedback.
 * @cssstate sending - Feedback is on its way.
 * @cssstate error - Reading the current feedback failed; a retry button is shown.
 * @cssstate other-mode - The app's mode does not serve this element; it says so instead of its content.
 * @csspart other-mode - The status line then, where it says so (a part name besides `status`).
 */
export class MessageFeedback extends Companion {
  static override styles = styles;
  static override properties: PropertyDeclarations = {
    messageId: { attribute: 'message-id' },
    conversationId: { attribute: 'conversation-id' },
    rating: { reflect: true },
  };

  protected override reloadOn = ['sessionUrl', 'messageId', 'conversationId'];
  protected override modes = FEEDBACK_MODES;
  protected override otherMode = 'appNoFeedback' as const;
  #commenting = false;

  /** The message rated. */
  messageId = '';
  /** The message's conversation: when set, the element reads the message's current feedback. */
  conversationId = '';
  /** The current rating: `like`, `dislike`, or empty for none. */
  rating: FeedbackRating | '' = '';

  protected override willUpdate(changed: PropertyValues): void {
    // A rating the host sets shows at once (before a reload may read the recorded one).
    if (changed.has('rating') && this.state !== 'sending') this.#show();
    super.willUpdate(changed);
  }

  /** Reads the message's feedback (with `conversation-id`). */
  override async reload(): Promise<void> {
    this.failure = '';
    this.#commenting = false;
    this.#show();
    if (!this.conversationId || !this.messageId) return;
    const id = this.messageId;
    this.set('loading');
    try {
      const page = await (await this.api()).json<Page<Message>>('GET', MESSAGES_PATH, { query: { conversation_id: this.conversationId, limit: 100 } });
      if (id !== this.messageId) return;
      const message = page.data.find((m) => m.id === id);
      if (message) this.rating = message.feedback?.rating ?? '';
      this.#show();
    } catch (error) {
      if (id === this.messageId) this.fail(error);
    }
  }

  /** Sends a rating (`null` takes the current one back) with an optional comment. */
  async rate(rating: FeedbackRating | null, content?: string): Promise<void> {
    const detail: FeedbackDetail = content ? { rating, content } : { rating };
    if (!this.messageId || this.state === 'sending' || !this.dispatchEvent(new BeforeFeedbackEvent(detail))) return;
    const id = this.messageId;
    this.failure = '';
    this.set('sending');
    try {
      await (await this.api()).json('POST', pathOf(MESSAGE_FEEDBACKS_PATH, id), { json: detail });
      if (id !== this.messageId) return;
      this.rating = rating ?? '';
      this.#commenting = false;
      this.say(rating ? this.t.thanks : this.t.revoked);
      this.dispatchEvent(new FeedbackChangedEvent(detail));
    } catch (error) {
      if (id === this.messageId) this.fail(error, true);
    }
    this.#show();
  }

  protected override load(): Promise<void> {
    // A read is coming (after the app's mode is known): until it answers the rating is unknown,
    // not "none", so the element must not show (or let a host read) `unrated` meanwhile.
    if (this.conversationId && this.messageId) this.set('loading');
    return super.load();
  }

  #show(): void {
    this.set(this.rating ? `${this.rating}d` : 'unrated');
  }

  /** Opens or closes the comment form; the focus goes into it, or back to its opener. */
  #openComment(): void {
    this.#commenting = !this.#commenting;
    this.requestUpdate();
    void this.updateComplete.then(() => this.renderRoot.querySelector<HTMLElement>(this.#commenting ? 'textarea' : '[part=comment]')?.focus());
  }

  #toggle(rating: FeedbackRating): void {
    void this.rate(this.rating === rating ? null : rating);
  }

  #onCommentSubmit(e: SubmitEvent): void {
    e.preventDefault();
    const text = ((e.target as HTMLFormElement).elements.namedItem('c') as HTMLTextAreaElement).value.trim();
    // The form closes once sent: its opener takes the keyboard focus back.
    if (text) void this.rate(this.rating || null, text).then(() => this.updateComplete).then(() => this.#commenting || this.renderRoot.querySelector<HTMLElement>('[part=comment]')?.focus());
  }

  protected override render(): TemplateResult {
    const t = this.t;
    const busy = this.state === 'sending';
    const button = (rating: FeedbackRating) =>
      // aria-disabled, not disabled: a disabled button drops the keyboard focus of whoever pressed it (rate() ignores presses while busy).
      html`<button part=${rating} aria-pressed=${this.rating === rating} aria-label=${t[rating]} title=${t[rating]} aria-disabled=${busy} @click=${() => this.#toggle(rating)}>
        ${THUMB}
      </button>`;
    return this.frame(html`
      <div part="row">
        ${button('like')} ${button('dislike')}
        ${this.rating
          ? html`<button part="comment" aria-expanded=${this.#commenting} @click=${this.#openComment}>
              ${t.comment}
            </button>`
          : nothing}
      </div>
      ${this.rating && this.#commenting
        ? html`<form
            part="comment-form"
            @submit=${this.#onCommentSubmit}
            @keydown=${(e: KeyboardEvent) => e.key === 'Escape' && this.#openComment()}
          >
            <label>${t.comment}<textarea part="comment-input" name="c" rows="3" maxlength="2000" required></textarea></label>
            <div part="row"><button part="send" data-primary aria-disabled=${busy}>${t.send}</button></div>
          </form>`
        : nothing}
    `);
  }
}

declare global {
  interface HTMLElementEventMap {
    'before-feedback': BeforeFeedbackEvent;
    'feedback-changed': FeedbackChangedEvent;
  }
}
