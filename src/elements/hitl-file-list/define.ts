/** Registers `<hitl-file-list>`; importing this module is its only side effect. */
import { HitlFileList } from './hitl-file-list.js';

export { HitlFileList };

if (!customElements.get('hitl-file-list')) customElements.define('hitl-file-list', class extends HitlFileList {});

declare global {
  interface HTMLElementTagNameMap {
    'hitl-file-list': HitlFileList;
  }
}
