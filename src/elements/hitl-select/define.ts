/** Registers `<hitl-select>`; importing this module is its only side effect. */
import { HitlSelect } from './hitl-select.js';

export { HitlSelect };

if (!customElements.get('hitl-select')) customElements.define('hitl-select', class extends HitlSelect {});

declare global {
  interface HTMLElementTagNameMap {
    'hitl-select': HitlSelect;
  }
}
