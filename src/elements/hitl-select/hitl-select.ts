import { html, type PropertyDeclarations, type TemplateResult } from 'lit';
import type { Terms } from '../shared/terms.js';
import { HitlControl } from '../shared/control.js';
import { styles } from './hitl-select.styles.js';

/**
 * A choice among the options of a select input (`option_source.value`), taking part in forms
 * like a `<select>`.
 *
 * @summary A form's select input.
 * @tag hitl-select
 *
 * @fires {Event} change - An option was chosen.
 *
 * @csspart label - The visible label.
 * @csspart control - The select.
 * @csspart error - The validation or server message.
 *
 * @cssproperty --hitl-accent - Focus ring colour.
 * @cssproperty --hitl-border-color - Border colour.
 * @cssproperty --hitl-error-color - Colour of the message and of an invalid border.
 * @cssproperty --hitl-input-background - Background of the select; default `Canvas`, which follows the page's `color-scheme`.
 * @cssproperty --hitl-input-color - Text colour of the select; default `CanvasText`.
 *
 * @cssstate user-invalid - The value was changed or submitted and cannot be submitted.
 */
export class HitlSelect extends HitlControl {
  static override styles = styles;
  static override properties: PropertyDeclarations = { ...HitlControl.properties, value: {}, options: { type: Array } };

  value = '';
  /** The choices; by default the `option_source.value` of `config`. */
  options: string[] | undefined;

  get state(): string {
    return this.value;
  }

  /** A saved value that is no longer among the options is dropped. */
  restore(state: string): void {
    this.value = this.#options.includes(state) ? state : '';
  }

  get #options(): string[] {
    const config = this.config;
    return this.options ?? (config?.type === 'select' ? config.option_source.value : []);
  }

  protected problem(t: Terms): string {
    return this.required && !this.value ? t.required : '';
  }

  protected formValue(): string {
    return this.value;
  }

  protected override render(): TemplateResult {
    return html`${this.renderLabel()}<select
        id="control"
        part="control"
        ?disabled=${this.disabled}
        ?required=${this.required}
        aria-describedby="error"
        aria-invalid=${!!this.message()}
        @change=${(e: Event) => {
          this.value = (e.target as HTMLSelectElement).value;
          this.changed('change');
        }}
      >
        <option value="">${this.terms.select}</option>
        ${this.#options.map((option) => html`<option .selected=${option === this.value}>${option}</option>`)}</select
      >${this.renderError()}`;
  }
}
