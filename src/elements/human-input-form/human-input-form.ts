import { html, LitElement, type PropertyDeclarations, type PropertyValues, type TemplateResult } from 'lit';
import type { RunEvent } from '../../protocol/index.js';
import type { HitlControl } from '../shared/control.js';
import { said, toErrorBody } from '../shared/errors.js';
import { formParts } from '../shared/lazy.js';
import { LocaleController } from '../shared/locale-controller.js';
import { SessionController } from '../shared/session-controller.js';
import { switchState } from '../shared/states.js';
import { termsFor } from '../shared/terms.js';
import { json, list } from './attributes.js';
import { FormErrorEvent, RunEventEvent, RunFinishedEvent, TimedOutEvent, type BeforeSubmitEvent, type FormShownEvent, type SubmittedEvent } from './events.js';
import { FormRequests } from './form-requests.js';
import { FormsController } from './forms.js';
import { styles } from './human-input-form.styles.js';
import { Landmark } from './landmark.js';
import { RunStream } from './run-stream.js';
import { StatusLine } from './status-line.js';
import { FocusController } from './focus.js';
import { renderClosed, renderOpen, type Phase } from './view.js';

/**
 * Renders the form of a workflow run paused at a human-input node, submits the answer through
 * the host backend's relay, and follows the run as it resumes and pauses again.
 *
 * @summary A workflow's human-input step, embeddable anywhere.
 * @tag human-input-form
 *
 * @fires {FormShownEvent} form-shown - A form is on screen (`FormShownEvent`).
 * @fires {BeforeSubmitEvent} before-submit - Cancelable, before a submission (`BeforeSubmitEvent`).
 * @fires {SubmittedEvent} submitted - The service accepted the submission (`SubmittedEvent`); always before the run's events that follow it.
 * @fires {TimedOutEvent} timed-out - The form expired, or the run timed it out (`TimedOutEvent`).
 * @fires {RunFinishedEvent} run-finished - The run reached `workflow_finished` (`RunFinishedEvent`).
 * @fires {FormErrorEvent} form-error - A failure, with `{code, message, status}` (`FormErrorEvent`).
 * @fires {RunEventEvent} run-event - Every raw run event; replays are not repeated (`RunEventEvent`).
 *
 * @csspart container - The outer box.
 * @csspart form - The form being answered.
 * @csspart title - A form's title (the node title).
 * @csspart countdown - The time left to answer.
 * @csspart fields - The group of content, inputs and actions.
 * @csspart content - A form's Markdown content, inputs in place.
 * @csspart actions - The row of action buttons.
 * @csspart action - An action button; also `action-primary`, `action-default`, `action-accent`, `action-ghost`.
 * @csspart filled - An answered form.
 * @csspart chosen - The action chosen for it.
 * @csspart note - Why a form closed unanswered (its time ran out); it stays under the form.
 * @csspart status - The announced status line.
 * @csspart error - An error message.
 * @csspart retry - The retry button.
 * @csspart blocked-image - An image of the content not loaded (its origin is not allowed): its alt text and a link to open it.
 * @csspart label - An input's label; its other parts likewise: `input`, `input-error`, `files`, `file`, `file-name`, `file-size`, `progress`, `file-error`, `file-button`, `dropzone`, `choose`, `url`, `url-input`, `url-button`, `hint`.
 *
 * @cssproperty --hitl-accent - Accent colour (primary buttons, focus rings); default the app's `chat_color_theme`.
 * @cssproperty --hitl-accent-contrast - Text colour on the accent; default black or white, whichever reads better on the app's colour (white on the default blue).
 * @cssproperty --hitl-border-color - Borders of the box and the inputs.
 * @cssproperty --hitl-radius - Corner radius.
 * @cssproperty --hitl-padding - Padding of the box.
 * @cssproperty --hitl-background - Background of the box.
 * @cssproperty --hitl-input-background - Background of the inputs; default `Canvas`, which follows the page's `color-scheme`.
 * @cssproperty --hitl-input-color - Text colour of the inputs; default `CanvasText`.
 * @cssproperty --hitl-button-background - Background of non-primary buttons; default `Canvas`.
 * @cssproperty --hitl-button-color - Text colour of non-primary buttons; default `CanvasText`.
 * @cssproperty --hitl-font - Font shorthand.
 * @cssproperty --hitl-color - Text colour.
 * @cssproperty --hitl-muted-color - Colour of the status line, countdown and hints; default the text colour, faded.
 * @cssproperty --hitl-error-color - Colour of error messages; default a red for light or dark `color-scheme`.
 *
 * @cssstate loading - Getting a session, starting or opening the run.
 * @cssstate waiting - The run is working; nothing to answer.
 * @cssstate ready - A form can be answered.
 * @cssstate submitting - A submission is in flight.
 * @cssstate submitted - The service accepted the submission.
 * @cssstate expired - The form's time is up.
 * @cssstate timeout - The run took the form's timeout branch.
 * @cssstate taken - The form was submitted elsewhere.
 * @cssstate undrivable - The form is answered by email, not here.
 * @cssstate finished - The run finished.
 * @cssstate failed - The run failed.
 * @cssstate error - Something went wrong; a retry button is shown.
 */
export class HumanInputForm extends LitElement {
  static override styles = styles;
  static override properties: PropertyDeclarations = {
    sessionUrl: { attribute: 'session-url' },
    runId: { attribute: 'run-id' },
    formToken: { attribute: 'form-token' },
    inputs: { converter: json },
    labels: { converter: json },
    draftStorage: { attribute: 'draft-storage' },
    allowedOrigins: { attribute: 'allowed-origins', converter: list },
  };

  readonly #session = new SessionController(this);
  readonly #locale = new LocaleController(this, () => this.#session.site, () => this.#forms.open?.controls ?? []);
  readonly #stream = new RunStream(this, {
    event: (event, signal) => this.#event(event, signal),
    open: () => this.#phase === 'error' && this.#set(this.#forms.open ? 'ready' : 'waiting'),
    resume: () => void this.#connect(),
    unavailable: () => this.#locale.terms.error,
  });
  readonly #forms = new FormsController(this, {
    // What content may load: the relay's origin (the transport's base, absolute) and `allowedOrigins`.
    render: () => ({ allowedOrigins: [this.#session.api?.baseUrl ?? '', ...(this.allowedOrigins ?? [])], openImage: this.#locale.terms.openImage }),
    transport: () => this.#session.api!,
    expire: () => this.#expire(),
    // The summary of a failed check goes once every input is fine.
    edited: (controls) => this.#alert === this.#locale.terms.fix && controls.every((c) => c.checkValidity()) && this.#problem(''),
  });
  readonly #status = new StatusLine<Phase>(this, 'loading', ['loading', 'waiting', 'submitting']);
  readonly #landmark = new Landmark(this, () => (this.#forms.open ? this.#title(this.#forms.open.title) : ''));
  readonly #focus = new FocusController(this);
  readonly #requests = new FormRequests(this, this.#forms, this.#stream, {
    transport: () => this.#session.api!,
    terms: () => this.#locale.terms,
    set: (phase, close) => this.#set(phase, close),
    problem: (message, control) => this.#problem(message, control),
  });

  readonly #internals = this.attachInternals();
  #phase: Phase = 'loading';
  #alert = '';
  /** The error on screen is one a retry cannot change. */
  #final = false;

  /**
   * URL of the host backend's session endpoint (`POST`, answers `{token, expires_at, relay_url}`).
   * Required: without it the element shows an error (`form-error` code `session_url_missing`).
   */
  sessionUrl = '';
  /** Follow this run instead of starting one. */
  runId = '';
  /** Show this one form (a standalone form page) instead of following a run. */
  formToken = '';
  /** Inputs of the run the element starts. */
  inputs: Record<string, unknown> = {};
  /** Labels by input name (`output_variable_name`), over those found in the content. */
  labels: Record<string, string> = {};
  /** Where typed values wait for a reload: `local` (default), `session` or `none`. */
  draftStorage: 'local' | 'session' | 'none' = 'local';
  /**
   * Origins beside the relay's that the form's content may load images and media from
   * (`allowed-origins="https://cdn.example.com https://img.example.org"`). Nothing else is
   * requested; a blocked image shows its alt text and a link to open it.
   */
  allowedOrigins: string[] = [];

  protected override willUpdate(changed: PropertyValues<this>): void {
    if (changed.has('sessionUrl') || changed.has('runId') || changed.has('formToken')) void this.start();
  }

  /** Starts over: follows `run-id`, opens `form-token`, or starts a run with `inputs`. */
  start(): Promise<void> {
    this.#stream.reset(this.runId);
    this.#forms.reset();
    return this.#connect();
  }

  /** Checks every input, then submits the values with the action `actionId`. */
  async submit(actionId: string): Promise<void> {
    if (!this.#forms.open || this.#phase !== 'ready') return;
    this.#focus.acted = true;
    return this.#requests.submit(this.#forms.open, actionId);
  }

  /** A form's title: the node's, else the app's, else a generic one. */
  #title(title: string): string {
    return title || this.#session.site?.title || this.#locale.terms.untitled;
  }

  async #connect(again?: boolean): Promise<void> {
    if (this.#stream.ended) return;
    if (!this.sessionUrl) {
      // In English for the developer; the page shows it in the user's language.
      const message = termsFor().noSession;
      if (this.#phase !== 'error') console.warn(`<${this.localName}>`, message);
      return this.#fail({ code: 'session_url_missing', message, status: 0 });
    }
    const signal = this.#stream.restart(again);
    this.#set(this.#forms.open ? 'ready' : 'loading');
    // Fetched beside the session and the run; a part that fails to load ends this pass, with a retry.
    formParts.load().then((parts) => this.#forms.prepare(parts), () => {
      if (signal.aborted) return;
      this.#stream.abort();
      this.#fail({ code: 'part_load_failed', message: this.#locale.terms.partFailed, status: 0 });
    });
    try {
      const api = await this.#session.open(this.sessionUrl, signal);
      if (api) await (this.formToken ? this.#requests.show(this.formToken, signal) : this.#stream.follow(api, this.#stream.runId ? undefined : this.inputs || {}, signal));
    } catch (error) {
      if (!signal.aborted) this.#fail(error);
    }
  }

  /** One new run event, in order; a form being shown holds the next. */
  #event(event: RunEvent, signal: AbortSignal): unknown {
    this.dispatchEvent(new RunEventEvent(event));
    switch (event.event) {
      case 'workflow_started':
        return this.#phase === 'loading' && this.#set('waiting');
      case 'human_input_required':
        if (!event.data.form_token) return this.#set('undrivable', true);
        return this.#requests.show(event.data.form_token, signal, event.data).catch((error: unknown) => {
          // Not shown after all: a retry's replay must show it.
          this.#stream.forget(event);
          if (!signal.aborted) this.#fail(error);
        });
      case 'human_input_form_filled':
        // News of a form other than the open one (a late one, for a form already closed as
        // answered here) must not close the open form and lose what was typed in it.
        if (this.#forms.open?.node && this.#forms.open.node !== event.data.node_id) return;
        this.#forms.answered(event.data.node_title, event.data.rendered_content, event.data.action_text);
        return this.#set('waiting', true);
      case 'human_input_form_timeout':
        if (this.#phase !== 'expired') this.dispatchEvent(new TimedOutEvent(event.data.expiration_time, false));
        this.#forms.keep(true);
        return this.#set('timeout', true);
      case 'workflow_finished':
        this.#end(event.data.error ?? '', event.data.status === 'succeeded' ? 'finished' : 'failed');
        return this.dispatchEvent(new RunFinishedEvent(event.data));
      case 'error':
        // The run failed (nothing to retry here): its reason stays on screen, and `form-error` has the documented `{code, message, status}`.
        this.#end(event.message, 'failed');
        return this.dispatchEvent(new FormErrorEvent({ code: event.code, message: event.message, status: event.status }));
    }
    return undefined;
  }

  /** The run is over: an open form stays, closed, and so does the reason of a failure. */
  #end(alert: string, phase: Phase): void {
    this.#stream.ended = true;
    this.#alert = alert;
    this.#forms.keep();
    this.#set(phase, true);
  }

  /** Shows a problem with the form and takes the user to it. */
  #problem(message: string, control?: HitlControl): void {
    this.#alert = message;
    this.#focus.set(control ?? (message && '[part~=error]'));
    this.requestUpdate();
  }

  /** The open form's time is up. */
  #expire(): void {
    if (this.#phase !== 'ready') return;
    this.#set('expired');
    this.dispatchEvent(new TimedOutEvent(this.#forms.open!.def.expiration_time, true));
  }

  #fail(error: unknown): void {
    const body = toErrorBody(error);
    // A refusal that asking again cannot change (a bad id, token or input) offers no retry; nor does a start the relay
    // cannot vouch for (a run may exist with an id it never saw): asking again with the same key can never start or find it.
    this.#final = [400, 403, 404, 412].includes(body.status) || body.code === 'run_start_unknown';
    this.#set('error');
    this.#alert = said(body, this.#locale.terms.error);
    this.dispatchEvent(new FormErrorEvent(body));
  }

  /** Moves to `phase` (closing the open form when `close`), announces it, and lets focus follow. */
  #set(phase: Phase, close?: boolean): void {
    // A form whose answer the service took stays shut, whatever reconnects on the way.
    if (phase === 'ready' && this.#forms.accepted) phase = 'submitted';
    switchState(this.#internals, this.#phase, (this.#phase = phase));
    if (close) this.#forms.close();
    if (phase !== 'failed') this.#alert = '';
    this.#focus.follow();
    this.#status.say(phase);
    this.requestUpdate();
  }

  #onSubmit(e: SubmitEvent): void {
    e.preventDefault();
    void this.submit((e.submitter as HTMLButtonElement).value);
  }

  #onRetry(): void {
    this.#focus.acted = true;
    void this.#connect(true);
  }

  protected override render(): TemplateResult {
    const t = this.#locale.terms;
    const phase = this.#phase;
    return html`<div part="container" lang=${this.#locale.locale} style=${this.#session.theme}>
      ${this.#forms.closed.map((closed) => renderClosed(closed, this.#title(closed.title), t))}
      ${this.#forms.open ? renderOpen(this.#forms.open, t, phase, this.#landmark, this.#forms.countdown.left, this.#locale.locale, this.#onSubmit) : ''}
      ${this.#alert ? html`<p part="error" role="alert" tabindex="-1" ?focus=${phase === 'error'}>${this.sessionUrl ? this.#alert : t.noSession}</p>` : ''}
      ${phase === 'error' && this.sessionUrl && !this.#final ? html`<button part="retry" @click=${this.#onRetry}>${t.retry}</button>` : ''}
      <p part="status" role="status" tabindex="-1" ?focus=${phase !== 'ready' && phase !== 'error'}>${t[this.#status.said]}</p>
    </div>`;
  }
}

// Here rather than in events.ts: this module's declarations are what a define module brings, so
// importing only a define module types the events too.
declare global {
  interface HTMLElementEventMap {
    'form-shown': FormShownEvent;
    'before-submit': BeforeSubmitEvent;
    submitted: SubmittedEvent;
    'timed-out': TimedOutEvent;
    'run-finished': RunFinishedEvent;
    'form-error': FormErrorEvent;
    'run-event': RunEventEvent;
  }
}
