/** Registers `<conversation-variables>`; importing this module is its only side effect. */
import { ConversationVariables } from './conversation-variables.js';

export { ConversationVariables };

/** Defines the element under `tag` unless that name is taken already (safe to load twice). */
export function defineConversationVariables(tag = 'conversation-variables', registry: CustomElementRegistry = customElements): void {
  if (!registry.get(tag)) registry.define(tag, class extends ConversationVariables {});
}

// Server rendering imports this module in Node, where the tag is left for the browser to register.
if (typeof document !== 'undefined') defineConversationVariables();

declare global {
  interface HTMLElementTagNameMap {
    'conversation-variables': ConversationVariables;
  }
}
