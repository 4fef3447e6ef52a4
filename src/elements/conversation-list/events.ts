/** Typed events of `<conversation-list>`; `detail` is the conversation. All bubble and cross shadow roots. */
import type { Conversation } from '../../protocol/index.js';
import { CompanionEvent } from '../shared/companion-events.js';

/** A conversation was chosen. */
export class ConversationSelectedEvent extends CompanionEvent<Conversation> {
  static readonly type = 'conversation-selected';
  declare readonly detail: Conversation;

  constructor(conversation: Conversation) {
    super(ConversationSelectedEvent.type, conversation);
  }
}

/** A rename succeeded; `detail` is the renamed conversation. */
export class ConversationRenamedEvent extends CompanionEvent<Conversation> {
  static readonly type = 'conversation-renamed';
  declare readonly detail: Conversation;

  constructor(conversation: Conversation) {
    super(ConversationRenamedEvent.type, conversation);
  }
}

/** About to delete; call `preventDefault()` to keep the conversation. */
export class BeforeConversationDeleteEvent extends CompanionEvent<Conversation> {
  static readonly type = 'before-conversation-delete';
  declare readonly detail: Conversation;

  constructor(conversation: Conversation) {
    super(BeforeConversationDeleteEvent.type, conversation, true);
  }
}

/** A delete succeeded; `detail` is the deleted conversation. */
export class ConversationDeletedEvent extends CompanionEvent<Conversation> {
  static readonly type = 'conversation-deleted';
  declare readonly detail: Conversation;

  constructor(conversation: Conversation) {
    super(ConversationDeletedEvent.type, conversation);
  }
}
