/** Registers `<conversation-list>`; importing this module is its only side effect. */
import { ConversationList } from './conversation-list.js';

export { ConversationList };

/** Defines the element under `tag` unless that name is taken already (safe to load twice). */
export function defineConversationList(tag = 'conversation-list', registry: CustomElementRegistry = customElements): void {
  if (!registry.get(tag)) registry.define(tag, class extends ConversationList {});
}

// Server rendering imports this module in Node, where the tag is left for the browser to register.
if (typeof document !== 'undefined') defineConversationList();

declare global {
  interface HTMLElementTagNameMap {
    'conversation-list': ConversationList;
  }
}
