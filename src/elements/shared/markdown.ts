/**
 * Untrusted Markdown from the service → sanitized HTML. marked parses, DOMPurify removes anything
 * executable; nothing reaches the DOM unsanitized.
 */
import DOMPurify from 'dompurify';
import { Marked } from 'marked';

// A private instance, so a host page's global marked options cannot change our output.
const marked = new Marked({ async: false, gfm: true, breaks: true });

/** Sanitized HTML of a Markdown string. */
export function markdownToSafeHtml(markdown: string): string {
  const html = marked.parse(markdown, { async: false });
  return DOMPurify.sanitize(html, { USE_PROFILES: { html: true }, FORBID_TAGS: ['style', 'form', 'input', 'button', 'textarea', 'select'] });
}
