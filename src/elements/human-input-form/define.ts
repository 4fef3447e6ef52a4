/** Registers `<human-input-form>`; importing this module is its only side effect. */
import { HumanInputForm } from './human-input-form.js';

export { HumanInputForm };

/** Defines the element under `tag` unless that name is taken already (safe to load twice). */
export function defineHumanInputForm(tag = 'human-input-form', registry: CustomElementRegistry = customElements): void {
  if (!registry.get(tag)) registry.define(tag, class extends HumanInputForm {});
}

defineHumanInputForm();

declare global {
  interface HTMLElementTagNameMap {
    'human-input-form': HumanInputForm;
  }
}
