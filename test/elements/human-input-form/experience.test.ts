/** Languages, theming and keyboard-only use. */
import { expect, fixture, html } from '@open-wc/testing';
import { sendKeys } from '@web/test-runner-commands';
import type { HumanInputForm } from '../../../src/elements/human-input-form/human-input-form.js';
import { expectNoAxeViolations } from '../helpers/axe.js';
import { $, action, control, hasState, inner, mount, sessionUrl, statusText } from '../helpers/form.js';
import { until } from '../helpers/wait.js';
import { pasteFiles, typeKeys } from '../helpers/input.js';

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

  it('reads English throughout, Intl included, when the wanted language has no terms', async () => {
    // German ships no terms: the words fall back to English, and so must the numbers and units.
    const el = await mount({ lang: 'de' });
    expect($(el, '[part~=container]')!.getAttribute('lang')).to.equal('en');
    expect($(el, '[part~=countdown]')!.textContent).to.match(/^Time left: [23](\.\d)? days$/);
    const screenshot = control(el, 'screenshot')!;
    const picker = inner<HTMLInputElement>(screenshot, '[type=file]')!;
    const transfer = new DataTransfer();
    transfer.items.add(new File(['x'.repeat(74)], 'shot.png', { type: 'image/png' }));
    picker.files = transfer.files;
    picker.dispatchEvent(new Event('change'));
    await screenshot.updateComplete;
    expect(inner(screenshot, '[part~=file-size]')!.textContent).to.equal('74 bytes');
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
    await typeKeys('From the keyboard');
    await sendKeys({ press: 'Tab' });
    expect(el.shadowRoot!.activeElement).to.equal(action(el, 'Send'));
    await sendKeys({ press: 'Enter' });
    await until(() => hasState(el, 'finished'), 'the run to finish');
    expect(control(el, 'choice')).to.be.null;
    await until(() => el.shadowRoot!.activeElement === $(el, '[part~=status]'), 'focus on the status');
    expect($(el, '[part~=filled] [part~=content]')!.textContent).to.contain('alpha').and.contain('From the keyboard');
    before.remove();
  });

  it('tells assistive tech that a file input is required, and when it is invalid', async () => {
    const el = await mount();
    const group = inner(control(el, 'screenshot')!, '[part~=files]')!;
    // The accessible description: the text of the elements aria-describedby names, hidden or not.
    const description = () =>
      group
        .getAttribute('aria-describedby')!
        .split(' ')
        .map((id) => group.getRootNode() instanceof ShadowRoot && (group.getRootNode() as ShadowRoot).getElementById(id)?.textContent?.trim())
        .filter(Boolean)
        .join(' ');
    expect(group.getAttribute('role')).to.equal('group');
    expect(description()).to.equal('Required Accepted: jpg, jpeg, png, webp, gif, svg.');
    expect(group.getAttribute('aria-invalid')).to.equal('false');
    action(el, 'Approve').click();
    await until(() => group.getAttribute('aria-invalid') === 'true', 'the invalid state');
    expect(description()).to.equal('Required Accepted: jpg, jpeg, png, webp, gif, svg. This field is required.');
    // An optional file input says nothing of the kind.
    const optional = await fixture<HTMLElement>(html`<hitl-file name="f" label="F"></hitl-file>`);
    expect(optional.shadowRoot!.getElementById('required')).to.be.null;
    await expectNoAxeViolations(el);
  });

  it('keeps every control readable on a dark page', async () => {
    const root = document.documentElement;
    const saved = [root.style.colorScheme, document.body.style.background, document.body.style.color];
    Object.assign(root.style, { colorScheme: 'dark' });
    Object.assign(document.body.style, { background: '#0b0f17', color: '#e5e7eb' });
    try {
      const el = await mount();
      const styles = await mount({ app: 'hitl-styles' });
      // Problems shown, a file row, a link: every kind of text the form has.
      action(el, 'Approve').click();
      const reports = control(el, 'reports')!;
      inner<HTMLInputElement>(reports, '[part~=url-input]')!.value = 'https://example.com/report.pdf';
      inner<HTMLButtonElement>(reports, '[part~=url-button]')!.click();
      pasteFiles(inner(control(el, 'screenshot')!, '[part~=files]')!, new File(['x'.repeat(74)], 'shot.png', { type: 'image/png' }));
      await until(() => control(el, 'screenshot')!.value, 'the upload');
      await el.updateComplete;
      const area = inner(control(el, 'summary')!, 'textarea')!;
      // The fields pair a dark background with light text, from the page's color-scheme.
      expect(getComputedStyle(area).backgroundColor).not.to.equal('rgb(255, 255, 255)');
      // Light text: each engine has its own dark FieldText (white in Chromium, #fbfbfe in Firefox).
      expect(Math.min(...getComputedStyle(area).color.match(/\d+/g)!.slice(0, 3).map(Number))).to.be.above(200);
      for (const form of [el, styles]) await expectNoAxeViolations(form);
    } finally {
      [root.style.colorScheme, document.body.style.background, document.body.style.color] = saved as [string, string, string];
    }
  });

  it('names each form landmark uniquely, even two forms of the same step', async () => {
    const page = await fixture<HTMLElement>(html`<div>
      <human-input-form session-url=${sessionUrl('hitl-simple')} lang="en"></human-input-form>
      <human-input-form session-url=${sessionUrl('hitl-simple')} lang="en"></human-input-form>
    </div>`);
    const [first, second] = [...page.querySelectorAll('human-input-form')];
    await until(() => hasState(first!, 'ready') && hasState(second!, 'ready'), 'both forms');
    await Promise.all([first!.updateComplete, second!.updateComplete]);
    expect($(first!, 'form')!.getAttribute('aria-labelledby')).to.equal('title');
    expect($(second!, 'form')!.getAttribute('aria-label')).to.equal('Quick question (2)');
    // The visible title stays the node title.
    expect($(second!, '#title')!.textContent).to.equal('Quick question');
    await expectNoAxeViolations(page);
  });

  it('announces every state in a live region, with no axe violations on a form of every input type', async () => {
    const el = await mount();
    expect($(el, '[part~=status]')!.getAttribute('role')).to.equal('status');
    expect($(el, '[part~=countdown]')!.getAttribute('role')).to.equal('timer');
    expect($(el, 'form')!.getAttribute('aria-labelledby')).to.equal('title');
    await expectNoAxeViolations(el);
  });
});
