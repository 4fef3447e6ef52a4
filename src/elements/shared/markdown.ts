/**
 * Untrusted Markdown from the service → sanitized DOM. marked parses, DOMPurify removes anything
 * executable and hands back nodes (no HTML string ever reaches an `innerHTML` sink of ours).
 */
import DOMPurify, { type Config } from 'dompurify';
import { Marked } from 'marked';

// Private instances, so a host page's global marked options or DOMPurify hooks cannot change
// our output, and our hook cannot change theirs.
const marked = new Marked({ async: false, gfm: true, breaks: true });
let purify: ReturnType<typeof DOMPurify> | undefined;
let policy: Config['TRUSTED_TYPES_POLICY'];

/** Made at first use, not at import: server rendering imports this module in Node, with no `window`. */
function sanitizer(): ReturnType<typeof DOMPurify> {
  if (purify) return purify;
  purify = DOMPurify(window);
  // Links in a form open beside it, so a click never navigates away from a half-filled form.
  purify.addHook('afterSanitizeAttributes', (node) => {
    if (node.localName === 'a') node.setAttribute('target', '_blank'), node.setAttribute('rel', 'noopener noreferrer');
  });
  return purify;
}

/**
 * Under a Trusted Types CSP, hand DOMPurify a policy of yours (with pass-through `createHTML` and
 * `createScriptURL`); without one, DOMPurify creates a policy named `dompurify`.
 */
export function setTrustedTypesPolicy(value: NonNullable<Config['TRUSTED_TYPES_POLICY']>): void {
  policy = value;
}

/** The marker that stands in for a form input while the Markdown is rendered. */
export const SLOT_TAG = 'hitl-slot';

/**
 * Sanitized nodes of a Markdown string (`hitl-slot` markers kept, form controls removed). No
 * inline styles either: a `position: fixed` block would escape the shadow root and cover the page.
 */
export function renderMarkdown(markdown: string): DocumentFragment {
  return sanitizer().sanitize(marked.parse(markdown, { async: false }), {
    RETURN_DOM_FRAGMENT: true,
    ADD_TAGS: [SLOT_TAG],
    FORBID_TAGS: ['style', 'form', 'input', 'button', 'textarea', 'select'],
    FORBID_ATTR: ['style'],
    TRUSTED_TYPES_POLICY: policy,
  });
}
