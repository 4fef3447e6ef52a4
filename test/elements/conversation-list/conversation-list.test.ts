import { expect, fixture, html, oneEvent } from '@open-wc/testing';
import '../../../src/elements/conversation-list/define.js';
import type { ConversationList } from '../../../src/elements/conversation-list/conversation-list.js';
import type { CompanionEvent } from '../../../src/elements/shared/companion-events.js';
import type { Conversation } from '../../../src/protocol/index.js';
import { expectNoAxeViolations } from '../helpers/axe.js';
import { until } from '../helpers/wait.js';
import { pressSpace } from '../helpers/input.js';
import { chat, conversations, newUser } from './chat-app.js';

const $ = <T extends Element = HTMLElement>(el: Element, selector: string) => el.shadowRoot!.querySelector<T>(selector);
const names = (el: ConversationList) => [...el.shadowRoot!.querySelectorAll('[part~=name]')].map((n) => n.textContent);
const key = (el: ConversationList, k: string) => $(el, '[part=list]')!.dispatchEvent(new KeyboardEvent('keydown', { key: k, bubbles: true }));
const settled = (el: ConversationList) => until(() => el.matches(':state(ready), :state(empty), :state(error)') && el, 'the list to settle');

describe('<conversation-list>', () => {
  it('pages through more than 100 conversations with "Load more"', async () => {
    const url = await newUser();
    // The last one alone, after the rest: within a parallel batch, which finishes last is a race.
    const created = [...(await conversations(url, 104, 15)), await chat(url, 'Question 105')];
    const el = await fixture<ConversationList>(html`<conversation-list session-url=${url} page-size="100"></conversation-list>`);
    await until(() => el.conversations.length === 100, 'the first page');
    expect(el.hasMore).to.equal(true);
    // Most recently active first: the last one created leads.
    expect(el.conversations[0]!.id).to.equal(created[104]!.conversation_id);
    $<HTMLButtonElement>(el, '[part=more]')!.click();
    await until(() => el.conversations.length === 105, 'the second page');
    await el.updateComplete;
    expect(el.hasMore).to.equal(false);
    expect(!$(el, '[part=more]')).to.equal(true);
    expect(new Set(el.conversations.map((c) => c.id))).to.deep.equal(new Set(created.map((c) => c.conversation_id)));
  });

  /** A list of `count` conversations, a page of one, and "Load more" pressed from the keyboard. */
  async function moreFromKeyboard(count: number): Promise<{ el: ConversationList; more: HTMLButtonElement }> {
    const url = await newUser();
    await conversations(url, count, count);
    const el = await fixture<ConversationList>(html`<conversation-list session-url=${url} page-size="1"></conversation-list>`);
    await until(() => el.conversations.length === 1, 'the first page');
    await el.updateComplete;
    const more = $<HTMLButtonElement>(el, '[part=more]')!;
    more.focus();
    await pressSpace();
    return { el, more };
  }

  it('keeps the keyboard focus on "Load more" while the next page loads', async () => {
    const { el, more } = await moreFromKeyboard(3);
    await until(() => el.matches(':state(loading)') || el.conversations.length === 2, 'the press to take');
    await el.updateComplete;
    expect(el.shadowRoot!.activeElement).to.equal(more, 'while loading');
    await until(() => el.conversations.length === 2 && el.matches(':state(ready)'), 'the second page');
    await el.updateComplete;
    expect(el.shadowRoot!.activeElement).to.equal(more, 'after');
  });

  it('keeps the keyboard focus in the element when "Load more" goes with the last page', async () => {
    const { el } = await moreFromKeyboard(2);
    await until(() => el.conversations.length === 2 && el.matches(':state(ready)'), 'the last page');
    await el.updateComplete;
    expect(!$(el, '[part=more]')).to.equal(true);
    expect(document.activeElement).to.equal(el);
    expect(el.shadowRoot!.activeElement).to.equal($(el, '[part=container]'));
  });

  it('loads the next pages as the end scrolls into view with infinite-scroll', async () => {
    const url = await newUser();
    await conversations(url, 30, 15);
    const el = await fixture<ConversationList>(
      html`<conversation-list session-url=${url} page-size="8" infinite-scroll style="--hitl-list-max-height: 6rem"></conversation-list>`,
    );
    await until(() => el.conversations.length >= 8, 'the first page');
    for (let i = 0; i < 10 && el.hasMore; i++) {
      await el.updateComplete;
      $(el, '[part=more]')?.scrollIntoView();
      await until(() => el.conversations.length >= 8 * (i + 2) || !el.hasMore, 'the next page');
    }
    expect(el.conversations.length).to.equal(30);
    expect(el.hasMore).to.equal(false);
  });

  it('offers the four sort orders', async () => {
    const url = await newUser();
    const [a, b, c] = await conversations(url, 3);
    // Renaming A makes it the most recently active.
    await (await import('../../../src/elements/shared/session.js')).SessionSource.for(url)
      .transport()
      .then((api) => api.json('POST', `/conversations/${a!.conversation_id}/name`, { json: { name: 'Alpha' } }));
    const el = await fixture<ConversationList>(html`<conversation-list session-url=${url}></conversation-list>`);
    const ids = () => el.conversations.map((x) => x.id);
    const [A, B, C] = [a!, b!, c!].map((x) => x.conversation_id);
    await settled(el);
    expect(ids()).to.deep.equal([A, C, B]);
    const select = $<HTMLSelectElement>(el, '[part=sort] select')!;
    expect([...select.options].map((o) => o.textContent)).to.deep.equal(['Recently active', 'Least recently active', 'Newest', 'Oldest']);
    for (const [sort, expected] of [
      ['updated_at', [B, C, A]],
      ['-created_at', [C, B, A]],
      ['created_at', [A, B, C]],
    ] as const) {
      select.value = sort;
      select.dispatchEvent(new Event('change'));
      await el.updateComplete;
      await until(() => el.sortBy === sort && el.matches(':state(ready)') && el.conversations.length === 3, `sort ${sort}`);
      expect(ids()).to.deep.equal(expected);
      expect(el.getAttribute('sort-by')).to.equal(sort);
    }
  });

  it('is a listbox driven by the keyboard: move, select, rename with F2, delete with Delete', async () => {
    const url = await newUser();
    const made = await conversations(url, 3);
    const el = await fixture<ConversationList>(html`<conversation-list session-url=${url}></conversation-list>`);
    await settled(el);
    const list = $(el, '[part=list]')!;
    expect(list.getAttribute('role')).to.equal('listbox');
    expect(list.getAttribute('aria-activedescendant')).to.equal('o0');
    await expectNoAxeViolations(el);

    key(el, 'End');
    await el.updateComplete;
    expect(list.getAttribute('aria-activedescendant')).to.equal('o2');
    key(el, 'ArrowUp');
    await el.updateComplete;
    expect(list.getAttribute('aria-activedescendant')).to.equal('o1');
    const chosen = oneEvent(el, 'conversation-selected') as Promise<CompanionEvent<Conversation>>;
    key(el, 'Enter');
    expect((await chosen).detail.id).to.equal(made[1]!.conversation_id);
    await el.updateComplete;
    expect(el.selected).to.equal(made[1]!.conversation_id);
    expect($(el, '#o1')!.getAttribute('aria-selected')).to.equal('true');
    expect($(el, '#o0')!.getAttribute('aria-selected')).to.equal('false');

    key(el, 'F2');
    const input = await until(() => $<HTMLInputElement>(el, '[part=name-input]'), 'the rename input');
    await until(() => el.shadowRoot!.activeElement === input, 'focus in the rename input');
    input.value = 'Shipping question';
    const renamed = oneEvent(el, 'conversation-renamed') as Promise<CompanionEvent<Conversation>>;
    $<HTMLButtonElement>(el, '[part=rename-form] button[data-primary]')!.click();
    expect((await renamed).detail.name).to.equal('Shipping question');
    await el.updateComplete;
    // Renamed, it is the most recently active: first under the default sort, and still the active option.
    expect(names(el)[0]).to.equal('Shipping question');
    expect(list.getAttribute('aria-activedescendant')).to.equal('o0');
    expect($(el, '[part=status]')!.textContent).to.equal('Saved.');
    await until(() => el.shadowRoot!.activeElement === list, 'focus back on the list');

    // A cancelled delete changes nothing; a confirmed one removes the conversation upstream too.
    key(el, 'Home');
    key(el, 'Delete');
    await el.updateComplete;
    expect($(el, '[part=confirm]')!.textContent).to.contain(`Delete “${el.conversations[0]!.name}”?`);
    expect($(el, '[part=status]')!.textContent).to.equal('', 'the earlier "Saved." is gone');
    await expectNoAxeViolations(el);
    const veto = (e: Event) => e.preventDefault();
    el.addEventListener('before-conversation-delete', veto, { once: true });
    $<HTMLButtonElement>(el, '[part=confirm] button[data-primary]')!.click();
    await el.updateComplete;
    expect(el.conversations.length).to.equal(3);
    const deleted = oneEvent(el, 'conversation-deleted') as Promise<CompanionEvent<Conversation>>;
    $<HTMLButtonElement>(el, '[part=confirm] button[data-primary]')!.click();
    const gone = (await deleted).detail.id;
    expect(el.conversations.map((c) => c.id)).to.not.include(gone);
    await el.reload();
    expect(el.conversations.map((c) => c.id)).to.not.include(gone);
    expect(el.conversations.length).to.equal(2);
  });

  it('starts the keyboard on the chosen conversation, so Rename and Delete act on it, after a reload too', async () => {
    const url = await newUser();
    // Most recently active first: made[0] is listed last.
    const made = await conversations(url, 3);
    const el = await fixture<ConversationList>(html`<conversation-list session-url=${url} selected=${made[0]!.conversation_id}></conversation-list>`);
    await settled(el);
    await el.updateComplete;
    const list = $(el, '[part=list]')!;
    expect(list.getAttribute('aria-activedescendant')).to.equal('o2');
    expect($(el, '#o2')!.getAttribute('part')).to.equal('option option-selected option-active');
    key(el, 'Delete');
    await el.updateComplete;
    expect($(el, '[part=confirm]')!.textContent).to.contain(`Delete “${el.conversations[2]!.name}”?`);
    $<HTMLButtonElement>(el, '[part=confirm] button:not([data-primary])')!.click();
    // The host chooses another: the keyboard follows it.
    el.selected = made[2]!.conversation_id;
    await el.updateComplete;
    expect(list.getAttribute('aria-activedescendant')).to.equal('o0');
    el.selected = made[1]!.conversation_id;
    await el.reload();
    await el.updateComplete;
    expect(list.getAttribute('aria-activedescendant')).to.equal('o1');
    // The ring on the chosen row is inside it, in the colour of its text (the accent would not show on the accent).
    const row = getComputedStyle($(el, '#o1')!);
    expect(row.outlineColor).to.equal(row.color);
    expect(row.outlineOffset).to.equal('-3px');
    list.focus();
    if (list.matches(':focus-visible')) expect(getComputedStyle($(el, '#o1')!).outlineColor).to.equal(row.color);
  });

  it('keeps a name being typed when the host reloads, and reloads once the rename closes', async () => {
    const url = await newUser();
    await conversations(url, 2);
    const el = await fixture<ConversationList>(html`<conversation-list session-url=${url}></conversation-list>`);
    await settled(el);
    key(el, 'F2');
    const input = await until(() => $<HTMLInputElement>(el, '[part=name-input]'), 'the rename input');
    input.value = 'Half typed';
    // The demo reloads the list after every reply, as a host would.
    await chat(url, 'A reply meanwhile');
    await el.reload();
    await el.updateComplete;
    expect($<HTMLInputElement>(el, '[part=name-input]')).to.equal(input);
    expect(input.value).to.equal('Half typed');
    expect(el.conversations.length).to.equal(2);
    input.dispatchEvent(new KeyboardEvent('keydown', { key: 'Escape', bubbles: true, composed: true }));
    await until(() => el.conversations.length === 3 && el.matches(':state(ready)'), 'the reload that waited');
  });

  it('says a failure in the language the page has now, not the one it had when the failure came', async () => {
    const url = await newUser();
    const realFetch = window.fetch;
    window.fetch = async (...args: Parameters<typeof fetch>) => {
      const [target] = args;
      if (!/\/conversations\?/.test(String(target instanceof Request ? target.url : target))) return realFetch(...args);
      return new Response('<html><body><h1>502 Bad Gateway</h1></body></html>', { status: 502, headers: { 'Content-Type': 'text/html' } });
    };
    try {
      const box = await fixture<HTMLElement>(html`<div lang="en"><conversation-list session-url=${url}></conversation-list></div>`);
      const el = box.firstElementChild as ConversationList;
      await settled(el);
      expect($(el, '[part=error]')!.textContent).to.equal('Something went wrong.');
      box.setAttribute('lang', 'ja');
      // Nothing watches an ancestor's lang: the element's next render (any reason) reads it.
      el.requestUpdate();
      await until(() => $(el, '[part=error]')!.textContent === 'エラーが発生しました。', 'the error line in Japanese');
    } finally {
      window.fetch = realFetch;
    }
  });

  it('says what went wrong in the page language when the answer is not the service’s (a proxy’s 502 page)', async () => {
    const url = await newUser();
    const realFetch = window.fetch;
    let release: () => void = () => undefined;
    const held = new Promise<void>((resolve) => (release = resolve));
    window.fetch = async (...args: Parameters<typeof fetch>) => {
      const [target] = args;
      if (!/\/conversations\?/.test(String(target instanceof Request ? target.url : target))) return realFetch(...args);
      await held;
      return new Response('<html><body><h1>502 Bad Gateway</h1></body></html>', { status: 502, headers: { 'Content-Type': 'text/html' } });
    };
    try {
      const box = await fixture<HTMLElement>(html`<div lang="ja"><conversation-list session-url=${url}></conversation-list></div>`);
      const el = box.firstElementChild as ConversationList;
      const errors: { code: string; message: string; status: number }[] = [];
      el.addEventListener('companion-error', (e) => errors.push(e.detail));
      // The listing fails once the Japanese terms are in.
      await until(() => $(el, '[part=sort]')!.textContent!.includes('並べ替え'), 'the Japanese terms');
      release();
      await settled(el);
      // Worded at each render: the form's Japanese terms (a file of their own) may come after the failure.
      await until(() => $(el, '[part=error]')!.textContent === 'エラーが発生しました。', 'the Japanese error line');
      // The event keeps what came, for the developer.
      expect(errors).to.have.length(1);
      expect(errors[0]).to.include({ code: 'internal_server_error', status: 502 });
      expect(errors[0]!.message).to.contain('502 Bad Gateway');
    } finally {
      release();
      window.fetch = realFetch;
    }
  });

  it('↓ past the last loaded option loads the next page and moves into it', async () => {
    const url = await newUser();
    await conversations(url, 5);
    const el = await fixture<ConversationList>(html`<conversation-list session-url=${url} page-size="3"></conversation-list>`);
    await settled(el);
    const list = $(el, '[part=list]')!;
    key(el, 'End');
    await el.updateComplete;
    expect(list.getAttribute('aria-activedescendant')).to.equal('o2');
    key(el, 'ArrowDown');
    await until(() => list.getAttribute('aria-activedescendant') === 'o3', 'the first option of the next page to be active');
    expect(el.conversations.length).to.equal(5);
  });

  it('renames and deletes with its buttons, and hides them when readonly', async () => {
    const url = await newUser();
    await conversations(url, 1);
    const el = await fixture<ConversationList>(html`<conversation-list session-url=${url}></conversation-list>`);
    await settled(el);
    $<HTMLButtonElement>(el, '[part=rename]')!.click();
    const input = await until(() => $<HTMLInputElement>(el, '[part=name-input]'), 'the rename input');
    input.value = 'Renamed by click';
    input.form!.requestSubmit();
    await until(() => names(el)[0] === 'Renamed by click', 'the new name');
    $<HTMLButtonElement>(el, '[part=del]')!.click();
    await el.updateComplete;
    $<HTMLButtonElement>(el, '[part=confirm] button[data-primary]')!.click();
    await until(() => el.matches(':state(empty)'), 'the empty state');
    // What was done, then what is left, in one announcement.
    expect($(el, '[part~=empty]')!.textContent).to.equal('Deleted. No conversations yet.');

    el.readonly = true;
    await chat(url, 'One more');
    await el.reload();
    expect(el.conversations.length).to.equal(1);
    expect(!$(el, '[part=rename]')).to.equal(true);
    expect(!$(el, '[part=del]')).to.equal(true);
  });

  it('shows loading, empty and error states, and recovers with retry', async () => {
    const url = await newUser();
    const el = await fixture<ConversationList>(html`<conversation-list session-url=${url}></conversation-list>`);
    expect(el.matches(':state(loading)')).to.equal(true);
    expect($(el, '[part=list]')!.getAttribute('aria-busy')).to.equal('true');
    const line = $(el, '[role=status]');
    await settled(el);
    expect(el.matches(':state(empty)')).to.equal(true);
    // Said once, and announced: by the status line that said "Loading…" (a live region inserted
    // with its text is not reliably announced), which takes the `empty` part name too.
    expect($(el, '[part~=empty]')).to.equal(line);
    expect(line!.textContent).to.equal('No conversations yet.');
    expect(el.shadowRoot!.querySelectorAll('[role=status]').length).to.equal(1);
    await expectNoAxeViolations(el);

    const broken = await fixture<ConversationList>(html`<conversation-list session-url="/api/session?app=no-such-app"></conversation-list>`);
    const errors: unknown[] = [];
    broken.addEventListener('companion-error', (e) => errors.push(e.detail)); // typed through HTMLElementEventMap
    await settled(broken);
    expect(broken.matches(':state(error)')).to.equal(true);
    expect($(broken, '[part=error]')!.getAttribute('role')).to.equal('alert');
    expect($(broken, '[part=error]')!.textContent).to.contain('no-such-app');
    expect($(broken, '[part=status]')!.textContent).to.equal('', 'no "Loading…" beside the error');
    // Pressed from the keyboard, the button goes with the error: the focus stays in the element.
    $<HTMLButtonElement>(broken, '[part=retry]')!.focus();
    await pressSpace();
    await until(() => errors.length === 2, 'the retry to fail again');
    expect(document.activeElement).to.equal(broken);
    expect(broken.shadowRoot!.activeElement).to.equal($(broken, '[part=container]'));
    broken.sessionUrl = url;
    await until(() => broken.matches(':state(empty)'), 'recovery');
    expect(!$(broken, '[part=error]')).to.equal(true);
    expect(!$(broken, '[part=retry]')).to.equal(true);
  });

  it('shows relative times in the page language and applies the app settings', async () => {
    const url = await newUser();
    await conversations(url, 1);
    const el = await fixture<ConversationList>(html`<conversation-list session-url=${url}></conversation-list>`);
    await settled(el);
    const time = $(el, '[part=time]')!;
    const seconds = el.conversations[0]!.updated_at - Date.now() / 1000;
    expect([new Intl.RelativeTimeFormat('en', { numeric: 'auto' }).format(Math.round(seconds), 'second'), 'now']).to.include(time.textContent);
    expect(time.getAttribute('datetime')).to.equal(new Date(el.conversations[0]!.updated_at * 1000).toISOString());
    // The Chatbot app's `chat_color_theme`, with a readable text colour on it.
    await until(() => $(el, '[part=container]')!.getAttribute('style')?.includes('#0E9F6E'), 'the theme');
    expect($(el, '[part=container]')!.getAttribute('style')).to.contain('--hitl-site-contrast:#000');

    const ja = await fixture<HTMLElement>(html`<div lang="ja"><conversation-list session-url=${url}></conversation-list></div>`);
    const inJa = ja.querySelector('conversation-list')!;
    await settled(inJa);
    await until(() => $(inJa, '[part=sort]')!.textContent!.includes('並べ替え'), 'the Japanese terms');
    expect($(inJa, '[part=time]')!.textContent).to.match(/秒|今/);
    const zh = await fixture<HTMLElement>(html`<div lang="zh-CN"><conversation-list session-url=${url}></conversation-list></div>`);
    await settled(zh.querySelector('conversation-list')!);
    await until(() => $(zh.querySelector('conversation-list')!, '[part=list]')!.getAttribute('aria-label') === '对话', 'the Chinese terms');
  });
});
