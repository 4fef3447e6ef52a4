/**
 * A companion on an app whose mode does not serve it (the availability table: conversations for
 * Chatflow, Agent, Chatbot and Legacy Agent; variables for Chatflow, Chatbot and Legacy Agent;
 * feedback for Chatflow, Chatbot, Legacy Agent and Text Generator) says so in the page's
 * language, instead of the upstream's "check if your app mode matches", and asks nothing more.
 */
import { expect, fixture, html } from '@open-wc/testing';
import '../../../src/elements/conversation-list/define.js';
import '../../../src/elements/conversation-variables/define.js';
import '../../../src/elements/message-feedback/define.js';
import type { Companion } from '../../../src/elements/shared/companion.js';
import { CHATBOT, newUser } from '../conversation-list/chat-app.js';
import { until } from '../helpers/wait.js';

/** The browser fixture's Workflow app, and the default fixture's Agent app. */
const WORKFLOW = 'hitl-main';
const AGENT = '2c4e6a8b-0d1f-4a3b-9c5d-7e9f1a3b5c7d';

const said = (el: Element) => el.shadowRoot!.querySelector('[part~=other-mode]');
const requested = (path: string) => performance.getEntriesByType('resource').filter((e) => new URL(e.name).pathname.endsWith(path)).length;

/**
 * The note, said on the status line that was there before it (a live region inserted with its
 * text is not reliably announced; one whose text changes is).
 */
async function settledOnOtherMode(el: Companion): Promise<HTMLElement> {
  const line = el.shadowRoot!.querySelector('[part~=status]');
  expect(line, 'a status line from the first render').to.not.equal(null);
  await until(() => el.matches(':state(other-mode)') && said(el), 'the other-mode state');
  expect(said(el)).to.equal(line);
  expect(line!.getAttribute('role')).to.equal('status');
  return said(el) as HTMLElement;
}

describe('companions on an app whose mode does not serve them', () => {
  it('<conversation-list> on a Workflow app says the app has no conversations, and lists nothing', async () => {
    const url = await newUser(WORKFLOW);
    const before = requested('/conversations');
    const errors: Event[] = [];
    const el = await fixture<Companion>(html`<conversation-list session-url=${url} @companion-error=${(e: Event) => errors.push(e)}></conversation-list>`);
    const note = await settledOnOtherMode(el);
    expect(note.textContent).to.equal('This app has no conversations.');
    expect(el.shadowRoot!.querySelector('[part~=error], [part=list], [part=sort]')).to.equal(null);
    expect(requested('/conversations')).to.equal(before);
    expect(errors).to.deep.equal([]);
  });

  it('says it in the page’s language (ja, zh-Hans)', async () => {
    const url = await newUser(WORKFLOW);
    const ja = await fixture<Companion>(html`<div lang="ja"><conversation-list session-url=${url}></conversation-list></div>`);
    const jaNote = await settledOnOtherMode(ja.querySelector('conversation-list')!);
    await until(() => jaNote.textContent === 'このアプリには会話がありません。', 'the Japanese text');
    const zh = await fixture<Companion>(html`<div lang="zh-CN"><conversation-list session-url=${url}></conversation-list></div>`);
    const zhNote = await settledOnOtherMode(zh.querySelector('conversation-list')!);
    await until(() => zhNote.textContent === '此应用没有对话。', 'the Chinese text');
  });

  it('<conversation-variables> on an Agent app says the app has no conversation variables', async () => {
    const url = await newUser(AGENT);
    const el = await fixture<Companion>(html`<conversation-variables session-url=${url} conversation-id="c1"></conversation-variables>`);
    expect((await settledOnOtherMode(el)).textContent).to.equal('This app has no conversation variables.');
    expect(requested('/variables')).to.equal(0);
  });

  it('<message-feedback> on an Agent app says the app takes no feedback, with no rating buttons', async () => {
    const url = await newUser(AGENT);
    const el = await fixture<Companion>(html`<message-feedback session-url=${url} message-id="m1"></message-feedback>`);
    expect((await settledOnOtherMode(el)).textContent).to.equal('This app takes no message feedback.');
    expect(el.shadowRoot!.querySelector('button')).to.equal(null);
  });

  it('on an app whose mode serves them, they work as before', async () => {
    const url = await newUser(CHATBOT);
    const list = await fixture<Companion>(html`<conversation-list session-url=${url}></conversation-list>`);
    await until(() => list.matches(':state(empty), :state(ready)'), 'the list to load');
    expect(said(list)).to.equal(null);
    const feedback = await fixture<Companion>(html`<message-feedback session-url=${url} message-id="m1"></message-feedback>`);
    await until(() => feedback.shadowRoot!.querySelector('button'), 'the rating buttons');
    expect(feedback.matches(':state(other-mode)')).to.equal(false);
  });
});
