/** The form's small controllers, each on a host of its own: countdown, status line, landmark names, locale, focus (the session's is in `shared/session-controller.test.ts`). */
import { expect, fixture, html } from '@open-wc/testing';
import { LitElement, html as litHtml } from 'lit';
import type { SiteSettings } from '../../../src/protocol/index.js';
import { Countdown, duration } from '../../../src/elements/human-input-form/countdown.js';
import { FocusController } from '../../../src/elements/human-input-form/focus.js';
import { Landmark } from '../../../src/elements/human-input-form/landmark.js';
import { StatusLine } from '../../../src/elements/human-input-form/status-line.js';
import { LocaleController } from '../../../src/elements/shared/locale-controller.js';
import { until } from '../helpers/wait.js';

class Host extends LitElement {
  updates = 0;
  expired = 0;
  heading = '';
  fallback = '';
  readonly countdown = new Countdown(this, () => this.expired++);
  readonly status = new StatusLine<string>(this, 'loading', ['loading', 'waiting'], 60);
  readonly landmark = new Landmark(this, () => this.heading);
  dependent = { updates: 0, addController() {}, removeController() {}, requestUpdate() { this.updates++; }, updateComplete: Promise.resolve(true) };
  readonly locale = new LocaleController(this, () => ({ default_language: this.fallback }) as SiteSettings, () => [this.dependent]);
  override requestUpdate(...args: Parameters<LitElement['requestUpdate']>): void {
    this.updates++;
    super.requestUpdate(...args);
  }
}
customElements.define('controllers-host', Host);

class FocusHost extends LitElement {
  readonly focusing = new FocusController(this);
  override render() {
    return litHtml`<button id="a">a</button><button id="b" focus>b</button>`;
  }
}
customElements.define('focus-host', FocusHost);
const host = () => fixture<Host>(html`<controllers-host></controllers-host>`);

describe('Countdown', () => {
  it('renders each second, expires at the expiry, and clears its timers when the host leaves', async () => {
    const el = await host();
    el.countdown.set(Date.now() / 1000 + 1.2);
    expect(el.countdown.left).to.be.within(0.5, 1.3);
    await until(() => el.expired > 0, 'the expiry', 4000);
    el.remove();
    const { updates, expired } = el;
    await new Promise((r) => setTimeout(r, 1300));
    expect([el.updates, el.expired]).to.deep.equal([updates, expired]);
    el.countdown.set(null);
    expect(el.countdown.left).to.equal(0);
  });

  it('says time as minutes and seconds under an hour, else hours or days', () => {
    expect(duration(299.2, 'en')).to.equal('5:00');
    expect(duration(5 * 3600, 'en')).to.equal('5 hours');
    expect(duration(2 * 86400, 'en')).to.equal('2 days');
  });
});

describe('StatusLine', () => {
  it('says every lasting phase in order, each for its time, and skips a passing one', async () => {
    const el = await host();
    el.status.say('ready');
    expect(el.status.said).to.equal('ready');
    el.status.say('submitted');
    el.status.say('waiting');
    el.status.say('finished');
    expect(el.status.said).to.equal('ready');
    await until(() => el.status.said === 'submitted', 'submitted');
    await until(() => el.status.said === 'finished', 'finished');
  });
});

describe('Landmark', () => {
  it('numbers a second landmark of the same name, and the others follow a change of name', async () => {
    const a = await host();
    const b = await host();
    a.heading = b.heading = 'Approval';
    a.requestUpdate();
    b.requestUpdate();
    await Promise.all([a.updateComplete, b.updateComplete]);
    expect([a.landmark.nth, b.landmark.nth]).to.deep.equal([1, 2]);
    a.heading = 'Other';
    a.requestUpdate();
    await a.updateComplete;
    await b.updateComplete;
    expect([a.landmark.nth, b.landmark.nth]).to.deep.equal([1, 1]);
  });
});

describe('LocaleController', () => {
  it("reads the nearest lang, else the app's default_language, and tells its dependents when it changes", async () => {
    const el = await host();
    expect(el.locale.locale).to.equal('en');
    const before = el.dependent.updates;
    el.setAttribute('lang', 'ja');
    el.requestUpdate();
    await until(() => el.locale.terms.retry !== 'Try again', 'the Japanese terms');
    await el.updateComplete;
    expect(el.locale.locale).to.equal('ja');
    expect(el.dependent.updates).to.be.greaterThan(before);
    el.removeAttribute('lang');
    el.fallback = 'zh-Hans';
    await until(() => el.locale.locale === 'zh-Hans', 'the fallback locale');
  });
});

describe('FocusController', () => {
  const focused = (el: FocusHost) => el.shadowRoot!.activeElement?.id ?? '';

  it('follows the state to its focus element only once the user acted, and focuses what it is told to', async () => {
    const el = await fixture<FocusHost>(html`<focus-host></focus-host>`);
    el.focusing.follow();
    el.requestUpdate();
    await el.updateComplete;
    await new Promise((r) => setTimeout(r, 20));
    expect(focused(el)).to.equal('');
    el.focusing.acted = true;
    el.focusing.follow();
    el.requestUpdate();
    await until(() => focused(el) === 'b', 'the focus element');
    el.focusing.set('#a');
    el.requestUpdate();
    await until(() => focused(el) === 'a', 'the selector');
    el.focusing.set(el.shadowRoot!.querySelector<HTMLElement>('#b')!);
    el.requestUpdate();
    await until(() => focused(el) === 'b', 'the element');
    // Once: the next render leaves focus where it is.
    el.shadowRoot!.querySelector<HTMLElement>('#a')!.focus();
    el.requestUpdate();
    await el.updateComplete;
    await new Promise((r) => setTimeout(r, 20));
    expect(focused(el)).to.equal('a');
  });
});
