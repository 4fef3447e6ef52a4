import { html, LitElement, nothing, type PropertyDeclarations, type PropertyValues, type TemplateResult } from 'lit';
import type { Transport } from '../../client/transport.js';
import { ServiceError } from '../../client/errors.js';
import {
  readRunEvents,
  renderWithOutputs,
  splitFormContent,
  submitRefusal,
  type ErrorBody,
  type FormInput,
  type HumanInputFormDefinition,
  type HumanInputRequest,
  type RunEvent,
  type SiteSettings,
} from '../../protocol/index.js';
import type { HitlFile } from '../hitl-file/hitl-file.js';
import type { HitlControl } from '../shared/control.js';
import { toErrorBody } from '../shared/errors.js';
import { formParts } from '../shared/lazy.js';
import type { RenderOptions } from '../shared/markdown.js';
import { SessionSource } from '../shared/session.js';
import { siteLocale, themeStyle } from '../shared/site-settings.js';
import { switchState } from '../shared/states.js';
import { format, formatUnit, intlLocale, termsFor, type Terms } from '../shared/terms.js';
import { uploadFile } from '../shared/upload.js';
import { BeforeSubmitEvent, FormErrorEvent, FormShownEvent, RunEventEvent, RunFinishedEvent, SubmittedEvent, TimedOutEvent } from './events.js';
import { styles } from './human-input-form.styles.js';

/** What the element is doing: each is a custom state (`:state(ready)`) and a status line. */
type Phase = 'loading' | 'waiting' | 'ready' | 'submitting' | 'submitted' | 'expired' | 'timeout' | 'taken' | 'undrivable' | 'finished' | 'failed' | 'error';

/** The form on screen: its definition, and its content with the inputs in place. */
interface Shown {
  token: string;
  title: string;
  def: HumanInputFormDefinition;
  body: HTMLElement;
  controls: HitlControl[];
}

/** A form no longer open: its content as submitted and the chosen action ('' when it timed out, its inputs kept). */
interface Filled {
  title: string;
  body: HTMLElement;
  action: string;
  timedOut?: boolean | undefined;
}

const INPUT_TAGS: Record<string, string> = { paragraph: 'hitl-paragraph', select: 'hitl-select', file: 'hitl-file', 'file-list': 'hitl-file-list' };

/** The inputs' parts, reachable as `human-input-form::part(…)`. */
const INPUT_PARTS = 'label,control:input,error:input-error,files,file,file-name,file-size,progress,file-error,file-button,dropzone,choose,url,url-input,url-button,hint';

const seg = encodeURIComponent;
/** How long a status stays before the next may replace it: long enough for a screen reader to take it up. */
const SAY_MS = 1000;
const TRANSIENT: Phase[] = ['loading', 'waiting', 'submitting'];
const formPath = (token: string) => `/form/human_input/${seg(token)}`;

/** A JSON attribute; one that does not parse is said in the console rather than dropped unseen. */
const json = {
  fromAttribute(value: string | null): unknown {
    try {
      return value === null ? null : JSON.parse(value);
    } catch {
      console.warn('<human-input-form>: this attribute is not JSON and is ignored:', value);
      return null;
    }
  },
};

/** The elements on the page, in the order they came, so forms of one title get distinct landmark names. */
const live = new Set<HumanInputForm>();

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
    allowedOrigins: { attribute: 'allowed-origins', converter: { fromAttribute: (value: string | null) => value?.split(/[\s,]+/) ?? [] } },
  };

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

  readonly #internals = this.attachInternals();
  #phase: Phase = 'loading';
  /**
   * The status line's phase, and the ones waiting to take it: each stays up at least
   * `SAY_MS`, so a screen reader reads every change, in order, before the next replaces it.
   */
  #said: Phase = 'loading';
  #says: Phase[] = [];
  #sayTimer = 0;
  #form: Shown | undefined;
  #filled: Filled[] = [];
  #alert = '';
  #site: SiteSettings | undefined;
  #api: Transport | undefined;
  #run = '';
  #abort = new AbortController();
  /** Settles once the run's events stream is attached. */
  #open: Promise<void> | undefined;
  /** The `Idempotency-Key` of the run being started: one per start, the same on each of its retries. */
  #startKey = '';
  /** Keys of events seen, so a replay after a reconnect renders nothing twice. */
  #seen = new Set<string>();
  #ended = false;
  /** Reconnects in a row that brought nothing new. */
  #tries = 0;
  #timer = 0;
  /** The user acted here, so focus may follow the state. */
  #acted = false;
  /** What to focus after the next render: an element, or a selector. */
  #focus: HTMLElement | string = '';
  /** The error on screen is one a retry cannot change. */
  #final = false;
  /** While a submission is in flight, the run's events wait here for its answer. */
  #held: (() => void)[] | undefined;
  /** The title on screen, and the locale rendered last. */
  #name = '';
  #lang = '';

  override connectedCallback(): void {
    super.connectedCallback();
    live.add(this);
    this.#timer = window.setInterval(() => this.#tick(), 1000);
    // Statuses that waited while the element was out of the page (a move) go on.
    this.#say();
    // A move (removed and added again in one task) keeps its connection: a run being started has
    // no id yet, so starting over would start a second run.
    if (this.hasUpdated && this.#abort.signal.aborted) void this.#connect();
  }

  override disconnectedCallback(): void {
    super.disconnectedCallback();
    live.delete(this);
    clearInterval(this.#timer);
    clearTimeout(this.#sayTimer);
    this.#sayTimer = 0;
    queueMicrotask(() => this.isConnected || this.#abort.abort());
  }

  protected override willUpdate(changed: PropertyValues<this>): void {
    if (changed.has('sessionUrl') || changed.has('runId') || changed.has('formToken')) void this.start();
  }

  protected override updated(): void {
    const focus = this.#focus;
    const target = typeof focus === 'string' ? focus && this.renderRoot.querySelector<HTMLElement>(focus) : focus;
    this.#focus = '';
    // After the inputs' own updates, so an input just enabled again can take focus.
    if (target) setTimeout(() => target.focus());
  }

  /** Starts over: follows `run-id`, opens `form-token`, or starts a run with `inputs`. */
  start(): Promise<void> {
    this.#run = this.runId;
    this.#startKey = '';
    this.#ended = false;
    this.#form = undefined;
    this.#filled = [];
    this.#seen.clear();
    return this.#connect();
  }

  /** Checks every input, then submits the values with the action `actionId`. */
  async submit(actionId: string): Promise<void> {
    const form = this.#form;
    if (!form || this.#phase !== 'ready') return;
    this.#acted = true;
    // The service's refusals answered the last attempt, and it checks again: a link it could not
    // fetch then may be sent as it is.
    for (const c of form.controls) c.setCustomValidity('');
    // Every input shows its problem at once; focus goes to the first.
    const invalid = form.controls.filter((c) => !c.reportValidity());
    if (invalid[0]) return this.#problem(this.#terms.fix, invalid[0]);
    const inputs = Object.fromEntries(form.controls.map((c) => [c.name, c.value]));
    if (!this.dispatchEvent(new BeforeSubmitEvent(actionId, inputs))) return;
    this.#set('submitting');
    const signal = this.#abort.signal;
    // The resumed run's events can come on the open stream before the POST's answer: they wait,
    // so `submitted` always comes before what follows it (`run-finished` among them).
    const held: (() => void)[] = (this.#held = []);
    try {
      // Events reach only listeners already attached: follow the run before it resumes.
      await this.#open;
      await this.#api!.json('POST', formPath(form.token), { json: { inputs, action: actionId, user: '' }, signal });
      this.#draft(form.token, null);
      const action = form.def.user_actions.find((a) => a.id === actionId)!;
      let filled;
      if (this.formToken) {
        // A standalone form has no run to follow: show what the service records.
        filled = { node_title: form.title, rendered_content: renderWithOutputs(form.def.form_content, form.def.inputs, inputs), action_id: actionId, action_text: action.title };
        this.#addFilled(form.title, filled.rendered_content, action.title);
        this.#form = undefined;
        this.#ended = true;
      }
      this.#set('submitted');
      this.dispatchEvent(new SubmittedEvent(actionId, inputs, filled));
    } catch (error) {
      if (!signal.aborted) this.#rejected(toErrorBody(error), form);
    } finally {
      this.#held = undefined;
      for (const replay of held) replay();
    }
  }

  get #terms(): Terms {
    return termsFor(this.#locale, this);
  }

  /** The locale in force: English until (and unless) the wanted one's terms are there, Intl included. */
  get #locale(): string {
    return intlLocale(siteLocale(this, this.#site), this);
  }

  /** What content may load: the relay's origin (the session's API base) and `allowedOrigins`. */
  get #renderOptions(): RenderOptions {
    // The transport's base is absolute (resolved against the session URL); renderMarkdown keeps its origin.
    return { allowedOrigins: [this.#api?.baseUrl ?? '', ...(this.allowedOrigins ?? [])], openImage: this.#terms.openImage };
  }

  /** A form's title: the node's, else the app's, else a generic one. */
  #title(title: string): string {
    return title || this.#site?.title || this.#terms.untitled;
  }

  async #connect(): Promise<void> {
    if (this.#ended) return;
    if (!this.sessionUrl) {
      // In English for the developer; the page shows it in the user's language.
      const message = termsFor().noSession;
      if (this.#phase !== 'error') console.warn(`<${this.localName}>`, message);
      return this.#fail({ code: 'session_url_missing', message, status: 0 });
    }
    this.#abort.abort();
    const { signal } = (this.#abort = new AbortController());
    this.#set(this.#form ? 'ready' : 'loading');
    // Fetched beside the session and the run; a part that fails to load ends this pass, with a retry.
    formParts.load().catch(() => {
      if (signal.aborted) return;
      this.#abort.abort();
      this.#fail({ code: 'part_load_failed', message: this.#terms.partFailed, status: 0 });
    });
    try {
      const session = SessionSource.for(this.sessionUrl);
      this.#api = await session.transport();
      // Aborted meanwhile (a part failed to load, or the element left): no stream may open now.
      if (signal.aborted) return;
      session.site().then(
        (site) => {
          this.#site = site;
          this.requestUpdate();
        },
        // Without the app's settings the element keeps its own defaults.
        () => undefined,
      );
      await (this.formToken ? this.#load(this.formToken, signal) : this.#follow(this.#run ? undefined : this.inputs || {}, signal));
    } catch (error) {
      if (!signal.aborted) this.#fail(error);
    }
  }

  /**
   * Reads the run's events until it finishes: first from the run's start (`start` holds its
   * inputs; the relay sets `user`, so the one here only satisfies the shape), then from the
   * events endpoint with `continue_on_pause` (one stream across consecutive forms) and
   * `include_state_snapshot` (a dropped stream loses nothing; what was seen is dropped).
   *
   * A start that drops before its first event (which names the run) is sent again as it was,
   * with the same `Idempotency-Key`: the relay starts a run at most once per key and answers a
   * repeat with that run's events, or `409 run_start_pending` (with `Retry-After`) while the
   * first attempt has not learned the run's id yet.
   */
  async #follow(start: Record<string, unknown> | undefined, signal: AbortSignal): Promise<void> {
    let failure: unknown = new ServiceError({ code: 'upstream_unavailable', message: this.#terms.error, status: 0 });
    while (!this.#ended) {
      let opened!: () => void;
      this.#open = new Promise((resolve) => (opened = resolve));
      let wait = 0;
      try {
        const { url, init } = await (start && !this.#run
          ? this.#api!.prepare('POST', '/workflows/run', {
              json: { inputs: start, response_mode: 'streaming', user: '' },
              headers: { Accept: 'text/event-stream', 'Idempotency-Key': (this.#startKey ||= randomKey()) },
              signal,
            })
          : this.#api!.prepare('GET', `/workflow/${seg(this.#run)}/events`, { query: { include_state_snapshot: true, continue_on_pause: true }, headers: { Accept: 'text/event-stream' }, signal }));
        const response = await fetch(url, init);
        if (!response.ok) {
          wait = Number(response.headers.get('Retry-After')) * 1000;
          throw await ServiceError.fromResponse(response);
        }
        opened();
        if (this.#phase === 'error') this.#set(this.#form ? 'ready' : 'waiting');
        for await (const event of readRunEvents(response.body!)) this.#held ? this.#held.push(() => this.#event(event, signal)) : this.#event(event, signal);
      } catch (error) {
        if (signal.aborted) return;
        const { status, code } = error as ServiceError;
        // A refusal asking again cannot change ends here; the start's own "not yet" is waited out.
        if (status >= 400 && status < 500 && status !== 429 && code !== 'run_start_pending') throw error;
        if (error instanceof ServiceError) failure = error;
      }
      if (signal.aborted || this.#ended) return;
      if (this.#tries > 3) throw failure;
      await new Promise((resolve) => setTimeout(resolve, Math.min(wait, 30_000) || (this.#tries && 250 * 2 ** this.#tries)));
      this.#tries++;
    }
  }

  #event(event: RunEvent, signal: AbortSignal): void {
    if (signal.aborted) return;
    const data = ('data' in event ? event.data : {}) as { id?: string; form_id?: string; reason?: string; reasons?: { form_id: string }[] };
    // A replay repeats these with the same ids; a resumption's `workflow_started` repeats the run id legitimately.
    const id = data.form_id ?? data.reasons?.[0]?.form_id ?? (data.reason === 'resumption' ? '' : data.id);
    if (id) {
      if (this.#seen.has(event.event + id)) return;
      this.#seen.add(event.event + id);
    }
    if (event.event !== 'ping') this.#tries = 0;
    this.#run ||= (event as { workflow_run_id?: string }).workflow_run_id ?? '';
    this.dispatchEvent(new RunEventEvent(event));
    switch (event.event) {
      case 'workflow_started':
        if (this.#phase === 'loading') this.#set('waiting');
        break;
      case 'human_input_required': {
        const request = event.data;
        if (request.form_token) {
          void this.#load(request.form_token, signal, request).catch((error) => {
            // Not shown after all: a retry's replay must show it.
            this.#seen.delete(event.event + request.form_id);
            if (!signal.aborted) this.#fail(error);
          });
        }
        else this.#set('undrivable', true);
        break;
      }
      case 'human_input_form_filled':
        this.#addFilled(event.data.node_title, event.data.rendered_content, event.data.action_text);
        this.#set('waiting', true);
        break;
      case 'human_input_form_timeout': {
        if (this.#phase !== 'expired') this.dispatchEvent(new TimedOutEvent(event.data.expiration_time, false));
        this.#keep(true);
        this.#set('timeout', true);
        break;
      }
      case 'workflow_finished':
        this.#ended = true;
        this.#alert = event.data.error ?? '';
        this.#keep();
        this.#set(event.data.status === 'succeeded' ? 'finished' : 'failed', true);
        this.dispatchEvent(new RunFinishedEvent(event.data));
        break;
      case 'error':
        // The run failed (nothing to retry here): its reason stays on screen.
        this.#ended = true;
        this.#alert = event.message;
        this.#keep();
        this.#set('failed', true);
        // The documented `{code, message, status}`, not the whole stream event.
        this.dispatchEvent(new FormErrorEvent({ code: event.code, message: event.message, status: event.status }));
    }
  }

  /** A form the run closed unanswered stays on screen, closed, with what was typed (and a note if its time ran out). */
  #keep(timedOut?: boolean): void {
    const form = this.#form;
    if (form) this.#filled = [...this.#filled, { title: form.title, body: form.body, action: '', timedOut }];
  }

  /** Gets a form's definition (live select options; still open?) and puts it on screen. */
  async #load(token: string, signal: AbortSignal, request?: HumanInputRequest): Promise<void> {
    let def: HumanInputFormDefinition;
    try {
      def = await this.#api!.json<HumanInputFormDefinition>('GET', formPath(token), { signal });
    } catch (error) {
      if ((error as ServiceError).status !== 412) throw error;
      return this.#set((error as ServiceError).code === 'human_input_form_expired' ? 'expired' : 'taken', true);
    }
    if (signal.aborted) return;
    const { renderMarkdown, SLOT_TAG } = await formParts.load();
    if (signal.aborted) return;
    const byName = new Map(def.inputs.map((input) => [input.output_variable_name, input]));
    const body = document.createElement('div');
    body.setAttribute('part', 'content');
    // Each slot becomes a marker, so its input lands exactly where the slot was (in a list, a
    // table, mid-sentence); a slot that names no input renders nothing. The markers carry a key
    // the content cannot guess, so a marker written in the content never moves or relabels an input.
    const key = Math.random().toString(36).slice(2);
    body.append(
      renderMarkdown(
        splitFormContent(def.form_content)
          .map((part) => (part.kind === 'markdown' ? part.text : byName.has(part.name) ? `<${SLOT_TAG} data-name="${part.name}" data-key="${key}"></${SLOT_TAG}>` : ''))
          .join(''),
        this.#renderOptions,
      ),
    );
    const draft = this.#draft(token);
    const controls: HitlControl[] = [];
    const make = (input: FormInput, label?: string): HitlControl => {
      const name = input.output_variable_name;
      const control = document.createElement(INPUT_TAGS[input.type] ?? INPUT_TAGS.paragraph!) as HitlControl;
      control.name = name;
      control.config = input;
      // Only a paragraph may stay empty (the node's own rule).
      control.required = input.type !== 'paragraph';
      control.label = this.labels?.[name] || label || name.charAt(0).toUpperCase() + name.slice(1).replace(/_/g, ' ');
      control.defaultValue = defaultOf(def, input);
      control.restore(draft[name] ?? control.defaultValue);
      (control as HitlFile).upload = (file, progress, s) => uploadFile(this.#api!, file, progress, s);
      control.setAttribute('exportparts', INPUT_PARTS);
      controls.push(control);
      byName.delete(name);
      return control;
    };
    for (const slot of body.querySelectorAll(SLOT_TAG)) {
      const input = slot.getAttribute('data-key') === key ? byName.get(slot.getAttribute('data-name')!) : undefined;
      if (input) slot.replaceWith(make(input, takeLabel(slot)));
      else slot.remove();
    }
    // Inputs the content never mentions come after it.
    for (const input of [...byName.values()]) body.append(make(input));
    const save = () => {
      this.#draft(token, Object.fromEntries(controls.map((c) => [c.name, c.state])));
      // The summary of a failed check goes once every input is fine.
      if (this.#alert === this.#terms.fix && controls.every((c) => c.checkValidity())) this.#problem('');
    };
    body.addEventListener('input', save);
    body.addEventListener('change', save);
    this.#form = { token, title: request?.node_title ?? '', def, body, controls };
    this.#set('ready');
    this.#tick();
    // Besides the ticks, once exactly at the expiry (a longer wait than timers allow just ticks early).
    setTimeout(() => this.#tick(), (def.expiration_time ?? 0) * 1000 - Date.now());
    this.dispatchEvent(new FormShownEvent(token, def, request));
  }

  /** Reads (no `values`), writes, or clears (`null`) the draft of a form. */
  #draft(token: string, values?: Record<string, string> | null): Record<string, string> {
    const key = `hitl-draft:${token}`;
    try {
      const store = this.draftStorage === 'none' ? undefined : this.draftStorage === 'session' ? sessionStorage : localStorage;
      if (values) store?.setItem(key, JSON.stringify(values));
      else if (values === null) store?.removeItem(key);
      else return JSON.parse(store?.getItem(key) ?? '{}') as Record<string, string>;
    } catch {
      // Storage refused (private mode, quota, sandbox): drafts are a convenience.
    }
    return {};
  }

  /** A submission the service refused: messages at the inputs they name, every value kept. */
  #rejected(error: ErrorBody, form: Shown): void {
    this.dispatchEvent(new FormErrorEvent(error));
    if (error.status === 412) return this.#set(error.code === 'human_input_form_expired' ? 'expired' : 'taken');
    this.#set('ready');
    const refusal = submitRefusal(error.message);
    const hit = form.controls.filter((c) => refusal.inputs.includes(c.name));
    // A link the service could not fetch may work on another try: the field says so.
    const message = refusal.missing ? this.#terms.required : refusal.linkFailed ? format(this.#terms.linkFailed, error.message) : error.message;
    for (const control of hit) control.setCustomValidity(message);
    this.#problem(hit[0] ? this.#terms.fix : error.message, hit[0]);
  }

  /** Shows a problem with the form and takes the user to it. */
  #problem(message: string, control?: HitlControl): void {
    this.#alert = message;
    this.#focus = control ?? (message && '[part~=error]');
    this.requestUpdate();
  }

  #addFilled(title: string, content: string, action: string): void {
    const body = document.createElement('div');
    body.setAttribute('part', 'content');
    formParts.use(({ renderMarkdown }) => {
      body.append(renderMarkdown(content, this.#renderOptions));
      this.requestUpdate();
    });
    this.#filled = [...this.#filled, { title, body, action }];
  }

  #fail(error: unknown): void {
    const body = toErrorBody(error);
    // A refusal that asking again cannot change (a bad id, token or input) offers no retry.
    // So is a start the relay cannot vouch for (a run may exist with an id it never saw): asking
    // again with the same key can never start or find it.
    this.#final = [400, 403, 404, 412].includes(body.status) || body.code === 'run_start_unknown';
    this.#set('error');
    this.#alert = body.message;
    this.dispatchEvent(new FormErrorEvent(body));
  }

  /** Moves to `phase` (dropping the form when `drop`), announces it, and lets focus follow. */
  #set(phase: Phase, drop?: boolean): void {
    switchState(this.#internals, this.#phase, (this.#phase = phase));
    // A form that leaves the screen is answered or gone: its draft is no longer needed.
    if (drop && this.#form) this.#draft(this.#form.token, null), (this.#form = undefined);
    if (phase !== 'failed') this.#alert = '';
    if (this.#acted) this.#focus = '[data-focus]';
    // A passing phase (loading, waiting, submitting) gives way to the next at once: it is no
    // state a user needs to hear, and the one after it is.
    if (TRANSIENT.includes(this.#says.at(-1)!)) this.#says.pop();
    if (!this.#says.length && TRANSIENT.includes(this.#said)) clearTimeout(this.#sayTimer), (this.#sayTimer = 0);
    if (phase !== (this.#says.at(-1) ?? this.#said)) this.#says.push(phase);
    if (!this.#sayTimer) this.#say();
    this.requestUpdate();
  }

  /** Puts the next waiting phase on the status line. */
  #say(): void {
    const next = this.#says.shift();
    this.#sayTimer = next ? window.setTimeout(() => this.#say(), SAY_MS) : 0;
    if (next) (this.#said = next), this.requestUpdate();
  }

  /** Once a second: the countdown, and the form's expiry. */
  #tick(): void {
    const expiration = this.#form?.def.expiration_time;
    if (!expiration) return;
    if (expiration * 1000 <= Date.now() && this.#phase === 'ready') {
      this.#set('expired');
      this.dispatchEvent(new TimedOutEvent(expiration, true));
    }
    this.requestUpdate();
  }

  protected override render(): TemplateResult {
    const t = this.#terms;
    const locale = this.#locale;
    const form = this.#form;
    const phase = this.#phase;
    const ready = phase === 'ready';
    const left = (form?.def.expiration_time ?? 0) - Date.now() / 1000;
    // Inputs take the locale from the container: tell them when it changes (a locale loaded).
    if (locale !== this.#lang) {
      this.#lang = locale;
      for (const control of form?.controls ?? []) control.requestUpdate();
    }
    // A landmark name unique on the page: a second form of the same title gets a number.
    const title = form ? this.#title(form.title) : '';
    if (title !== this.#name) {
      this.#name = title;
      for (const other of live) if (other !== this) other.requestUpdate();
    }
    const nth = [...live].filter((other) => other.#name === title).indexOf(this) + 1;
    return html`<div part="container" lang=${locale} style=${themeStyle(this.#site)}>
      ${this.#filled.map(
        (filled) => html`<section part="filled">
          <h2 part="title">${this.#title(filled.title)}</h2>
          ${filled.action ? filled.body : html`<fieldset disabled>${filled.body}</fieldset>`}
          ${filled.action ? html`<p part="chosen">${format(t.chose, filled.action)}</p>` : filled.timedOut ? html`<p part="note">${t.timeout}</p>` : ''}
        </section>`,
      )}
      ${form
        ? html`<form
            part="form"
            aria-labelledby=${nth > 1 ? nothing : 'title'}
            aria-label=${nth > 1 ? format(t.nth, title, nth) : nothing}
            novalidate
            @submit=${(e: SubmitEvent) => {
              e.preventDefault();
              void this.submit((e.submitter as HTMLButtonElement).value);
            }}
          >
            <h2 part="title" id="title" tabindex="-1" ?data-focus=${ready}>${title}</h2>
            ${left > 0 && (ready || phase === 'submitting') ? html`<p part="countdown" role="timer">${format(t.timeLeft, duration(left, locale))}</p>` : ''}
            <fieldset part="fields" ?disabled=${!ready}>
              ${form.body}
              <div part="actions">
                ${form.def.user_actions.map((a) => html`<button part="action action-${a.button_style}" value=${a.id}>${a.title}</button>`)}
              </div>
            </fieldset>
          </form>`
        : ''}
      ${this.#alert ? html`<p part="error" role="alert" tabindex="-1" ?data-focus=${phase === 'error'}>${this.sessionUrl ? this.#alert : t.noSession}</p>` : ''}
      ${phase === 'error' && this.sessionUrl && !this.#final
        ? html`<button
            part="retry"
            @click=${() => {
              this.#acted = true;
              this.#tries = 0;
              void this.#connect();
            }}
          >
            ${t.retry}
          </button>`
        : ''}
      <p part="status" role="status" tabindex="-1" ?data-focus=${!ready && phase !== 'error'}>${t[this.#said]}</p>
    </div>`;
  }
}

/** `2 days`, `5 hours`, or `4:59` under an hour. */
function duration(seconds: number, locale: string): string {
  const s = Math.ceil(seconds);
  const days = s >= 86400;
  return s < 3600 ? `${(s / 60) | 0}:${String(s % 60).padStart(2, '0')}` : formatUnit(locale, s / (days ? 86400 : 3600), days ? 'day' : 'hour', true);
}

/**
 * The label a slot's surroundings give it, taken out of the content: the heading or bold line
 * just before a slot that stands alone, or a short text ending in a colon just before it.
 */
function takeLabel(slot: Element): string | undefined {
  const parent = slot.parentElement!;
  let node: ChildNode | null = parent.localName === 'p' && !parent.textContent!.trim() ? parent : slot;
  do node = node.previousSibling;
  while (node && !node.textContent!.trim());
  const text = node?.textContent!.trim() ?? '';
  const strong = (e: Element | null | undefined) => /^(h\d|strong|b)$/.test(e?.localName ?? '');
  const element = node as Element;
  // Text only: a paragraph that also holds an image or a link is content, not a label.
  if (!text || text.length > 80 || element.querySelector?.(':not(strong,b,em,i,code)')) return undefined;
  if (!(strong(element) || (element.localName === 'p' && element.childNodes.length === 1 && strong(element.firstElementChild)) || /[:：]$/.test(text))) return undefined;
  node!.remove();
  return text.replace(/\s*[:：]$/, '');
}

/**
 * A paragraph's pre-filled text: its variable's value, which only `resolved_default_values`
 * holds, else its constant `default.value` (never resolved by the real service; §2.4).
 */
function defaultOf(def: HumanInputFormDefinition, input: FormInput): string {
  const constant = input.type === 'paragraph' && input.default?.type === 'constant' ? input.default.value : '';
  return def.resolved_default_values?.[input.output_variable_name] ?? constant ?? '';
}

/** A random key, also where `crypto.randomUUID` is missing (a page served over plain http). */
function randomKey(): string {
  return crypto.randomUUID?.() ?? crypto.getRandomValues(new Uint32Array(4)).join('-');
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
