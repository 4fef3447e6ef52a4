/**
 * What the form's inputs share: real form participation through ElementInternals (value,
 * validity, disabled, reset and restore), a visible label, and a message in the same shadow
 * root as the control it describes.
 */
import { html, LitElement, type PropertyDeclarations, type TemplateResult } from 'lit';
import type { FormInput } from '../../protocol/index.js';
import { toggleState } from './states.js';
import { localeOf, termsFor, type Terms } from './terms.js';

export abstract class HitlControl extends LitElement {
  static formAssociated = true;
  static override shadowRootOptions: ShadowRootInit = { ...LitElement.shadowRootOptions, delegatesFocus: true };
  static override properties: PropertyDeclarations = {
    name: { reflect: true },
    label: {},
    required: { type: Boolean },
    disabled: { type: Boolean },
    config: { attribute: false },
  };

  /** The name the value is submitted under (the input's `output_variable_name`). */
  name = '';
  /** The visible label. */
  label = '';
  required = false;
  /** Set by a disabled `<fieldset>` or form, or directly. */
  disabled = false;
  /** The input's definition from the form (`allowed_file_types`, select options, …). */
  config: FormInput | undefined;
  /** The state a form reset returns to (see `state`). */
  defaultValue = '';

  readonly internals = this.attachInternals();
  #custom = '';
  #touched = false;
  /** A submit asked for the problems, and nothing changed since. */
  #reported = false;

  /** The value as a submission carries it. */
  abstract get value(): unknown;
  /** The value as text, for drafts and the browser's form state restore. */
  abstract get state(): string;
  /** Puts back a value saved from `state`. */
  abstract restore(state: string): void;
  /** Why the value cannot be submitted, in the user's words; '' when it can. */
  protected abstract problem(terms: Terms): string;
  /** The value in FormData terms. */
  protected abstract formValue(): FormData | string | null;

  get form(): HTMLFormElement | null {
    return this.internals.form;
  }

  get validity(): ValidityState {
    this.#sync();
    return this.internals.validity;
  }

  get validationMessage(): string {
    this.#sync();
    return this.internals.validationMessage;
  }

  checkValidity(): boolean {
    this.#sync();
    return this.internals.checkValidity();
  }

  /** Shows the message, if any; true when the value can be submitted. */
  reportValidity(): boolean {
    this.#touched = this.#reported = true;
    this.requestUpdate();
    return this.checkValidity();
  }

  /** A message from elsewhere (a server's rejection) shown at this input until its value changes. */
  setCustomValidity(message: string): void {
    this.#custom = message;
    this.#touched = true;
    this.requestUpdate();
  }

  formDisabledCallback(disabled: boolean): void {
    this.disabled = disabled;
  }

  formResetCallback(): void {
    this.restore(this.defaultValue);
  }

  formStateRestoreCallback(state: unknown): void {
    if (typeof state === 'string') this.restore(state);
  }

  protected get terms(): Terms {
    return termsFor(localeOf(this), this);
  }

  /** After the user changed the value: the server's message no longer applies. */
  protected changed(event?: string): void {
    this.#custom = '';
    this.#touched = true;
    this.#reported = false;
    this.#sync();
    this.requestUpdate();
    if (event) this.dispatchEvent(new Event(event, { bubbles: true }));
  }

  protected override willUpdate(): void {
    this.#sync();
  }

  /** Hands the value and its validity to the form (also before a check, so no update is awaited). */
  #sync(): void {
    const message = this.#custom || this.problem(this.terms);
    this.internals.setFormValue(this.formValue(), this.state);
    this.internals.setValidity(message ? { customError: true } : {}, message);
    toggleState(this.internals, 'user-invalid', this.#touched && !!message);
  }

  /**
   * The message to show: a note of the caller's, else the validation message once it applies;
   * a `quiet` one (work still under way, not a mistake) only once a submit asked for it.
   */
  protected message(note = '', quiet = false): string {
    return note || (this.#touched && (this.#reported || !quiet) ? this.validationMessage : '');
  }

  protected renderLabel(): TemplateResult {
    return html`<label part="label" id="label" for="control">${this.label}${this.required ? html`<span aria-hidden="true"> *</span>` : ''}</label>`;
  }

  protected renderError(message = this.message()): TemplateResult {
    return html`<div part="error" id="error" aria-live="polite">${message}</div>`;
  }
}
