/**
 * Registers `<human-input-form>` and the inputs it renders (`<hitl-paragraph>`, `<hitl-select>`;
 * `<hitl-file>` and `<hitl-file-list>` come with the parts the form loads apart, see
 * `shared/lazy.ts`); importing this module is its only side effect.
 */
import '../hitl-paragraph/define.js';
import '../hitl-select/define.js';
import { HumanInputForm } from './human-input-form.js';

export { HumanInputForm };

/** Defines the element under `tag` unless that name is taken already (safe to load twice). */
export function defineHumanInputForm(tag = 'human-input-form', registry: CustomElementRegistry = customElements): void {
  if (!registry.get(tag)) registry.define(tag, class extends HumanInputForm {});
}

// Server rendering imports this module in Node, where the tag is left for the browser to register.
if (typeof document !== 'undefined') defineHumanInputForm();

declare global {
  interface HTMLElementTagNameMap {
    'human-input-form': HumanInputForm;
  }
}
