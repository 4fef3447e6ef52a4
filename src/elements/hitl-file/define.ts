/** Registers `<hitl-file>`; importing this module is its only side effect. */
import { HitlFile } from './hitl-file.js';

export { HitlFile };

// Server rendering imports this module in Node, where the tag is left for the browser to register.
if (typeof document !== 'undefined' && !customElements.get('hitl-file')) customElements.define('hitl-file', class extends HitlFile {});

declare global {
  interface HTMLElementTagNameMap {
    'hitl-file': HitlFile;
  }
}
