/**
 * The chat side of a scenario, for apps that hold conversations: the answer as it streams, and
 * the companion elements on it (`<message-feedback>`, `<tts-player>`, `<conversation-list>`,
 * `<conversation-variables>`), all on the app's session. In a Chatflow the answer goes on after a
 * form is answered, in the run the form element follows: `followRun` takes that run's events.
 */
import type { ConversationList } from '../../src/elements/conversation-list/conversation-list.js';
import type { CompanionEvent } from '../../src/elements/shared/companion-events.js';
import type { Conversation, RunEvent } from '../../src/protocol/index.js';
import { sendChatMessage, type ChatAnswer } from './chat.js';
import { sessionUrl } from './contract.js';

/** Modes whose apps keep conversations. */
export const CHAT_MODES = new Set(['advanced-chat', 'chat', 'agent-chat', 'agent']);
/** Chat modes with the conversation variables API (the service refuses `agent` with `not_chat_app`). */
const VARIABLE_MODES = new Set(['advanced-chat', 'chat', 'agent-chat']);

export interface ChatPanelHooks {
  note(text: string): void;
  /** The run inputs a reply carries (a Chatflow needs them on every message). */
  inputs(): Record<string, unknown>;
  /** A reply was answered; in a Chatflow it started a run (`answer.runId`). */
  replied(answer: ChatAnswer): void;
}

export class ChatPanel {
  #appId = '';
  #conversationId = '';
  #messageId = '';
  #answerText = '';

  constructor(
    readonly section: HTMLElement,
    readonly hooks: ChatPanelHooks,
  ) {
    section.querySelector('#reply-form')!.addEventListener('submit', (event) => {
      event.preventDefault();
      const query = section.querySelector<HTMLInputElement>('#reply')!.value;
      void this.send(query, hooks.inputs(), this.#conversationId).then(
        (answer) => hooks.replied(answer),
        (error: Error) => hooks.note(`reply failed: ${error.message}`),
      );
    });
  }

  /** Shows the panel for an app of `mode` with fresh elements, or hides it (`appId` undefined). */
  show(appId: string | undefined, mode = ''): void {
    this.section.hidden = !appId;
    this.#appId = appId ?? '';
    this.#clearConversation();
    if (!appId) return;
    const list = this.#fresh('conversation-list', 'conversations');
    list.addEventListener('conversation-selected', (e) => this.#choose((e as CompanionEvent<Conversation>).detail.id));
    list.addEventListener('conversation-deleted', (e) => {
      const { id } = (e as CompanionEvent<Conversation>).detail;
      if (id !== this.#conversationId) return;
      // Its answer, feedback, player and variables went with it.
      this.#clearConversation();
      this.hooks.note(`conversation ${id} deleted: its tools are cleared`);
    });
    if (VARIABLE_MODES.has(mode)) this.#fresh('conversation-variables', 'variables');
    else {
      const note = document.createElement('p');
      note.id = 'variables';
      note.className = 'muted';
      note.textContent = `Apps of mode “${mode}” have no conversation variables.`;
      this.section.querySelector('#variables')!.replaceWith(note);
    }
  }

  /** Sends a message (in `conversationId`, or a new conversation) and shows the answer and its tools. */
  async send(query: string, inputs: Record<string, unknown>, conversationId = ''): Promise<ChatAnswer> {
    const appId = this.#appId;
    this.#answer('…');
    const result = await sendChatMessage(appId, { query, inputs, conversationId }, (text) => this.#answer(text));
    if (appId !== this.#appId) return result;
    this.#answer(result.answer || '(no answer yet: the run waits for a form)');
    this.hooks.note(`chat message answered in conversation ${result.conversationId}`);
    this.#tools(result.messageId, result.conversationId);
    // The answer's conversation becomes the chosen one, whether or not the list has it yet.
    if (result.conversationId) this.#choose(result.conversationId);
    await this.#list()?.reload();
    return result;
  }

  /** An event of the Chatflow run the form element follows: the answer goes on after the form. */
  followRun(event: RunEvent): void {
    if (!this.#appId) return;
    const { conversation_id: conversationId, message_id: messageId } = event as { conversation_id?: string; message_id?: string };
    if (conversationId && conversationId !== this.#conversationId) this.#choose(conversationId);
    if (event.event === 'message_replace') this.#answer(event.answer);
    if (event.event === 'message') this.#answer(this.#answerText + event.answer);
    if (messageId || event.event === 'message_end') this.#tools(event.event === 'message_end' ? event.id : messageId!, this.#conversationId);
    if (event.event === 'message_end') void this.#list()?.reload();
  }

  /** The feedback and the player on message `messageId` (kept when they are on it already). */
  #tools(messageId: string, conversationId: string): void {
    const tools = this.section.querySelector('#answer-tools')!;
    if (messageId === this.#messageId && tools.childElementCount) return;
    this.#messageId = messageId;
    tools.replaceChildren();
    if (!messageId) return;
    const feedback = document.createElement('message-feedback');
    const player = document.createElement('tts-player');
    for (const [element, attributes] of [
      [feedback, { 'message-id': messageId, 'conversation-id': conversationId }],
      [player, { 'message-id': messageId }],
    ] as const) {
      for (const [name, value] of Object.entries(attributes)) element.setAttribute(name, value);
      element.setAttribute('session-url', sessionUrl(this.#appId));
      tools.append(element);
    }
  }

  #choose(conversationId: string): void {
    this.#conversationId = conversationId;
    this.section.querySelector('conversation-variables')?.setAttribute('conversation-id', conversationId);
    const list = this.#list();
    if (list) list.selected = conversationId;
  }

  #clearConversation(): void {
    this.#conversationId = '';
    this.#messageId = '';
    this.#answer('');
    this.section.querySelector('#answer-tools')!.replaceChildren();
    this.section.querySelector('conversation-variables')?.setAttribute('conversation-id', '');
  }

  #list(): ConversationList | null {
    return this.section.querySelector<ConversationList>('conversation-list');
  }

  #fresh(tag: 'conversation-list' | 'conversation-variables', id: string): HTMLElement {
    const element = document.createElement(tag);
    element.id = id;
    element.setAttribute('session-url', sessionUrl(this.#appId));
    this.section.querySelector(`#${id}`)!.replaceWith(element);
    return element;
  }

  #answer(text: string): void {
    this.#answerText = text;
    // A Chatflow's answer node ends with blank lines to set off what follows; none follows on screen.
    this.section.querySelector('#chat-answer')!.textContent = text.trimEnd();
  }
}
