/**
 * The concerns the form and the companions share, one implementation each (`src/elements/shared/`):
 * the app's colour and its text colour, error normalisation and the error events, custom states,
 * term tables, and the companions' typed events.
 */
import { expect } from '@open-wc/testing';
import { ServiceError } from '../../../src/client/errors.js';
import { BeforeConversationDeleteEvent, ConversationDeletedEvent, ConversationRenamedEvent, ConversationSelectedEvent } from '../../../src/elements/conversation-list/events.js';
import { BeforeVariableChangeEvent, VariableChangedEvent } from '../../../src/elements/conversation-variables/events.js';
import { FormErrorEvent } from '../../../src/elements/human-input-form/events.js';
import { BeforeFeedbackEvent, FeedbackChangedEvent } from '../../../src/elements/message-feedback/events.js';
import { CompanionErrorEvent, CompanionEvent } from '../../../src/elements/shared/companion-events.js';
import { ElementErrorEvent, toErrorBody } from '../../../src/elements/shared/errors.js';
import { contrastOf, siteLocale, themeStyle } from '../../../src/elements/shared/site-settings.js';
import { switchState, toggleState } from '../../../src/elements/shared/states.js';
import { TermTables } from '../../../src/elements/shared/terms.js';
import { AutoplayBlockedEvent } from '../../../src/elements/tts-player/events.js';
import type { Conversation, ConversationVariable, SiteSettings } from '../../../src/protocol/index.js';
import { until } from '../helpers/wait.js';

const site = (settings: Partial<SiteSettings>) => settings as SiteSettings;

describe('what the form and the companions share', () => {
  it('picks black text on a light accent and white on a dark one (or one it cannot read)', () => {
    expect(contrastOf('#FACA15')).to.equal('#000');
    expect(contrastOf('#fff')).to.equal('#000');
    expect(contrastOf('#0E9F6E')).to.equal('#000');
    expect(contrastOf('#1C64F2')).to.equal('#fff');
    expect(contrastOf('#7839EE')).to.equal('#fff');
    expect(contrastOf('rebeccapurple')).to.equal('#fff');
    expect(themeStyle(site({ chat_color_theme: '#FACA15' }))).to.equal('--hitl-site-accent:#FACA15;--hitl-site-contrast:#000');
    expect(themeStyle(site({ chat_color_theme: 'not a colour;color:red' }))).to.equal('');
    expect(themeStyle(undefined)).to.equal('');
  });

  it('takes the language from the nearest lang, else the app’s default language, else English', () => {
    const outer = document.createElement('div');
    const inner = outer.appendChild(document.createElement('span'));
    expect(siteLocale(inner, site({ default_language: 'ja-JP' }))).to.equal('ja-JP');
    expect(siteLocale(inner, site({ default_language: 'not a tag!' }))).to.equal('en');
    outer.setAttribute('lang', 'zh-cn');
    expect(siteLocale(inner, site({ default_language: 'ja-JP' }))).to.equal('zh-CN');
  });

  it('reads any failure as a plain {code, message, status}', () => {
    const refused = new ServiceError({ code: 'invalid_param', message: 'Bad name', status: 400, params: 'name' });
    expect(toErrorBody(refused)).to.deep.equal({ code: 'invalid_param', message: 'Bad name', status: 400, params: 'name' });
    expect(Object.getPrototypeOf(toErrorBody(refused))).to.equal(Object.prototype);
    expect(toErrorBody({ code: 'not_found', message: 'Gone', status: 404 })).to.deep.equal({ code: 'not_found', message: 'Gone', status: 404 });
    expect(toErrorBody(new TypeError('Failed to fetch'))).to.deep.equal({ code: 'unknown', message: 'Failed to fetch', status: 0 });
    expect(toErrorBody('odd')).to.deep.equal({ code: 'unknown', message: 'odd', status: 0 });
  });

  it('dispatches form-error and companion-error from one base, the failure as `error` and `detail`', () => {
    const body = { code: 'upstream_unavailable', message: 'Down', status: 502 };
    for (const [event, type] of [
      [new FormErrorEvent(new ServiceError(body)), 'form-error'],
      [new CompanionErrorEvent(new ServiceError(body)), 'companion-error'],
    ] as const) {
      expect(event).to.be.instanceOf(ElementErrorEvent);
      expect(event.type).to.equal(type);
      expect([event.bubbles, event.composed, event.cancelable]).to.deep.equal([true, true, false]);
      expect(event.error).to.deep.equal(body);
      expect(event.detail).to.equal(event.error);
    }
    expect(FormErrorEvent.type).to.equal('form-error');
    expect(CompanionErrorEvent.type).to.equal('companion-error');
  });

  it('gives each companion event a class of its own, named by its type, `detail` what happened', () => {
    const conversation = { id: 'c1' } as Conversation;
    const variable = { id: 'v1' } as ConversationVariable;
    const cases: [CompanionEvent, string, unknown, boolean][] = [
      [new ConversationSelectedEvent(conversation), 'conversation-selected', conversation, false],
      [new ConversationRenamedEvent(conversation), 'conversation-renamed', conversation, false],
      [new BeforeConversationDeleteEvent(conversation), 'before-conversation-delete', conversation, true],
      [new ConversationDeletedEvent(conversation), 'conversation-deleted', conversation, false],
      [new BeforeVariableChangeEvent({ variable, value: 1 }), 'before-variable-change', { variable, value: 1 }, true],
      [new VariableChangedEvent(variable), 'variable-changed', variable, false],
      [new BeforeFeedbackEvent({ rating: 'like' }), 'before-feedback', { rating: 'like' }, true],
      [new FeedbackChangedEvent({ rating: null }), 'feedback-changed', { rating: null }, false],
      [new AutoplayBlockedEvent(new DOMException('no', 'NotAllowedError')), 'autoplay-blocked', undefined, false],
    ];
    for (const [event, type, detail, cancelable] of cases) {
      expect(event).to.be.instanceOf(CompanionEvent);
      expect(event.type).to.equal(type);
      expect((event.constructor as unknown as { type: string }).type).to.equal(type);
      if (detail !== undefined) expect(event.detail).to.deep.equal(detail);
      expect([event.bubbles, event.composed, event.cancelable]).to.deep.equal([true, true, cancelable]);
    }
  });

  it('switches custom states one at a time', () => {
    class StateProbe extends HTMLElement {
      readonly internals = this.attachInternals();
    }
    customElements.define('state-probe', StateProbe);
    const el = document.body.appendChild(new StateProbe());
    try {
      switchState(el.internals, '', 'loading');
      expect(el.matches(':state(loading)')).to.equal(true);
      switchState(el.internals, 'loading', 'ready');
      expect([el.matches(':state(loading)'), el.matches(':state(ready)')]).to.deep.equal([false, true]);
      toggleState(el.internals, 'streaming', true);
      switchState(el.internals, 'ready', 'error');
      expect([el.matches(':state(ready)'), el.matches(':state(error)'), el.matches(':state(streaming)')]).to.deep.equal([false, true, true]);
    } finally {
      el.remove();
    }
  });

  it('answers a term table in English until a shipped locale has loaded, then renders again', async () => {
    const en = { hello: 'Hello' };
    const tables = new TermTables(en, 'companions.');
    let updates = 0;
    const host = { requestUpdate: () => updates++ };
    expect(tables.for('ja-JP', host)).to.equal(en);
    await until(() => updates === 1, 'the Japanese table to load');
    expect(tables.for('ja-JP', host)).to.have.property('more', 'さらに読み込む');
    expect(tables.for('zh-TW', host)).to.equal(en);
    await until(() => updates === 2, 'the Chinese table to load');
    expect(tables.for('zh-TW')).to.have.property('more', '加载更多');
    tables.register('fr', { hello: 'Bonjour' });
    expect(tables.for('fr-CA')).to.deep.equal({ hello: 'Bonjour' });
    expect(tables.for('de')).to.equal(en);
  });
});
