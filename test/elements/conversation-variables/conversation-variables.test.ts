import { expect, fixture, html } from '@open-wc/testing';
import '../../../src/elements/conversation-variables/define.js';
import type { ConversationVariables } from '../../../src/elements/conversation-variables/conversation-variables.js';
import type { CompanionEvent } from '../../../src/elements/shared/companion-events.js';
import type { ConversationVariable } from '../../../src/protocol/index.js';
import { expectNoAxeViolations } from '../helpers/axe.js';
import { until } from '../helpers/wait.js';
import { chat, newUser } from '../conversation-list/chat-app.js';

const $ = <T extends Element = HTMLElement>(el: Element, selector: string) => el.shadowRoot!.querySelector<T>(selector);
const settled = (el: ConversationVariables) => until(() => el.matches(':state(ready), :state(empty), :state(error)') && el, 'the variables');
const editorOf = <T extends HTMLElement = HTMLInputElement>(el: ConversationVariables, name: string) =>
  $<T>(el, `#v-${el.variables.find((v) => v.name === name)!.id}`)!;
const errorOf = (el: ConversationVariables, name: string) => $(el, `#e-${el.variables.find((v) => v.name === name)!.id}`);
const saveOf = (el: ConversationVariables, name: string) => editorOf(el, name).closest('form')!.querySelector('button')!;

async function open(pageSize = 20): Promise<ConversationVariables> {
  const url = await newUser();
  const { conversation_id } = await chat(url, 'Hello');
  const el = await fixture<ConversationVariables>(
    html`<conversation-variables session-url=${url} conversation-id=${conversation_id} page-size=${pageSize}></conversation-variables>`,
  );
  await settled(el);
  return el;
}

describe('<conversation-variables>', () => {
  it('keeps what was typed and not saved through a reload, for that conversation only', async () => {
    const el = await open();
    const typeInto = (target: HTMLInputElement | HTMLTextAreaElement, value: string) => {
      target.value = value;
      target.dispatchEvent(new Event('input', { bubbles: true, composed: true }));
    };
    typeInto(editorOf<HTMLTextAreaElement>(el, 'customer_name'), 'Half typed');
    editorOf(el, 'is_vip').click();
    const wasVip = editorOf(el, 'is_vip').checked;
    // A retry, a filter or the host reloads: the list is fetched again and drawn anew.
    await el.reload();
    await el.updateComplete;
    expect(editorOf<HTMLTextAreaElement>(el, 'customer_name').value).to.equal('Half typed');
    expect(editorOf(el, 'is_vip').checked).to.equal(wasVip);
    // Another conversation's variables start from the service's values.
    const other = await chat(el.sessionUrl, 'Another');
    const first = el.conversationId;
    el.conversationId = other.conversation_id;
    await el.updateComplete;
    const listed = (name: string) => el.matches(':state(ready)') && el.variables.some((v) => v.name === name) && editorOf<HTMLTextAreaElement>(el, name);
    await until(() => listed('customer_name'), 'the other conversation');
    await el.updateComplete;
    expect(editorOf<HTMLTextAreaElement>(el, 'customer_name').value).to.not.equal('Half typed');
    // Back again, the draft is there; once saved, the service's value stands.
    el.conversationId = first;
    await el.updateComplete;
    await until(() => (listed('customer_name') || undefined)?.value === 'Half typed', 'the draft back');
    saveOf(el, 'customer_name').click();
    await until(() => el.variables.find((v) => v.name === 'customer_name')!.value === 'Half typed', 'the save');
    await el.reload();
    await el.updateComplete;
    expect(editorOf<HTMLTextAreaElement>(el, 'customer_name').value).to.equal('Half typed');
  });

  it('shows each variable with an editor fitted to its value_type', async () => {
    const el = await open();
    expect(el.variables.length).to.equal(12);
    const kind = (name: string) => {
      const editor = editorOf<HTMLElement>(el, name);
      return editor.localName === 'input' ? (editor as HTMLInputElement).type : editor.localName;
    };
    expect(kind('customer_name')).to.equal('textarea');
    expect(kind('order_count')).to.equal('number');
    expect(kind('is_vip')).to.equal('checkbox');
    expect(kind('api_token')).to.equal('password');
    expect(kind('preferences')).to.equal('textarea');
    expect(kind('scores')).to.equal('textarea');
    expect(kind('last_upload')).to.equal('ul');
    expect(kind('documents')).to.equal('ul');
    expect(editorOf(el, 'order_count').value).to.equal('3');
    expect(editorOf(el, 'is_vip').checked).to.equal(true);
    expect(editorOf(el, 'api_token').value).to.equal('sk-demo-7f3a91');
    expect(JSON.parse(editorOf<HTMLTextAreaElement>(el, 'preferences').value)).to.deep.equal({ language: 'en', newsletter: true });
    expect(JSON.parse(editorOf<HTMLTextAreaElement>(el, 'contacts').value)).to.deep.equal([{ name: 'Grace Hopper', role: 'support' }]);
    // Files are read only: their names, no save button.
    expect(editorOf(el, 'last_upload').textContent!.trim()).to.equal('invoice-2041.pdf');
    expect(!editorOf(el, 'documents').closest('form')!.querySelector('button')).to.equal(true);
    // Each editor is labelled by the variable's name and described by its description.
    const label = el.shadowRoot!.querySelector(`label[for="${editorOf(el, 'order_count').id}"]`)!;
    expect(label.textContent).to.equal('order_count');
    expect(editorOf(el, 'order_count').getAttribute('aria-describedby')).to.match(/^d-/);
    await expectNoAxeViolations(el);
  });

  it('saves edits of every editable kind', async () => {
    const el = await open();
    const changes: ConversationVariable[] = [];
    el.addEventListener('variable-changed', (e) => changes.push((e as CompanionEvent<ConversationVariable>).detail));
    const said: string[] = [];
    const save = async (name: string, edit: () => void) => {
      edit();
      saveOf(el, name).click();
      await until(() => changes.some((c) => c.name === name), `the save of ${name}`);
      await el.updateComplete;
      said.push($(el, '[part=status]')!.textContent!);
    };
    await save('customer_name', () => (editorOf<HTMLTextAreaElement>(el, 'customer_name').value = 'Grace'));
    await save('order_count', () => (editorOf(el, 'order_count').value = '4.5'));
    await save('is_vip', () => editorOf(el, 'is_vip').click());
    await save('api_token', () => (editorOf(el, 'api_token').value = 'sk-new'));
    await save('preferences', () => (editorOf<HTMLTextAreaElement>(el, 'preferences').value = '{"language": "ja"}'));
    await save('tags', () => (editorOf<HTMLTextAreaElement>(el, 'tags').value = '["gold"]'));
    // Every save is announced: the status line changes each time (a zero-width space alternates), reading "Saved.".
    expect(said.map((text) => text.replace('\u200b', ''))).to.deep.equal(Array(6).fill('Saved.'));
    expect(said.every((text, i) => i === 0 || text !== said[i - 1])).to.equal(true);

    await el.reload();
    const value = (name: string) => el.variables.find((v) => v.name === name)!.value;
    expect(value('customer_name')).to.equal('Grace');
    expect(JSON.parse(value('order_count') as string)).to.equal(4.5);
    expect(JSON.parse(value('is_vip') as string)).to.equal(false);
    expect(value('api_token')).to.equal('sk-new');
    expect(JSON.parse(value('preferences') as string)).to.deep.equal({ language: 'ja' });
    expect(JSON.parse(value('tags') as string)).to.deep.equal(['gold']);
  });

  it("shows the service's type-mismatch error at the field, keeping what was typed", async () => {
    const el = await open();
    const errors: { code: string; message: string; status: number }[] = [];
    el.addEventListener('companion-error', (e) => errors.push((e as CompanionEvent<(typeof errors)[0]>).detail));
    const editor = editorOf<HTMLTextAreaElement>(el, 'scores');
    editor.value = '["high", "low"]';
    saveOf(el, 'scores').click();
    await until(() => errorOf(el, 'scores'), 'the field error');
    expect(errorOf(el, 'scores')!.textContent).to.equal("Type mismatch: variable 'scores' expects array[number], but got array[string] type");
    expect(errors[0]).to.include({ code: 'bad_request', status: 400 });
    expect(editor.getAttribute('aria-invalid')).to.equal('true');
    expect(editor.getAttribute('aria-describedby')).to.contain(errorOf(el, 'scores')!.id);
    expect(editor.value).to.equal('["high", "low"]');
    await until(() => el.shadowRoot!.activeElement === editor, 'focus on the field');
    expect(!$(el, '[part=error]')).to.equal(true);
    await expectNoAxeViolations(el);

    // An empty number never leaves the browser either.
    editorOf<HTMLInputElement>(el, 'order_count').value = '';
    saveOf(el, 'order_count').click();
    await el.updateComplete;
    expect(errorOf(el, 'order_count')!.textContent).to.equal('Enter a number.');
    expect(errors.length).to.equal(1);

    // JSON that does not parse never leaves the browser.
    editorOf<HTMLTextAreaElement>(el, 'preferences').value = '{language: ja';
    saveOf(el, 'preferences').click();
    await el.updateComplete;
    expect(errorOf(el, 'preferences')!.textContent).to.equal('Enter valid JSON.');
    expect(errors.length).to.equal(1, 'no request for the empty number or the bad JSON');

    // A good value clears the error.
    editor.value = '[1, 2]';
    saveOf(el, 'scores').click();
    await until(() => !errorOf(el, 'scores'), 'the error to clear');
    expect(editor.getAttribute('aria-invalid')).to.equal('false');
  });

  it('filters by name, shows a refused filter at the filter, and pages', async () => {
    const el = await open(5);
    expect(el.variables.length).to.equal(5);
    $<HTMLButtonElement>(el, '[part=more]')!.click();
    await until(() => el.variables.length === 10, 'the second page');
    $<HTMLButtonElement>(el, '[part=more]')!.click();
    await until(() => el.variables.length === 12 && !el.hasMore, 'the last page');

    const input = $<HTMLInputElement>(el, '[part=filter] input')!;
    input.value = 'cons';
    input.dispatchEvent(new Event('input'));
    await until(() => el.filter === 'cons', 'the debounced filter');
    await el.updateComplete;
    await settled(el);
    expect(el.variables.map((v) => v.name)).to.deep.equal(['consents']);

    // Characters the service never accepts are refused here, without a request; the listing stays.
    const errors: unknown[] = [];
    el.addEventListener('companion-error', (e) => errors.push(e.detail));
    input.value = 'a b';
    input.dispatchEvent(new Event('input'));
    await until(() => $(el, '#e-filter'), 'the filter error');
    expect($(el, '#e-filter')!.textContent).to.equal('Use letters, digits, “.”, “_” and “-” only.');
    // Not where the focus is (the filter's input names it only), so announced as it appears.
    expect($(el, '#e-filter')!.getAttribute('role')).to.equal('alert');
    expect(input.getAttribute('aria-invalid')).to.equal('true');
    expect(el.filter).to.equal('cons');
    expect(errors).to.deep.equal([]);

    // What only the service refuses is shown at the filter in its words.
    input.value = 'xp_cmd';
    input.dispatchEvent(new Event('input'));
    await until(() => $(el, '#e-filter')?.textContent?.includes('invalid characters: xp_'), 'the service’s refusal');
    expect(errors.length).to.equal(1);

    el.filter = 'nothing_like_this';
    await el.updateComplete;
    await settled(el);
    expect($(el, '[part~=empty]')!.textContent).to.equal('No variables.');
  });

  it('asks for a conversation when it has none', async () => {
    const url = await newUser();
    const el = await fixture<ConversationVariables>(html`<conversation-variables session-url=${url} lang="ja"></conversation-variables>`);
    await settled(el);
    await until(() => $(el, '[part~=empty]')!.textContent === '会話を選ぶと変数が表示されます。', 'the Japanese terms');
    await expectNoAxeViolations(el);
  });
});
