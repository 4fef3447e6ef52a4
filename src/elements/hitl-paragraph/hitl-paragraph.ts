import { html, type PropertyDeclarations, type PropertyValues, type TemplateResult } from 'lit';
import type { Terms } from '../shared/terms.js';
import { HitlControl } from '../shared/control.js';
import { styles } from './hitl-paragraph.styles.js';

/** Whether the engine sizes a textarea to its text (`field-sizing: content`); read once (no `CSS` in Node). */
const sizedByCss = typeof CSS !== 'undefined' && CSS.supports('field-sizing', 'content');

/** Fits textareas to their text: all heights cleared, then all read (one layout for the lot), then all set. */
function fit(areas: HTMLTextAreaElement[]): void {
  for (const area of areas) area.style.height = '';
  const heights = areas.map((area) => area.scrollHeight);
  areas.forEach((area, i) => (area.style.height = `${heights[i]! + 2}px`));
}

/**
 * Textareas whose text was set by script (a default, a restored draft), fitted together in the next
 * frame: measured as each paragraph updated, a form of 20 forced 20 layouts while it rendered.
 */
const unfitted = new Set<HTMLTextAreaElement>();
function fitLater(area: HTMLTextAreaElement): void {
  if (!unfitted.size) {
    requestAnimationFrame(() => {
      const areas = [...unfitted].filter((a) => a.isConnected);
      unfitted.clear();
      fit(areas);
    });
  }
  unfitted.add(area);
}

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

  /** The text the textarea was last fitted to (an empty one needs no measuring: CSS gives its height). */
  #fitted = '';

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
    // Where CSS cannot size the box (an engine without `field-sizing`: WebKit today), it grows in
    // script: as the user types (see render), else in the next frame, with every other paragraph.
    if (sizedByCss || !changed.has('value') || this.value === this.#fitted) return;
    this.#fitted = this.value;
    fitLater(this.renderRoot.querySelector('textarea')!);
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
          const area = e.target as HTMLTextAreaElement;
          this.value = this.#fitted = area.value;
          if (!sizedByCss) fit([area]);
          this.changed();
        }}
      ></textarea
      >${this.renderError(message)}`;
  }
}
