/**
 * What a form needs once its definition is there, loaded apart from the element (see
 * `shared/lazy.ts`): Markdown with its sanitizer, and the file inputs.
 */
import '../hitl-file/define.js';
import '../hitl-file-list/define.js';

export { renderMarkdown, SLOT_TAG } from '../shared/markdown.js';
