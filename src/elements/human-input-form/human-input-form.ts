import { fetchEventSource } from '@microsoft/fetch-event-source';
import { html, LitElement, nothing, type PropertyValues, type TemplateResult } from 'lit';
import { property, state } from 'lit/decorators.js';
import { unsafeHTML } from 'lit/directives/unsafe-html.js';
import type { AppClient, PreparedRequest } from '../../client/index.js';
import { ServiceError } from '../../client/errors.js';
import {
  splitFormContent,
  toRunEvent,
  type ErrorBody,
  type FormInput,
  type HumanInputFormDefinition,
  type HumanInputFormFilledData,
  type HumanInputRequest,
  type RunEvent,
  type WorkflowFinishedData,
} from '../../protocol/index.js';
import { markdownToSafeHtml } from '../shared/markdown.js';
import { SessionSource } from '../shared/session.js';
import { localeOf, termsFor, type Terms } from '../shared/terms.js';
import {
  BeforeSubmitEvent,
  FormErrorEvent,
  FormShownEvent,
  RunEventEvent,
  RunFinishedEvent,
  SubmittedEvent,
} from './events.js';
import { styles } from './human-input-form.styles.js';

type Phase = 'idle' | 'loading' | 'ready' | 'submitting' | 'waiting' | 'submitted' | 'not-drivable' | 'finished' | 'failed' | 'error';

/** The form as rendered: the paused node's request, refreshed by the form GET. */
interface ShownForm {
  request: HumanInputRequest;
  definition: HumanInputFormDefinition;
}

/**
 * Renders the form of a workflow run paused at a human-input node and submits the answer through
 * the host backend's relay, then follows the run as it resumes.
 *
 * @summary A workflow's human-input step, embeddable anywhere.
 * @tag human-input-form
 *
 * @fires form-shown - A form is on screen (`FormShownEvent`).
 * @fires before-submit - Cancelable, before a submission (`BeforeSubmitEvent`).
 * @fires submitted - The service accepted the submission (`SubmittedEvent`).
 * @fires run-finished - The run reached `workflow_finished` (`RunFinishedEvent`).
 * @fires form-error - A failure, with `{code, message, status}` (`FormErrorEvent`).
 * @fires run-event - Every raw run event (`RunEventEvent`).
 *
 * @csspart container - The outer box.
 * @csspart title - The node title.
 * @csspart content - A run of the form's Markdown.
 * @csspart field - An input with its label.
 * @csspart label - An input's label.
 * @csspart input - An input control.
 * @csspart actions - The row of action buttons.
 * @csspart action - An action button.
 * @csspart status - The announced status line.
 * @csspart error - An error message.
 * @csspart retry - The retry button.
 *
 * @cssproperty --hitl-accent - Accent colour (primary buttons, focus rings).
 * @cssproperty --hitl-accent-contrast - Text colour on the accent.
 * @cssproperty --hitl-border-color - Borders of the box and the inputs.
 * @cssproperty --hitl-radius - Corner radius.
 * @cssproperty --hitl-padding - Padding of the box.
 * @cssproperty --hitl-background - Background of the box.
 * @cssproperty --hitl-font - Font shorthand.
 * @cssproperty --hitl-color - Text colour.
 * @cssproperty --hitl-muted-color - Colour of the status line.
 * @cssproperty --hitl-error-color - Colour of error messages.
 * @cssproperty --hitl-button-background - Background of non-primary buttons.
 */
export class HumanInputForm extends LitElement {
  static override styles = styles;

  /** URL of the host backend's session endpoint (`POST`, answers `{token, expires_at, relay_url}`). */
  @property({ attribute: 'session-url' }) sessionUrl = '';

  /** Follow this run instead of starting one. */
  @property({ attribute: 'run-id' }) runId = '';

  /** Inputs of the run the element starts. */
  @property({ type: Object }) inputs: Record<string, unknown> = {};

  @state() private phase: Phase = 'idle';
  @state() private form: ShownForm | undefined;
  @state() private values: Record<string, string> = {};
  @state() private filled: HumanInputFormFilledData | undefined;
  @state() private result: WorkflowFinishedData | undefined;
  @state() private failure: ErrorBody | undefined;
  @state() private formError: string | undefined;

  #client: AppClient | undefined;
  #currentRun = '';
  #abort = new AbortController();

  override disconnectedCallback(): void {
    super.disconnectedCallback();
    this.#abort.abort();
  }

  override connectedCallback(): void {
    super.connectedCallback();
    if (this.hasUpdated && this.sessionUrl) void this.start();
  }

  protected override willUpdate(changed: PropertyValues<this>): void {
    if ((changed.has('sessionUrl') || changed.has('runId')) && this.sessionUrl && this.isConnected) void this.start();
  }

  /** (Re)starts: follows `run-id`, or starts a run with `inputs`. */
  async start(): Promise<void> {
    this.#abort.abort();
    const abort = (this.#abort = new AbortController());
    this.phase = 'loading';
    this.form = undefined;
    this.filled = undefined;
    this.result = undefined;
    this.failure = undefined;
    try {
      this.#client = await SessionSource.for(this.sessionUrl).client();
      if (abort.signal.aborted) return;
      if (this.runId) {
        this.#currentRun = this.runId;
        await this.#stream(await this.#client.prepareWorkflowEvents(this.runId, { user: '', include_state_snapshot: true }), abort.signal);
      } else {
        // The relay sets `user` from the session; whatever is sent here is overwritten.
        await this.#stream(await this.#client.prepareStreamWorkflow({ inputs: this.inputs, user: '' }), abort.signal);
      }
      if (!abort.signal.aborted && this.phase === 'loading') {
        this.#fail({ code: 'unknown', message: this.#terms.error, status: 0 });
      }
    } catch (error) {
      if (!abort.signal.aborted) this.#fail(toErrorBody(error));
    }
  }

  /** Submits the current values with the given action. */
  async submit(actionId: string): Promise<void> {
    const form = this.form;
    if (!form || this.phase !== 'ready' || !this.#client) return;
    const token = form.request.form_token!;
    const inputs = this.#collectValues(form.definition.inputs);
    if (!this.dispatchEvent(new BeforeSubmitEvent(actionId, inputs))) return;
    this.phase = 'submitting';
    this.formError = undefined;
    const signal = this.#abort.signal;
    // Follow the run before submitting: events are only delivered to listeners already attached,
    // so opening the stream afterwards could miss the resumption.
    const follow = new AbortController();
    signal.addEventListener('abort', () => follow.abort(), { once: true });
    try {
      let opened!: () => void;
      const open = new Promise<void>((resolve) => (opened = resolve));
      const streaming = this.#stream(await this.#client.prepareWorkflowEvents(this.#currentRun, { user: '' }), follow.signal, opened);
      await Promise.race([open, streaming]);
      await this.#client.submitForm(token, { inputs: inputs as never, action: actionId, user: '' }, signal);
      this.phase = 'waiting';
      this.dispatchEvent(new SubmittedEvent(actionId, inputs));
      await streaming;
    } catch (error) {
      follow.abort();
      if (signal.aborted) return;
      const body = toErrorBody(error);
      this.phase = 'ready';
      this.formError = body.message;
      this.dispatchEvent(new FormErrorEvent(body));
    }
  }

  get #terms(): Terms {
    return termsFor(localeOf(this));
  }

  async #stream(request: PreparedRequest, signal: AbortSignal, onOpen?: () => void): Promise<void> {
    await fetchEventSource(request.url, {
      method: request.init.method,
      headers: request.init.headers,
      body: request.init.body as string | undefined,
      signal,
      openWhenHidden: true,
      onopen: async (response) => {
        if (!response.ok) throw await ServiceError.fromResponse(response);
        onOpen?.();
      },
      onmessage: (message) => {
        const event = toRunEvent(message);
        if (event) void this.#handle(event, signal);
      },
      onerror: (error) => {
        throw error;
      },
    });
  }

  async #handle(event: RunEvent, signal: AbortSignal): Promise<void> {
    if (signal.aborted) return;
    this.dispatchEvent(new RunEventEvent(event));
    if ('workflow_run_id' in event && event.workflow_run_id) this.#currentRun = event.workflow_run_id;
    switch (event.event) {
      case 'human_input_required':
        await this.#show(event.data, signal);
        break;
      case 'human_input_form_filled':
        this.filled = event.data;
        this.phase = 'submitted';
        break;
      case 'workflow_finished':
        this.result = event.data;
        this.phase = event.data.status === 'succeeded' ? 'finished' : 'failed';
        this.dispatchEvent(new RunFinishedEvent(event.data));
        break;
      case 'error':
        this.#fail({ code: event.code, message: event.message, status: event.status });
        break;
    }
  }

  async #show(request: HumanInputRequest, signal: AbortSignal): Promise<void> {
    if (!request.form_token) {
      this.form = undefined;
      this.phase = 'not-drivable';
      return;
    }
    const definition = await this.#client!.getForm(request.form_token, signal);
    if (signal.aborted) return;
    this.form = { request, definition };
    this.values = { ...definition.resolved_default_values };
    this.filled = undefined;
    this.formError = undefined;
    this.phase = 'ready';
    this.dispatchEvent(new FormShownEvent(request));
  }

  #collectValues(inputs: FormInput[]): Record<string, unknown> {
    return Object.fromEntries(inputs.map((i) => [i.output_variable_name, this.values[i.output_variable_name] ?? '']));
  }

  #fail(error: ErrorBody): void {
    this.failure = error;
    this.phase = 'error';
    this.dispatchEvent(new FormErrorEvent(error));
  }

  #statusText(): string {
    const t = this.#terms;
    switch (this.phase) {
      case 'loading':
        return t.loading;
      case 'ready':
        return t.ready;
      case 'submitting':
        return t.submitting;
      case 'waiting':
        return t.waiting;
      case 'submitted':
        return t.submitted;
      case 'not-drivable':
        return t.notDrivable;
      case 'finished':
        return t.runFinished;
      case 'failed':
        return t.runFailed(this.result?.error ?? '');
      case 'error':
        return t.error;
      default:
        return '';
    }
  }

  protected override render(): TemplateResult {
    const t = this.#terms;
    return html`<div part="container">
      ${this.form && (this.phase === 'ready' || this.phase === 'submitting') ? this.#renderForm(this.form) : nothing}
      ${this.filled ? this.#renderFilled(this.filled) : nothing}
      ${this.phase === 'error' && this.failure
        ? html`<p part="error" role="alert">${this.failure.message}</p>
            <button part="retry" @click=${() => void this.start()}>${t.retry}</button>`
        : nothing}
      <p part="status" role="status" aria-live="polite">${this.#statusText()}</p>
    </div>`;
  }

  #renderForm({ request, definition }: ShownForm): TemplateResult {
    const byName = new Map(definition.inputs.map((i) => [i.output_variable_name, i]));
    const busy = this.phase === 'submitting';
    return html`<section aria-labelledby="title">
      <h2 id="title" part="title">${request.node_title || this.#terms.formRegion}</h2>
      ${splitFormContent(definition.form_content).map((part) => {
        if (part.kind === 'markdown') return html`<div part="content">${unsafeHTML(markdownToSafeHtml(part.text))}</div>`;
        const input = byName.get(part.name);
        return input ? this.#renderInput(input, busy) : nothing;
      })}
      ${this.formError ? html`<p part="error" role="alert">${this.formError}</p>` : nothing}
      <div part="actions">
        ${definition.user_actions.map(
          (action) =>
            html`<button part="action" data-style=${action.button_style} ?disabled=${busy} @click=${() => void this.submit(action.id)}>
              ${action.title}
            </button>`,
        )}
      </div>
    </section>`;
  }

  #renderInput(input: FormInput, busy: boolean): TemplateResult {
    const name = input.output_variable_name;
    const id = `field-${name}`;
    return html`<div part="field">
      <label part="label" for=${id}>${humanize(name)}</label>
      <textarea
        id=${id}
        part="input"
        name=${name}
        .value=${this.values[name] ?? ''}
        ?disabled=${busy}
        @input=${(e: Event) => (this.values = { ...this.values, [name]: (e.target as HTMLTextAreaElement).value })}
      ></textarea>
    </div>`;
  }

  #renderFilled(filled: HumanInputFormFilledData): TemplateResult {
    return html`<section aria-label=${this.#terms.submitted}>
      <h2 part="title">${filled.node_title}</h2>
      <div part="content">${unsafeHTML(markdownToSafeHtml(filled.rendered_content))}</div>
      <p>${this.#terms.chosenAction(filled.action_text)}</p>
    </section>`;
  }
}

function humanize(name: string): string {
  const words = name.replace(/_/g, ' ').trim();
  return words.charAt(0).toUpperCase() + words.slice(1);
}

function toErrorBody(error: unknown): ErrorBody {
  if (error instanceof ServiceError) return error.toJSON();
  return { code: 'unknown', message: error instanceof Error ? error.message : String(error), status: 0 };
}
