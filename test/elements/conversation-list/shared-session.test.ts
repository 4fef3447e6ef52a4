import { expect, fixture, html } from '@open-wc/testing';
import '../../../src/elements/define-all.js';
import { until } from '../helpers/wait.js';
import { chat, newUser } from './chat-app.js';

/** Requests this page made whose URL matches `pattern`. */
const requests = (pattern: RegExp) => performance.getEntriesByType('resource').filter((e) => pattern.test(e.name)).length;

describe('companions sharing a session-url', () => {
  it('share one session and one /site fetch, and all take the app theme and language from it', async () => {
    const url = await newUser();
    const { conversation_id, message_id } = await chat(url, 'Hello');
    const user = new URL(url, location.href).searchParams.get('user')!;
    const sessions = () => requests(new RegExp(`/api/session\\?.*user=${user}`));
    expect(sessions()).to.equal(1);
    const box = await fixture<HTMLElement>(html`<div>
      <conversation-list session-url=${url}></conversation-list>
      <conversation-variables session-url=${url} conversation-id=${conversation_id}></conversation-variables>
      <message-feedback session-url=${url} message-id=${message_id} conversation-id=${conversation_id}></message-feedback>
      <tts-player session-url=${url} message-id=${message_id}></tts-player>
    </div>`);
    const elements = [...box.children] as HTMLElement[];
    const container = (el: HTMLElement) => el.shadowRoot!.querySelector('[part=container]')!;
    await until(() => elements.every((el) => container(el).getAttribute('style')?.includes('#0E9F6E')), 'the theme on every element');
    await until(() => box.querySelector('conversation-variables')!.matches(':state(ready)'), 'the variables');
    expect(sessions()).to.equal(1);
    const relay = new URL((await (await import('../../../src/elements/shared/session.js')).SessionSource.for(url).grant()).relay_url, new URL(url, location.href)).href;
    expect(requests(new RegExp(`^${relay.replace(/[.?]/g, '\\$&')}/site$`))).to.equal(1);
    // No lang attribute above them: the app's default_language (en-US) is theirs.
    if (!document.documentElement.closest('[lang]')) for (const el of elements) expect(container(el).getAttribute('lang')).to.equal('en-US');
  });
});
