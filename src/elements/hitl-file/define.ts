/** Registers `<hitl-file>`; importing this module is its only side effect. */
import { HitlFile } from './hitl-file.js';

export { HitlFile };

if (!customElements.get('hitl-file')) customElements.define('hitl-file', class extends HitlFile {});

declare global {
  interface HTMLElementTagNameMap {
    'hitl-file': HitlFile;
  }
}
