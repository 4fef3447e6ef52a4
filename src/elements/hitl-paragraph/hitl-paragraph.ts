import { html, type PropertyDeclarations, type PropertyValues, type TemplateResult } from 'lit';
import type { Terms } from '../shared/terms.js';
import { HitlControl } from '../shared/control.js';
import { styles } from './hitl-paragraph.styles.js';

/** Whether the engine sizes a textarea to its text (`field-sizing: content`); read once (no `CSS` in Node). */
const sizedByCss = typeof CSS !== 'undefined' && CSS.supports('field-sizing', 'content');

/**
 * A multi-line text input that grows with its text, and takes part in forms like a `<textarea>`.
 *
 * @summary A form's paragraph input.
 * @tag hitl-paragraph
 *
 * @fires {Event} input - The text changed (the native event of the inner textarea).
 *
 * @csspart label - The visible label.
 * @csspart control - The textarea.
 * @csspart error - The validation or server message.
 *
 * @cssproperty --hitl-accent - Focus ring colour.
 * @cssproperty --hitl-border-color - Border colour.
 * @cssproperty --hitl-error-color - Colour of the message and of an invalid border.
 * @cssproperty --hitl-input-background - Background of the textarea; default `Canvas`, which follows the page's `color-scheme`.
 * @cssproperty --hitl-input-color - Text colour of the textarea; default `CanvasText`.
 * @cssproperty --hitl-radius - Corner radius.
 *
 * @cssstate user-invalid - The value was changed or submitted and cannot be submitted.
 */
export class HitlParagraph extends HitlControl {
  static override styles = styles;
  static override properties: PropertyDeclarations = { ...HitlControl.properties, value: {} };

  value = '';

  get state(): string {
    return this.value;
  }

  restore(state: string): void {
    this.value = state;
  }

  protected problem(t: Terms): string {
    return this.required && !this.value.trim() ? t.required : '';
  }

  protected formValue(): string {
    return this.value;
  }

  protected override updated(changed: PropertyValues<this>): void {
    // Where CSS cannot size the box (no `field-sizing`: Firefox and Safari today), it grows in
    // script, and only when its text changed: measuring on every update forced a layout per input.
    if (sizedByCss || !changed.has('value')) return;
    const area = this.renderRoot.querySelector('textarea')!;
    area.style.height = '';
    area.style.height = `${area.scrollHeight + 2}px`;
  }

  protected override render(): TemplateResult {
    const message = this.message();
    return html`${this.renderLabel()}<textarea
        id="control"
        part="control"
        .value=${this.value}
        ?disabled=${this.disabled}
        ?required=${this.required}
        aria-describedby="error"
        aria-invalid=${!!message}
        @input=${(e: Event) => {
          this.value = (e.target as HTMLTextAreaElement).value;
          this.changed();
        }}
      ></textarea
      >${this.renderError(message)}`;
  }
}
