/** Registers `<hitl-paragraph>`; importing this module is its only side effect. */
import { HitlParagraph } from './hitl-paragraph.js';

export { HitlParagraph };

// Server rendering imports this module in Node, where the tag is left for the browser to register.
if (typeof document !== 'undefined' && !customElements.get('hitl-paragraph')) customElements.define('hitl-paragraph', class extends HitlParagraph {});

declare global {
  interface HTMLElementTagNameMap {
    'hitl-paragraph': HitlParagraph;
  }
}
