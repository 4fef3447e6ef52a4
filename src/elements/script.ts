/**
 * The script-tag bundle's entry (see vite.config.ts; ES module users import `define-all.ts` or the
 * per-element define modules instead). `<human-input-form>` registers at once; everything else is
 * in a chunk beside the bundle (`script-parts.ts`), fetched from now on, in parallel with the session.
 */
import './human-input-form/define.js';
import { formParts } from './shared/lazy.js';

/**
 * A form that needs the chunk shows a failure with a retry; the companions have no one to show it,
 * so a failed fetch is also tried again here, a few times.
 */
function load(attempt = 0): void {
  formParts.load().catch((error: unknown) => {
    if (attempt < 4) setTimeout(() => load(attempt + 1), 1000 * 2 ** attempt);
    else console.error('hitl-elements: a part of the elements could not be loaded.', error);
  });
}
load();
