/** The one session controller of the form and the companions: relay, `/site`, theme and the app's locale fallback. */
import { expect, fixture, html } from '@open-wc/testing';
import { LitElement } from 'lit';
import { SessionSource } from '../../../src/elements/shared/session.js';
import { SessionController } from '../../../src/elements/shared/session-controller.js';
import { sessionUrl } from '../helpers/form.js';
import { until } from '../helpers/wait.js';

class SessionHost extends LitElement {
  updates = 0;
  readonly session = new SessionController(this);
  override requestUpdate(...args: Parameters<LitElement['requestUpdate']>): void {
    this.updates++;
    super.requestUpdate(...args);
  }
}
customElements.define('session-host', SessionHost);
const host = () => fixture<SessionHost>(html`<session-host></session-host>`);

describe('SessionController', () => {
  it('opens the relay of a session and then reads the app settings', async () => {
    const el = await host();
    const session = el.session;
    const api = await session.open(sessionUrl('hitl-simple'), new AbortController().signal);
    expect(api?.baseUrl).to.match(/^http/);
    await until(() => session.site, 'the app settings');
    expect(session.theme === '' || session.theme.startsWith('--hitl-site-accent:')).to.be.true;
    const aborted = new AbortController();
    aborted.abort();
    expect(await session.open(sessionUrl('hitl-simple'), aborted.signal)).to.be.undefined;
  });

  it('shares the page’s session of the URL: the same relay the SessionSource has', async () => {
    const el = await host();
    const url = sessionUrl('hitl-simple');
    expect(await el.session.transport(url)).to.equal(await SessionSource.for(url).transport());
    expect(el.session.api).to.equal(await SessionSource.for(url).transport());
  });

  it('applies the settings of the session it follows, renders again, and forgets those of one it left', async () => {
    const el = await host();
    const before = el.updates;
    el.session.settings(sessionUrl('hitl-light'));
    await until(() => el.session.site, 'the app settings');
    expect(el.updates).to.be.greaterThan(before);
    // The accent with black text on it: one contrast rule for every element.
    expect(el.session.theme).to.equal('--hitl-site-accent:#FACA15;--hitl-site-contrast:#000');
    // Another session: the old settings go at once, and a late answer for the first is dropped.
    el.session.settings(sessionUrl('hitl-ja'));
    expect(el.session.site).to.be.undefined;
    await until(() => el.session.site, 'the other app settings');
    expect(el.session.site!.default_language).to.equal('ja-JP');
    el.session.settings('');
    expect([el.session.site, el.session.theme]).to.deep.equal([undefined, '']);
    await SessionSource.for(sessionUrl('hitl-ja')).site();
    await new Promise((r) => setTimeout(r, 20));
    expect(el.session.site).to.be.undefined;
  });

  it('falls back to the app’s default language when no lang is nearer, else English', async () => {
    const el = await host();
    expect(el.session.locale).to.equal('en');
    el.session.settings(sessionUrl('hitl-ja'));
    await until(() => el.session.site, 'the app settings');
    expect(el.session.locale).to.equal('ja-JP');
    el.lang = 'zh-CN';
    expect(el.session.locale).to.equal('zh-CN');
  });
});
