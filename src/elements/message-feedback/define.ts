/** Registers `<message-feedback>`; importing this module is its only side effect. */
import { MessageFeedback } from './message-feedback.js';

export { MessageFeedback };

/** Defines the element under `tag` unless that name is taken already (safe to load twice). */
export function defineMessageFeedback(tag = 'message-feedback', registry: CustomElementRegistry = customElements): void {
  if (!registry.get(tag)) registry.define(tag, class extends MessageFeedback {});
}

// Server rendering imports this module in Node, where the tag is left for the browser to register.
if (typeof document !== 'undefined') defineMessageFeedback();

declare global {
  interface HTMLElementTagNameMap {
    'message-feedback': MessageFeedback;
  }
}
