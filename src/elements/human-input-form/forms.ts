/**
 * The forms on the element's screen: the one open (its inputs, draft and countdown) and those
 * closed, answered here or elsewhere or left unanswered, which stay on screen above it.
 */
import type { ReactiveControllerHost } from 'lit';
import { renderWithOutputs, submitRefusal, type ErrorBody, type FormInputValue, type HumanInputFormDefinition, type HumanInputFormFilledData } from '../../protocol/index.js';
import type { HitlControl } from '../shared/control.js';
import { formParts } from '../shared/lazy.js';
import type { RenderOptions } from '../shared/markdown.js';
import { format, type Terms } from '../shared/terms.js';
import { Countdown } from './countdown.js';
import { clearDraft, readDraft, writeDraft, type DraftStorage } from './draft-store.js';
import { buildForm, type BuildOptions, type Markdown } from './form-builder.js';

/** The form open: its definition, and its content with the inputs in place. */
export interface OpenForm {
  token: string;
  /** The run's node that asked for it, when a run event showed it. */
  node?: string;
  title: string;
  def: HumanInputFormDefinition;
  body: HTMLElement;
  controls: HitlControl[];
}

/** A form no longer open: its content and the chosen action ('' when it closed unanswered, its inputs kept). */
export interface ClosedForm {
  title: string;
  body: HTMLElement;
  action: string;
  timedOut?: boolean | undefined;
}

/** The element: where drafts go and the labels it was given. */
type Host = ReactiveControllerHost & { draftStorage: DraftStorage; labels: BuildOptions['labels'] };

export interface FormsOptions {
  /** Where file inputs upload. */
  transport(): BuildOptions['transport'];
  /** What a form's content may load. */
  render(): RenderOptions;
  /** The open form's time is up. */
  expire(): void;
  /** A value of the open form changed (its draft is saved already). */
  edited(controls: HitlControl[]): void;
}

/** Whether a page's first form has been prepared for (see `FormsController.prepare`). */
let prepared = false;
/**
 * Markdown that tries every rule a form's content meets (the lexer tries each block rule on each
 * block, each inline rule on its text): a heading, a quote, emphasis, code, a link, a list, a slot.
 */
const WARM_UP = '# a\n\n> **b** *c* `d` [e](#f) <SLOT>\n\n- g';

/** The phase of a form the service no longer takes (its answer `412`): its time ran out, or it was answered elsewhere. */
export const closedAs = (error: ErrorBody): 'expired' | 'taken' => (error.code === 'human_input_form_expired' ? 'expired' : 'taken');

export class FormsController {
  open: OpenForm | undefined;
  closed: ClosedForm[] = [];
  readonly countdown: Countdown;
  /** The open form's answer, once the service accepted it. */
  accepted: { actionId: string; inputs: Record<string, FormInputValue> } | undefined;
  readonly #host: Host;
  readonly #options: FormsOptions;

  constructor(host: Host, options: FormsOptions) {
    this.#host = host;
    this.#options = options;
    this.countdown = new Countdown(host, options.expire);
  }

  /**
   * Does, while the element waits for its run, the first-time work the first form would do on
   * its way to the screen: the Markdown lexer's and the sanitizer's code and patterns compiled (a
   * sample through them), the draft storage opened (a synchronous round trip to the browser on a
   * page's first use). Once per page, in idle time; the form's own rendering then starts warm.
   */
  prepare({ renderMarkdown, SLOT_TAG }: Markdown): void {
    if (prepared) return;
    prepared = true;
    const idle = globalThis.requestIdleCallback ?? setTimeout;
    idle(() => {
      renderMarkdown(WARM_UP.replace('SLOT', SLOT_TAG), this.#options.render());
      readDraft(this.#host.draftStorage, '');
    });
  }

  /** Opens the form `def` (its Markdown renderer loaded), its values from a draft of an earlier visit. */
  show(markdown: Markdown, token: string, title: string, def: HumanInputFormDefinition, node?: string): OpenForm {
    // Another form: the run moved on from the open one.
    if (this.open?.token !== token) this.#settle();
    const storage = this.#host.draftStorage;
    const { body, controls } = buildForm(markdown, def, { labels: this.#host.labels, transport: this.#options.transport(), render: this.#options.render(), draft: readDraft(storage, token) });
    const save = () => {
      writeDraft(storage, token, Object.fromEntries(controls.map((c) => [c.name, c.state])));
      this.#options.edited(controls);
    };
    body.addEventListener('input', save);
    body.addEventListener('change', save);
    this.countdown.set(def.expiration_time);
    return (this.open = { token, node, title, def, body, controls });
  }

  /** Adds an answered form, its content as the service rendered it. */
  answered(title: string, content: string, action: string): void {
    const body = document.createElement('div');
    body.setAttribute('part', 'content');
    formParts.use(({ renderMarkdown }) => {
      body.append(renderMarkdown(content, this.#options.render()));
      this.#host.requestUpdate();
    });
    this.closed = [...this.closed, { title, body, action }];
  }

  /**
   * The open form was answered here (`form-token`: no run reports it): closes it as the service
   * records it, and answers that record.
   */
  answeredHere(actionId: string, inputs: Record<string, FormInputValue>): Partial<HumanInputFormFilledData> {
    const { title, def } = this.open!;
    const action = def.user_actions.find((a) => a.id === actionId)!;
    const filled = { node_title: title, rendered_content: renderWithOutputs(def.form_content, def.inputs, inputs), action_id: actionId, action_text: action.title };
    this.answered(title, filled.rendered_content, action.title);
    this.close();
    return filled;
  }

  /** Checks every input of `form`, each showing its problem; answers the first at fault. */
  check(form: OpenForm): HitlControl | undefined {
    // The service's refusals answered the last attempt, and it checks again: a link it could not fetch then may be sent as it is.
    for (const c of form.controls) c.setCustomValidity('');
    return form.controls.filter((c) => !c.reportValidity())[0];
  }

  /**
   * A submission the service refused: its message at the inputs it names (every value kept);
   * answers the first of them, if any.
   */
  refused(form: OpenForm, message: string, terms: Terms): HitlControl | undefined {
    const refusal = submitRefusal(message);
    const hit = form.controls.filter((c) => refusal.inputs.includes(c.name));
    // A link the service could not fetch may work on another try: the field says so.
    const said = refusal.missing ? terms.required : refusal.linkFailed ? format(terms.linkFailed, message) : message;
    for (const control of hit) control.setCustomValidity(said);
    return hit[0];
  }

  /**
   * The open form stays on screen, closed, with what was typed (and a note if its time ran out);
   * one whose answer the service accepted closes as answered (see `sent`).
   */
  keep(timedOut?: boolean): void {
    const form = this.open;
    if (!form || this.#settle()) return;
    this.closed = [...this.closed, { title: form.title, body: form.body, action: '', timedOut }];
  }

  /** The service accepted this answer to the open form: its draft is no longer needed. */
  sent(actionId: string, inputs: Record<string, FormInputValue>): void {
    if (!this.open) return;
    clearDraft(this.#host.draftStorage, this.open.token);
    this.accepted = { actionId, inputs };
  }

  /** Takes the open form off the screen; it is answered or gone, so its draft goes too. */
  close(): void {
    if (this.open) clearDraft(this.#host.draftStorage, this.open.token);
    this.open = undefined;
    this.accepted = undefined;
    this.countdown.set(null);
  }

  /** No form at all (a new run); drafts stay for when the form comes again. */
  reset(): void {
    this.open = undefined;
    this.accepted = undefined;
    this.closed = [];
    this.countdown.set(null);
  }

  /**
   * Closes the open form as answered if the service accepted its answer but the run never said
   * so: a stream that dropped after the submission is resumed from a snapshot, which replays no
   * `human_input_form_filled` (Dify's does not either), so the next form or the run's end is the
   * first news. It then reads as the service records it. Answers whether it did.
   */
  #settle(): boolean {
    const accepted = this.accepted;
    if (!this.open || !accepted) return false;
    this.answeredHere(accepted.actionId, accepted.inputs);
    return true;
  }
}
