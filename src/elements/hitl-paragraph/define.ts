/** Registers `<hitl-paragraph>`; importing this module is its only side effect. */
import { HitlParagraph } from './hitl-paragraph.js';

export { HitlParagraph };

if (!customElements.get('hitl-paragraph')) customElements.define('hitl-paragraph', class extends HitlParagraph {});

declare global {
  interface HTMLElementTagNameMap {
    'hitl-paragraph': HitlParagraph;
  }
}
