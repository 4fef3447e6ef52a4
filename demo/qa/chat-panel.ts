/**
 * The chat side of a scenario, for apps that hold conversations: the answer as it streams, and
 * the companion elements on it (`<message-feedback>`, `<tts-player>`, `<conversation-list>`,
 * `<conversation-variables>`), all on the app's session.
 */
import type { ConversationList } from '../../src/elements/conversation-list/conversation-list.js';
import type { CompanionEvent } from '../../src/elements/shared/companion.js';
import type { Conversation } from '../../src/protocol/index.js';
import { sendChatMessage, type ChatAnswer } from './chat.js';
import { sessionUrl } from './contract.js';

/** Modes whose apps keep conversations. */
export const CHAT_MODES = new Set(['advanced-chat', 'chat', 'agent-chat', 'agent']);

export class ChatPanel {
  #appId = '';
  #conversationId = '';

  constructor(
    readonly section: HTMLElement,
    readonly onNote: (text: string) => void,
  ) {
    section.querySelector('#reply-form')!.addEventListener('submit', (event) => {
      event.preventDefault();
      const query = section.querySelector<HTMLInputElement>('#reply')!.value;
      void this.send(query, {}, this.#conversationId).catch((error: Error) => this.onNote(`reply failed: ${error.message}`));
    });
  }

  /** Shows the panel for `appId` with fresh elements, or hides it (`undefined`). */
  show(appId: string | undefined): void {
    this.section.hidden = !appId;
    this.#appId = appId ?? '';
    this.#conversationId = '';
    this.#answer('');
    this.section.querySelector('#answer-tools')!.replaceChildren();
    if (!appId) return;
    const list = this.#fresh('conversation-list', '#conversations');
    const variables = this.#fresh('conversation-variables', '#variables');
    list.addEventListener('conversation-selected', (e) => {
      const { id } = (e as CompanionEvent<Conversation>).detail;
      this.#conversationId = id;
      variables.setAttribute('conversation-id', id);
    });
  }

  /** Sends a message (in `conversationId`, or a new conversation) and shows the answer and its tools. */
  async send(query: string, inputs: Record<string, unknown>, conversationId = ''): Promise<ChatAnswer> {
    const appId = this.#appId;
    this.#answer('…');
    const result = await sendChatMessage(appId, { query, inputs, conversationId }, (text) => this.#answer(text));
    if (appId !== this.#appId) return result;
    this.#answer(result.answer || '(no answer yet: the run waits for a form)');
    this.onNote(`chat message answered in conversation ${result.conversationId}`);
    const tools = this.section.querySelector('#answer-tools')!;
    tools.replaceChildren();
    if (result.messageId) {
      const feedback = document.createElement('message-feedback');
      const player = document.createElement('tts-player');
      for (const [element, attributes] of [
        [feedback, { 'message-id': result.messageId, 'conversation-id': result.conversationId }],
        [player, { 'message-id': result.messageId }],
      ] as const) {
        for (const [name, value] of Object.entries(attributes)) element.setAttribute(name, value);
        element.setAttribute('session-url', sessionUrl(appId));
        tools.append(element);
      }
    }
    // The answer's conversation becomes the chosen one, whether or not the list has it yet.
    if (result.conversationId) {
      this.#conversationId = result.conversationId;
      this.section.querySelector('#variables')!.setAttribute('conversation-id', result.conversationId);
    }
    const list = this.section.querySelector<ConversationList>('#conversations')!;
    list.selected = result.conversationId;
    await list.reload();
    return result;
  }

  #fresh(tag: 'conversation-list' | 'conversation-variables', selector: string): HTMLElement {
    const element = document.createElement(tag);
    element.id = selector.slice(1);
    element.setAttribute('session-url', sessionUrl(this.#appId));
    this.section.querySelector(selector)!.replaceWith(element);
    return element;
  }

  #answer(text: string): void {
    this.section.querySelector('#chat-answer')!.textContent = text;
  }
}
