/**
 * The form's two requests to the service, both at `/form/human_input/{token}`: `GET` opens a form
 * (unless the run's event carries its definition), `POST` submits it. A form the service no longer
 * takes (its answer `412`: it expired or was answered elsewhere) closes in the phase `closedAs`
 * names; any other refusal of a submission puts its message at the inputs it names, every value kept.
 */
import type { ReactiveControllerHost } from 'lit';
import type { Transport } from '../../client/transport.js';
import { requestDefinition, type ErrorBody, type FormInputValue, type HumanInputFormDefinition, type HumanInputRequest } from '../../protocol/index.js';
import { FORM_PATH, pathOf } from '../../protocol/paths.js';
import type { HitlControl } from '../shared/control.js';
import { said, toErrorBody } from '../shared/errors.js';
import { formParts } from '../shared/lazy.js';
import type { Terms } from '../shared/terms.js';
import { BeforeSubmitEvent, FormErrorEvent, FormShownEvent, SubmittedEvent } from './events.js';
import { closedAs, type FormsController, type OpenForm } from './forms.js';
import type { RunStream } from './run-stream.js';
import type { Phase } from './view.js';

/** The element: a `form-token` form has no run to follow. */
type Host = ReactiveControllerHost & EventTarget & { readonly formToken: string };

export interface FormRequestsOptions {
  /** The session's relay. */
  transport(): Transport;
  /** Moves the element to `phase`, closing the open form when `close`. */
  set(phase: Phase, close?: boolean): void;
  /** Shows a problem with the form and takes the user to it. */
  problem(message: string, control?: HitlControl): void;
  terms(): Terms;
}

const formPath = (token: string) => pathOf(FORM_PATH, token);

export class FormRequests {
  readonly #host: Host;
  readonly #forms: FormsController;
  readonly #stream: RunStream;
  readonly #options: FormRequestsOptions;

  constructor(host: Host, forms: FormsController, stream: RunStream, options: FormRequestsOptions) {
    this.#host = host;
    this.#forms = forms;
    this.#stream = stream;
    this.#options = options;
  }

  /** Opens a form: as the run's event carries it, else as `GET` answers; a form closed meanwhile (412) sets its phase instead. */
  async show(token: string, signal: AbortSignal, request?: HumanInputRequest): Promise<void> {
    try {
      const def = (request && requestDefinition(request)) ?? (await this.#options.transport().json<HumanInputFormDefinition>('GET', formPath(token), { signal }));
      const parts = await formParts.load();
      if (signal.aborted) return;
      this.#forms.show(parts, token, request?.node_title ?? '', def, request?.node_id);
      this.#options.set('ready');
      this.#host.dispatchEvent(new FormShownEvent(token, def, request));
    } catch (error) {
      if ((error as ErrorBody).status !== 412) throw error;
      this.#options.set(closedAs(error as ErrorBody), true);
    }
  }

  /** Checks every input of `form`, then submits its values with the action `actionId`. */
  async submit(form: OpenForm, actionId: string): Promise<void> {
    // Every input shows its problem at once; focus goes to the first.
    const invalid = this.#forms.check(form);
    if (invalid) return this.#options.problem(this.#options.terms().fix, invalid);
    const inputs = Object.fromEntries(form.controls.map((c) => [c.name, c.value as FormInputValue]));
    if (!this.#host.dispatchEvent(new BeforeSubmitEvent(actionId, inputs))) return;
    this.#options.set('submitting');
    const signal = this.#stream.signal;
    const send = () =>
      this.#options.transport().json('POST', formPath(form.token), { json: { inputs, action: actionId, user: '' }, signal }).then(
        () => this.#submitted(actionId, inputs),
        (error: unknown) => signal.aborted || this.#rejected(toErrorBody(error), form),
      );
    // The resumed run's events can come on the open stream before the POST's answer: they wait,
    // so `submitted` always comes before what follows it (`run-finished`, the next form).
    await (this.#host.formToken ? send() : this.#stream.hold(send, signal)).catch(() => undefined);
  }

  /** The service accepted the submission; a `form-token` form has no run to report it, so it closes here. */
  #submitted(actionId: string, inputs: Record<string, FormInputValue>): void {
    this.#forms.sent(actionId, inputs);
    const filled = this.#host.formToken ? this.#forms.answeredHere(actionId, inputs) : undefined;
    if (filled) this.#stream.ended = true;
    this.#options.set('submitted');
    this.#host.dispatchEvent(new SubmittedEvent(actionId, inputs, filled));
  }

  /** A submission the service refused: messages at the inputs they name, every value kept. */
  #rejected(error: ErrorBody, form: OpenForm): void {
    this.#host.dispatchEvent(new FormErrorEvent(error));
    if (error.status === 412) return this.#options.set(closedAs(error));
    this.#options.set('ready');
    const terms = this.#options.terms();
    const hit = this.#forms.refused(form, error.message, terms);
    this.#options.problem(hit ? terms.fix : said(error, terms.error), hit);
  }
}
