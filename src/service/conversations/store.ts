/**
 * Conversations, their messages and their variables, per app and end user. Times are kept in
 * milliseconds so that cursors stay exact when several records share a second; the wire shows
 * epoch seconds.
 */
import type {
  AgentThoughtEvent,
  Conversation,
  ConversationSort,
  ConversationVariable,
  FeedbackRating,
  HumanInputExtraContent,
  Message,
  MessageFile,
  Page,
} from '../../protocol/index.js';
import { ApiError, badParam, notFound } from '../errors.js';
import type { ConversationVariableSeed, FixtureApp, ValueType } from '../fixture.js';
import { uuid } from '../ids.js';
import { displayValue, fitsValueType, typeMismatchMessage } from './value-types.js';

export interface VariableRecord {
  readonly id: string;
  readonly name: string;
  readonly description: string;
  readonly valueType: ValueType;
  value: unknown;
  readonly createdMs: number;
  updatedMs: number;
}

export type AgentThought = Omit<AgentThoughtEvent, 'event' | 'task_id' | 'conversation_id' | 'message_id' | 'created_at' | 'workflow_run_id'> & {
  message_id: string;
  created_at: number;
};

export interface MessageRecord {
  readonly id: string;
  readonly appId: string;
  readonly user: string;
  readonly conversationId: string;
  readonly parentMessageId: string | null;
  readonly inputs: Record<string, unknown>;
  readonly query: string;
  answer: string;
  status: 'normal' | 'error';
  error: string | null;
  readonly files: MessageFile[];
  feedback: { rating: FeedbackRating; content: string | null } | null;
  readonly agentThoughts: AgentThought[];
  readonly extraContents: HumanInputExtraContent[];
  readonly createdMs: number;
  workflowRunId: string | null;
  messageTokens: number;
  answerTokens: number;
  latency: number;
}

export interface ConversationRecord {
  readonly id: string;
  readonly appId: string;
  readonly user: string;
  name: string;
  readonly inputs: Record<string, unknown>;
  readonly introduction: string;
  readonly createdMs: number;
  updatedMs: number;
  deleted: boolean;
  readonly variables: VariableRecord[];
  /** Oldest first. */
  readonly messages: MessageRecord[];
}

const seconds = (ms: number) => Math.floor(ms / 1000);
const MAX_NAME = 30;

/** Clock that never repeats a millisecond, so records made together still have an order. */
function monotonic(): () => number {
  let last = 0;
  return () => (last = Math.max(Date.now(), last + 1));
}

export class ConversationStore {
  readonly #conversations = new Map<string, ConversationRecord>();
  readonly #messages = new Map<string, MessageRecord>();
  readonly #now = monotonic();

  /** A new conversation with the app's variables, named from the first query when asked to. */
  create(app: FixtureApp, user: string, inputs: Record<string, unknown>, firstQuery: string, autoName: boolean): ConversationRecord {
    const now = this.#now();
    const record: ConversationRecord = {
      id: uuid(),
      appId: app.id,
      user,
      name: autoName && firstQuery.trim() ? generateName(firstQuery) : 'New conversation',
      inputs,
      introduction: app.parameters.opening_statement,
      createdMs: now,
      updatedMs: now,
      deleted: false,
      variables: app.conversation_variables.map((seed) => this.#variable(seed, now)),
      messages: [],
    };
    this.#conversations.set(record.id, record);
    return record;
  }

  /** The user's live conversation in this app, or the real service's 404. */
  get(appId: string, user: string, id: string): ConversationRecord {
    const record = this.#conversations.get(id);
    if (!record || record.deleted || record.appId !== appId || record.user !== user) throw notFound('Conversation Not Exists.');
    return record;
  }

  addMessage(conversation: ConversationRecord, init: { query: string; inputs: Record<string, unknown>; files?: MessageFile[] }): MessageRecord {
    const now = this.#now();
    const message: MessageRecord = {
      id: uuid(),
      appId: conversation.appId,
      user: conversation.user,
      conversationId: conversation.id,
      parentMessageId: conversation.messages.at(-1)?.id ?? null,
      inputs: init.inputs,
      query: init.query,
      answer: '',
      status: 'normal',
      error: null,
      files: init.files ?? [],
      feedback: null,
      agentThoughts: [],
      extraContents: [],
      createdMs: now,
      workflowRunId: null,
      messageTokens: Math.ceil(init.query.length / 4),
      answerTokens: 0,
      latency: 0,
    };
    conversation.messages.push(message);
    conversation.updatedMs = now;
    this.#messages.set(message.id, message);
    return message;
  }

  /** A message the user received in this app (feedback is scoped to that user). */
  message(appId: string, user: string, id: string): MessageRecord {
    const message = this.#messages.get(id);
    const conversation = message && this.#conversations.get(message.conversationId);
    if (!message || !conversation || conversation.deleted || message.appId !== appId || message.user !== user) {
      throw notFound('Message Not Exists.');
    }
    return message;
  }

  /** Any message of the app, for text to audio (which voices an answer whoever asks). */
  messageOfApp(appId: string, id: string): MessageRecord | undefined {
    const message = this.#messages.get(id);
    return message && message.appId === appId ? message : undefined;
  }

  list(appId: string, user: string, query: { lastId: string | null; limit: number; sortBy: ConversationSort }): Page<Conversation> {
    const field = query.sortBy.replace('-', '') as 'created_at' | 'updated_at';
    const descending = query.sortBy.startsWith('-');
    const key = (c: ConversationRecord) => (field === 'created_at' ? c.createdMs : c.updatedMs);
    let rows = [...this.#conversations.values()].filter((c) => c.appId === appId && c.user === user && !c.deleted);
    rows.sort((a, b) => (descending ? key(b) - key(a) : key(a) - key(b)) || a.id.localeCompare(b.id));
    if (query.lastId) {
      const index = rows.findIndex((c) => c.id === query.lastId);
      if (index < 0) throw notFound('Last Conversation Not Exists.');
      rows = rows.slice(index + 1);
    }
    return { limit: query.limit, has_more: rows.length > query.limit, data: rows.slice(0, query.limit).map(conversationView) };
  }

  rename(conversation: ConversationRecord, name: string | null, autoGenerate: boolean): Conversation {
    if (autoGenerate) {
      const first = conversation.messages[0];
      if (!first) throw badParam('Message Not Exists.');
      conversation.name = generateName(first.query);
    } else {
      conversation.name = name ?? '';
      conversation.updatedMs = this.#now();
    }
    return conversationView(conversation);
  }

  delete(conversation: ConversationRecord): void {
    conversation.deleted = true;
    conversation.updatedMs = this.#now();
  }

  variables(conversation: ConversationRecord, query: { lastId: string | null; limit: number; name: string | null }): Page<ConversationVariable> {
    let rows = conversation.variables;
    if (query.name) {
      const needle = query.name.toLowerCase();
      rows = rows.filter((v) => v.name.toLowerCase().includes(needle));
    }
    if (query.lastId) {
      const index = rows.findIndex((v) => v.id === query.lastId);
      // The real service lets this one through as a bare ValueError: 400 invalid_param.
      if (index < 0) throw badParam('Conversation Variable Not Exists.');
      rows = rows.slice(index + 1);
    }
    return { limit: query.limit, has_more: rows.length > query.limit, data: rows.slice(0, query.limit).map(variableView) };
  }

  updateVariable(conversation: ConversationRecord, variableId: string, value: unknown): ConversationVariable {
    const variable = conversation.variables.find((v) => v.id === variableId);
    if (!variable) throw notFound('Conversation Variable Not Exists.');
    if (!fitsValueType(variable.valueType, value)) throw new ApiError(400, 'bad_request', typeMismatchMessage(variable.name, variable.valueType, value));
    variable.value = value;
    variable.updatedMs = this.#now();
    return variableView(variable);
  }

  /** Newest page before `firstId`, in chronological order like the real service. */
  messages(conversation: ConversationRecord, query: { firstId: string | null; limit: number }): Page<Message> {
    let older = conversation.messages;
    if (query.firstId) {
      const index = older.findIndex((m) => m.id === query.firstId);
      if (index < 0) throw notFound('First Message Not Exists.');
      older = older.slice(0, index);
    }
    const page = older.slice(Math.max(0, older.length - query.limit));
    return { limit: query.limit, has_more: older.length > query.limit, data: page.map(messageView) };
  }

  /** Messages of a conversation, for `{{#sys.dialogue_count#}}`. */
  count(conversation: ConversationRecord): number {
    return conversation.messages.length;
  }

  touch(conversation: ConversationRecord): void {
    conversation.updatedMs = this.#now();
  }

  clear(): void {
    this.#conversations.clear();
    this.#messages.clear();
  }

  #variable(seed: ConversationVariableSeed, now: number): VariableRecord {
    return {
      id: uuid(),
      name: seed.name,
      description: seed.description,
      valueType: seed.value_type,
      value: structuredClone(seed.value),
      createdMs: now,
      updatedMs: now,
    };
  }
}

/** A short name from the first query, standing in for the real service's generated title. */
export function generateName(query: string): string {
  const line = query.trim().split('\n')[0]!.replace(/\s+/g, ' ');
  return line.length > MAX_NAME ? `${line.slice(0, MAX_NAME - 1).trimEnd()}…` : line;
}

export function conversationView(c: ConversationRecord): Conversation {
  return {
    id: c.id,
    name: c.name,
    inputs: c.inputs,
    status: 'normal',
    introduction: c.introduction,
    created_at: seconds(c.createdMs),
    updated_at: seconds(c.updatedMs),
  };
}

export function variableView(v: VariableRecord): ConversationVariable {
  return {
    id: v.id,
    name: v.name,
    value_type: v.valueType,
    value: displayValue(v.value),
    description: v.description,
    created_at: seconds(v.createdMs),
    updated_at: seconds(v.updatedMs),
  };
}

export function messageView(m: MessageRecord): Message {
  return {
    id: m.id,
    conversation_id: m.conversationId,
    parent_message_id: m.parentMessageId,
    inputs: m.inputs,
    query: m.query,
    answer: m.answer,
    status: m.status,
    error: m.error,
    message_files: m.files,
    feedback: m.feedback ? { rating: m.feedback.rating } : null,
    retriever_resources: [],
    agent_thoughts: m.agentThoughts,
    created_at: seconds(m.createdMs),
    extra_contents: m.extraContents,
    message_tokens: m.messageTokens,
    answer_tokens: m.answerTokens,
    total_tokens: m.messageTokens + m.answerTokens,
    provider_response_latency: m.latency,
    total_price: '0',
    currency: 'USD',
  };
}
