/** Languages, theming and keyboard-only use. */
import { expect, fixture, html } from '@open-wc/testing';
import { sendKeys } from '@web/test-runner-commands';
import type { HumanInputForm } from '../../../src/elements/human-input-form/human-input-form.js';
import { expectNoAxeViolations } from '../helpers/axe.js';
import { $, action, control, hasState, inner, mount, sessionUrl, statusText } from '../helpers/form.js';
import { until } from '../helpers/wait.js';

describe('<human-input-form> for every user', () => {
  it('speaks the language of the nearest lang attribute, loading it on demand', async () => {
    const ja = await mount({ app: 'hitl-simple', lang: 'ja' });
    await until(() => statusText(ja) === '入力してください。', 'Japanese');
    expect(inner(control(ja, 'choice')!, 'option')!.textContent).to.equal('選択してください…');
    expect($(ja, '[part~=container]')!.getAttribute('lang')).to.equal('ja');

    const zh = await mount({ app: 'hitl-simple', lang: 'zh-CN' });
    await until(() => statusText(zh) === '请填写表单。', 'Simplified Chinese');
    action(zh, 'Send').click();
    await until(() => inner(control(zh, 'choice')!, '[part~=error]')!.textContent === '此项为必填项。', 'a Chinese validation message');
  });

  it("uses the app's default language and colour when the page sets neither", async () => {
    const saved = document.documentElement.getAttribute('lang');
    document.documentElement.removeAttribute('lang');
    try {
      const el = await fixture<HumanInputForm>(html`<human-input-form session-url=${sessionUrl('hitl-ja')}></human-input-form>`);
      await until(() => statusText(el) === '入力してください。', 'the site language');
      expect($(el, '[part~=container]')!.getAttribute('lang')).to.equal('ja-JP');
      expect(getComputedStyle(action(el, '承認')).backgroundColor).to.equal('rgb(230, 46, 5)');
    } finally {
      if (saved !== null) document.documentElement.setAttribute('lang', saved);
    }
  });

  it("exposes every part to the page's CSS, which wins over the element's own", async () => {
    const style = document.createElement('style');
    style.textContent = `
      human-input-form::part(label) { color: rgb(1, 2, 3); }
      human-input-form::part(input) { background-color: rgb(4, 5, 6); }
      human-input-form::part(action-primary) { background-color: rgb(7, 8, 9); }
      human-input-form:state(ready) { outline: 3px solid rgb(10, 11, 12); }
      human-input-form { --hitl-border-color: rgb(13, 14, 15); }`;
    document.head.append(style);
    try {
      const el = await mount({ app: 'hitl-simple' });
      const comment = control(el, 'comment')!;
      expect(getComputedStyle(inner(comment, 'label')!).color).to.equal('rgb(1, 2, 3)');
      expect(getComputedStyle(inner(comment, 'textarea')!).backgroundColor).to.equal('rgb(4, 5, 6)');
      expect(getComputedStyle(action(el, 'Send')).backgroundColor).to.equal('rgb(7, 8, 9)');
      expect(getComputedStyle(el).outlineColor).to.equal('rgb(10, 11, 12)');
      expect(getComputedStyle(inner(comment, 'textarea')!).borderTopColor).to.equal('rgb(13, 14, 15)');
    } finally {
      style.remove();
    }
  });

  it('works with the keyboard alone, and moves focus to what changed', async () => {
    const el = await mount({ app: 'hitl-simple' });
    const before = document.createElement('button');
    before.textContent = 'before';
    el.before(before);
    before.focus();
    await sendKeys({ press: 'Tab' });
    expect(control(el, 'choice')!.matches(':focus-within')).to.be.true;
    await sendKeys({ press: 'ArrowDown' });
    await sendKeys({ press: 'Tab' });
    await sendKeys({ type: 'From the keyboard' });
    await sendKeys({ press: 'Tab' });
    expect(el.shadowRoot!.activeElement).to.equal(action(el, 'Send'));
    await sendKeys({ press: 'Enter' });
    await until(() => hasState(el, 'finished'), 'the run to finish');
    expect(control(el, 'choice')).to.be.null;
    await until(() => el.shadowRoot!.activeElement === $(el, '[part~=status]'), 'focus on the status');
    expect($(el, '[part~=filled] [part~=content]')!.textContent).to.contain('alpha').and.contain('From the keyboard');
    before.remove();
  });

  it('announces every state in a live region, with no axe violations on a form of every input type', async () => {
    const el = await mount();
    expect($(el, '[part~=status]')!.getAttribute('role')).to.equal('status');
    expect($(el, '[part~=countdown]')!.getAttribute('role')).to.equal('timer');
    expect($(el, 'form')!.getAttribute('aria-labelledby')).to.equal('title');
    await expectNoAxeViolations(el);
  });
});
