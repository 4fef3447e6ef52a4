/**
 * The form's requests on a host of their own: `GET` opens a form, `POST` submits it after every
 * input is checked and `before-submit` allowed it, and a form the service no longer takes (412)
 * closes in its phase, on opening and on submitting alike.
 */
import { expect, fixture, html } from '@open-wc/testing';
import { LitElement, html as litHtml } from 'lit';
import '../../../src/elements/human-input-form/define.js';
import type { FormErrorEvent, FormShownEvent, SubmittedEvent } from '../../../src/elements/human-input-form/events.js';
import { FormRequests } from '../../../src/elements/human-input-form/form-requests.js';
import { FormsController } from '../../../src/elements/human-input-form/forms.js';
import { RunStream } from '../../../src/elements/human-input-form/run-stream.js';
import type { HitlControl } from '../../../src/elements/shared/control.js';
import { SessionSource } from '../../../src/elements/shared/session.js';
import { termsFor } from '../../../src/elements/shared/terms.js';
import type { Transport } from '../../../src/client/transport.js';
import { choose, sessionUrl, startRun } from '../helpers/form.js';

class RequestsHost extends LitElement {
  formToken = '';
  draftStorage = 'none' as const;
  labels = {};
  api: Transport | undefined;
  /** What the requests did to the element: each phase it moved to, each problem it showed. */
  log: string[] = [];
  problems: [string, HitlControl | undefined][] = [];
  readonly stream = new RunStream(this, { event: () => undefined, open: () => undefined, resume: () => undefined, unavailable: () => '' });
  readonly forms: FormsController = new FormsController(this, {
    transport: () => this.api!,
    render: () => ({ allowedOrigins: [], openImage: '' }),
    expire: () => undefined,
    edited: () => undefined,
  });
  readonly requests = new FormRequests(this, this.forms, this.stream, {
    transport: () => this.api!,
    terms: () => termsFor('en'),
    set: (phase, close) => this.log.push(close ? `${phase} (closed)` : phase),
    problem: (message, control) => this.problems.push([message, control]),
  });
  override render() {
    return litHtml`${this.forms.open?.body}`;
  }
}
customElements.define('form-requests-host', RequestsHost);

/** A host showing the first form of a new `hitl-simple` run, by its token (a standalone form page). */
async function opened(token?: string): Promise<RequestsHost> {
  const el = await fixture<RequestsHost>(html`<form-requests-host></form-requests-host>`);
  el.api = await SessionSource.for(sessionUrl('hitl-simple')).transport();
  el.formToken = token ?? (await startRun('hitl-simple')).form.form_token!;
  const shown: FormShownEvent[] = [];
  el.addEventListener('form-shown', (e) => shown.push(e));
  await el.requests.show(el.formToken, el.stream.signal);
  if (el.forms.open) {
    expect(shown.map((e) => e.token)).to.deep.equal([el.formToken]);
    el.requestUpdate();
    await el.updateComplete;
    choose(el.forms.open.controls.find((c) => c.name === 'choice')!, 'alpha');
  }
  return el;
}

describe('FormRequests', () => {
  it('opens a form as GET answers it, and submits it: submitted, closed as answered here, the run over for a form-token form', async () => {
    const el = await opened();
    expect(el.log).to.deep.equal(['ready']);
    expect(el.forms.open!.controls.map((c) => c.name)).to.have.members(['choice', 'comment']);
    const submitted: SubmittedEvent[] = [];
    el.addEventListener('submitted', (e) => submitted.push(e));
    await el.requests.submit(el.forms.open!, 'send');
    expect(el.log).to.deep.equal(['ready', 'submitting', 'submitted']);
    expect(submitted.map((e) => e.action)).to.deep.equal(['send']);
    expect(submitted[0]!.filled).to.not.be.undefined;
    expect(el.stream.ended).to.be.true;
    expect(el.problems).to.deep.equal([]);
    // Opened again, the form is one the service no longer takes: closed, in its phase.
    const again = await opened(el.formToken);
    expect(again.log).to.deep.equal(['taken (closed)']);
    expect(again.forms.open).to.be.undefined;
  });

  it('sends nothing while an input is at fault, or when before-submit is cancelled', async () => {
    const el = await opened();
    const comment = el.forms.open!.controls.find((c) => c.name === 'comment')!;
    comment.required = true;
    await comment.updateComplete;
    await el.requests.submit(el.forms.open!, 'send');
    expect(el.problems).to.deep.equal([[termsFor('en').fix, comment]]);
    comment.required = false;
    await comment.updateComplete;
    el.addEventListener('before-submit', (e) => e.preventDefault(), { once: true });
    await el.requests.submit(el.forms.open!, 'send');
    expect(el.log).to.deep.equal(['ready']);
    expect(el.stream.ended).to.be.false;
  });

  it('answers a submission the service no longer takes (412) with form-error and its phase, the form kept', async () => {
    const first = await opened();
    const second = await opened(first.formToken);
    await first.requests.submit(first.forms.open!, 'skip');
    const errors: FormErrorEvent[] = [];
    second.addEventListener('form-error', (e) => errors.push(e));
    await second.requests.submit(second.forms.open!, 'send');
    expect(errors.map((e) => [e.error.status, e.error.code])).to.deep.equal([[412, 'human_input_form_submitted']]);
    expect(second.log).to.deep.equal(['ready', 'submitting', 'taken']);
    expect(second.forms.open).to.not.be.undefined;
  });

  it('shows a failure that is not the service’s answer (a proxy’s 502 page) as the localized error, the form kept', async () => {
    const el = await opened();
    const realFetch = window.fetch;
    window.fetch = async (...args: Parameters<typeof fetch>) => {
      if ((args[1]?.method ?? 'GET') !== 'POST') return realFetch(...args);
      return new Response('<html><body><h1>502 Bad Gateway</h1></body></html>', { status: 502, headers: { 'Content-Type': 'text/html' } });
    };
    const errors: FormErrorEvent[] = [];
    el.addEventListener('form-error', (e) => errors.push(e));
    try {
      await el.requests.submit(el.forms.open!, 'send');
    } finally {
      window.fetch = realFetch;
    }
    expect(errors.map((e) => [e.error.status, e.error.code])).to.deep.equal([[502, 'internal_server_error']]);
    expect(errors[0]!.error.message).to.contain('502 Bad Gateway');
    expect(el.problems).to.deep.equal([[termsFor('en').error, undefined]]);
    expect(el.log).to.deep.equal(['ready', 'submitting', 'ready']);
    expect(el.forms.open).to.not.be.undefined;
  });
});
