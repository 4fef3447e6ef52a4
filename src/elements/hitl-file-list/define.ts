/** Registers `<hitl-file-list>`; importing this module is its only side effect. */
import { HitlFileList } from './hitl-file-list.js';

export { HitlFileList };

// Server rendering imports this module in Node, where the tag is left for the browser to register.
if (typeof document !== 'undefined' && !customElements.get('hitl-file-list')) customElements.define('hitl-file-list', class extends HitlFileList {});

declare global {
  interface HTMLElementTagNameMap {
    'hitl-file-list': HitlFileList;
  }
}
