/** Registers `<hitl-select>`; importing this module is its only side effect. */
import { HitlSelect } from './hitl-select.js';

export { HitlSelect };

// Server rendering imports this module in Node, where the tag is left for the browser to register.
if (typeof document !== 'undefined' && !customElements.get('hitl-select')) customElements.define('hitl-select', class extends HitlSelect {});

declare global {
  interface HTMLElementTagNameMap {
    'hitl-select': HitlSelect;
  }
}
