import { expect, fixture, html, oneEvent } from '@open-wc/testing';
import '../../../src/elements/message-feedback/define.js';
import type { FeedbackDetail, MessageFeedback } from '../../../src/elements/message-feedback/message-feedback.js';
import type { CompanionEvent } from '../../../src/elements/shared/companion-events.js';
import { expectNoAxeViolations } from '../helpers/axe.js';
import { until } from '../helpers/wait.js';
import { pressSpace } from '../helpers/input.js';
import { sendKeys } from '@web/test-runner-commands';
import { chat, newUser } from '../conversation-list/chat-app.js';
import { SessionSource } from '../../../src/elements/shared/session.js';

const $ = <T extends Element = HTMLButtonElement>(el: Element, selector: string) => el.shadowRoot!.querySelector<T>(selector)!;
const idle = (el: MessageFeedback) => until(() => !el.matches(':state(sending)') && el, 'the feedback to be sent');

/** A fresh element for the same message that reads the recorded feedback from the service. */
async function recorded(url: string, conversationId: string, messageId: string): Promise<string> {
  const el = await fixture<MessageFeedback>(
    html`<message-feedback session-url=${url} conversation-id=${conversationId} message-id=${messageId}></message-feedback>`,
  );
  await until(() => el.matches(':state(liked), :state(disliked), :state(unrated)'), 'the read');
  return el.rating;
}

/** A liked message's element with its comment form open. */
async function likedWithCommentForm(question: string): Promise<{ el: MessageFeedback; input: HTMLTextAreaElement }> {
  const url = await newUser();
  const { message_id } = await chat(url, question);
  const el = await fixture<MessageFeedback>(html`<message-feedback session-url=${url} message-id=${message_id}></message-feedback>`);
  $(el, '[part=like]').click();
  await until(() => el.rating === 'like', 'the like');
  await el.updateComplete;
  $(el, '[part=comment]').click();
  return { el, input: await until(() => el.shadowRoot!.querySelector<HTMLTextAreaElement>('[part=comment-input]'), 'the comment form') };
}

describe('<message-feedback>', () => {
  it('likes, revokes and dislikes with a comment, as recorded by the service', async () => {
    const url = await newUser();
    const { conversation_id, message_id } = await chat(url, 'Do you ship abroad?');
    const el = await fixture<MessageFeedback>(html`<message-feedback session-url=${url} message-id=${message_id}></message-feedback>`);
    expect(el.matches(':state(unrated)')).to.equal(true);
    expect($(el, '[part=like]').getAttribute('aria-label')).to.equal('Like');
    expect($(el, '[part=like]').getAttribute('aria-pressed')).to.equal('false');
    await expectNoAxeViolations(el);

    const liked = oneEvent(el, 'feedback-changed') as Promise<CompanionEvent<FeedbackDetail>>;
    $(el, '[part=like]').click();
    expect((await liked).detail).to.deep.equal({ rating: 'like' });
    await el.updateComplete;
    expect(el.rating).to.equal('like');
    expect(el.getAttribute('rating')).to.equal('like');
    expect(el.matches(':state(liked)')).to.equal(true);
    expect($(el, '[part=like]').getAttribute('aria-pressed')).to.equal('true');
    expect($(el, '[part=status]').textContent).to.equal('Thanks for your feedback.');
    expect(await recorded(url, conversation_id, message_id)).to.equal('like');

    // Pressing it again takes the like back (rating null).
    const revoked = oneEvent(el, 'feedback-changed') as Promise<CompanionEvent<FeedbackDetail>>;
    $(el, '[part=like]').click();
    expect((await revoked).detail).to.deep.equal({ rating: null });
    await idle(el);
    expect(el.matches(':state(unrated)')).to.equal(true);
    expect($(el, '[part=status]').textContent).to.equal('Feedback removed.');
    expect(await recorded(url, conversation_id, message_id)).to.equal('');

    $(el, '[part=dislike]').click();
    await until(() => el.rating === 'dislike', 'the dislike');
    await el.updateComplete;
    $(el, '[part=comment]').click();
    const input = await until(() => el.shadowRoot!.querySelector<HTMLTextAreaElement>('[part=comment-input]'), 'the comment form');
    await until(() => el.shadowRoot!.activeElement === input, 'focus in the comment');
    await expectNoAxeViolations(el);
    input.value = 'The answer was out of date.';
    const before = oneEvent(el, 'before-feedback') as Promise<CompanionEvent<FeedbackDetail>>;
    const commented = oneEvent(el, 'feedback-changed') as Promise<CompanionEvent<FeedbackDetail>>;
    $(el, '[part=send]').click();
    expect((await before).detail).to.deep.equal({ rating: 'dislike', content: 'The answer was out of date.' });
    expect((await commented).detail.content).to.equal('The answer was out of date.');
    await el.updateComplete;
    expect(!el.shadowRoot!.querySelector('[part=comment-form]')).to.equal(true);
    // The form closed; its opener has the keyboard focus back.
    await until(() => el.shadowRoot!.activeElement === $(el, '[part=comment]'), 'focus back on Add a comment');
    expect(await recorded(url, conversation_id, message_id)).to.equal('dislike');
  });

  it('is loading, not unrated, from its first render until it has read the recorded rating', async () => {
    const url = await newUser();
    const { conversation_id, message_id } = await chat(url, 'Rated before?');
    await (await SessionSource.for(url).transport()).json('POST', `/messages/${message_id}/feedbacks`, { json: { rating: 'like' } });
    // The element first asks the app's mode (`/info`, not yet asked on this session), then reads
    // the rating: it must not claim "no feedback" while either is on its way.
    const el = await fixture<MessageFeedback>(
      html`<message-feedback session-url=${url} conversation-id=${conversation_id} message-id=${message_id}></message-feedback>`,
    );
    expect(el.matches(':state(unrated)'), 'unrated before the read').to.equal(false);
    expect(el.matches(':state(loading)')).to.equal(true);
    await until(() => el.matches(':state(liked)'), 'the recorded like');
  });

  it('keeps the keyboard focus on the pressed button while the rating is sent', async () => {
    const url = await newUser();
    const { message_id } = await chat(url, 'Focus?');
    const el = await fixture<MessageFeedback>(html`<message-feedback session-url=${url} message-id=${message_id}></message-feedback>`);
    const like = $(el, '[part=like]');
    like.focus();
    const liked = oneEvent(el, 'feedback-changed');
    await pressSpace();
    await until(() => el.matches(':state(sending)') || el.rating === 'like', 'the press to take');
    expect(el.shadowRoot!.activeElement).to.equal(like, 'while sending');
    expect((await liked).detail.rating).to.equal('like'); // typed through HTMLElementEventMap
    await idle(el);
    expect(el.shadowRoot!.activeElement).to.equal(like, 'after');
  });

  it('keeps the keyboard focus on Send while the comment is sent and when sending fails, with the text kept', async () => {
    const { el, input } = await likedWithCommentForm('Comment focus?');
    input.value = 'Kept when it fails.';
    const realFetch = window.fetch;
    let release: () => void = () => undefined;
    const held = new Promise<void>((resolve) => (release = resolve));
    // The comment's POST waits, then fails with a 500.
    window.fetch = async (...args: Parameters<typeof fetch>) => {
      const [target, init] = args;
      if (String(target instanceof Request ? target.url : target).endsWith('/feedbacks') && (init?.method ?? (target as Request).method) === 'POST') {
        await held;
        return new Response(JSON.stringify({ code: 'internal_server_error', message: 'Internal Server Error', status: 500 }), { status: 500, headers: { 'Content-Type': 'application/json' } });
      }
      return realFetch(...args);
    };
    try {
      const send = $(el, '[part=send]');
      send.focus();
      await pressSpace();
      await until(() => el.matches(':state(sending)'), 'the comment on its way');
      await el.updateComplete;
      expect(el.shadowRoot!.activeElement).to.equal(send, 'while sending');
      release();
      await idle(el);
      await el.updateComplete;
      expect($(el, '[part=error]').textContent).to.not.equal('');
      expect(el.shadowRoot!.activeElement).to.equal(send, 'after the failure');
      expect(el.shadowRoot!.querySelector<HTMLTextAreaElement>('[part=comment-input]')!.value).to.equal('Kept when it fails.');
    } finally {
      release();
      window.fetch = realFetch;
    }
  });

  it('closes the comment form on Escape and gives the focus back to its opener', async () => {
    const { el, input } = await likedWithCommentForm('Escape?');
    await until(() => el.shadowRoot!.activeElement === input, 'focus in the comment');
    await sendKeys({ press: 'Escape' });
    await until(() => !el.shadowRoot!.querySelector('[part=comment-form]'), 'the form to close');
    await until(() => el.shadowRoot!.activeElement === $(el, '[part=comment]'), 'focus back on Add a comment');
    expect($(el, '[part=comment]').getAttribute('aria-expanded')).to.equal('false');
  });

  it('says so, in the page and once in the console, when it has no session-url, and sends nothing', async () => {
    const warnings: unknown[][] = [];
    const warn = console.warn;
    console.warn = (...args: unknown[]) => warnings.push(args);
    const realFetch = window.fetch;
    let fetched = 0;
    window.fetch = (...args: Parameters<typeof fetch>) => (fetched++, realFetch(...args));
    try {
      const el = await fixture<MessageFeedback>(html`<message-feedback message-id="m1"></message-feedback>`);
      const errors: string[] = [];
      el.addEventListener('companion-error', (e) => errors.push(e.detail.code));
      await el.updateComplete;
      expect($(el, '[part=error]').getAttribute('role')).to.equal('alert');
      expect($(el, '[part=error]').textContent).to.equal('This element cannot load: its session-url attribute is missing.');
      $(el, '[part=like]').click();
      await until(() => errors.length === 1, 'the refused like');
      expect(errors).to.deep.equal(['session_url_missing']);
      expect(fetched).to.equal(0);
      expect(warnings.length).to.equal(1);
      expect(String(warnings[0]![1])).to.contain('session-url');
    } finally {
      console.warn = warn;
      window.fetch = realFetch;
    }
  });

  it('sends nothing when before-feedback is cancelled, and shows the rating the host sets', async () => {
    const url = await newUser();
    const { conversation_id, message_id } = await chat(url, 'Hello');
    const el = await fixture<MessageFeedback>(html`<message-feedback session-url=${url} message-id=${message_id} rating="dislike"></message-feedback>`);
    expect(el.matches(':state(disliked)')).to.equal(true);
    expect($(el, '[part=dislike]').getAttribute('aria-pressed')).to.equal('true');
    el.addEventListener('before-feedback', (e) => e.preventDefault(), { once: true });
    $(el, '[part=like]').click();
    await el.updateComplete;
    expect(el.rating).to.equal('dislike');
    expect(await recorded(url, conversation_id, message_id)).to.equal('');
  });

  it('shows a failure and keeps the rating it had', async () => {
    const url = await newUser();
    const el = await fixture<MessageFeedback>(
      html`<message-feedback session-url=${url} message-id="00000000-0000-4000-8000-000000000000" lang="zh-Hans"></message-feedback>`,
    );
    // Chinese terms load on first use.
    await until(() => $(el, '[part=like]').getAttribute('aria-label') === '赞', 'the Chinese terms');
    const error = oneEvent(el, 'companion-error') as Promise<CompanionEvent<{ code: string; status: number }>>;
    $(el, '[part=like]').click();
    expect((await error).detail).to.include({ code: 'not_found', status: 404 });
    await idle(el);
    expect(el.rating).to.equal('');
    expect($(el, '[part=error]').getAttribute('role')).to.equal('alert');
    expect($(el, '[part=error]').textContent).to.equal('Message Not Exists.');
    await expectNoAxeViolations(el);
  });
});
