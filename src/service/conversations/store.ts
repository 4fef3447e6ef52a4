/**
 * Conversations, their messages and their variables, per app and end user. Times are kept in
 * milliseconds so that cursors stay exact when several records share a second; the wire shows
 * epoch seconds.
 */
import type {
  AgentThoughtEvent,
  AppFeedback,
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
import { DEFAULT_RETENTION } from '../retention.js';
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
  feedback: FeedbackRecord | null;
  readonly agentThoughts: AgentThought[];
  readonly extraContents: HumanInputExtraContent[];
  readonly createdMs: number;
  workflowRunId: string | null;
  messageTokens: number;
  answerTokens: number;
  latency: number;
}

/** A message's rating: a changed rating keeps its id and times (Dify updates the row, whose `updated_at` has no `onupdate`). */
export interface FeedbackRecord {
  readonly id: string;
  rating: FeedbackRating;
  content: string | null;
  readonly createdMs: number;
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

/**
 * One app user's live conversations in both orders `GET /conversations` pages through, so a
 * page costs a binary search and `limit` steps however many conversations the service holds.
 * Times come from a clock that never repeats, so neither order has ties; a conversation that
 * changes always becomes the newest by `updated_at`, so it moves to the end of that order.
 */
class UserConversations {
  /** By `createdMs`, oldest first (append-only). */
  readonly byCreated: ConversationRecord[] = [];
  /** By `updatedMs`, oldest first. */
  readonly byUpdated: ConversationRecord[] = [];

  add(record: ConversationRecord): void {
    this.byCreated.push(record);
    this.byUpdated.push(record);
  }

  /** Call before `record.updatedMs` changes; `touched` after it has. */
  untouch(record: ConversationRecord): void {
    const at = positionOf(this.byUpdated, record.updatedMs, (c) => c.updatedMs);
    if (at >= 0) this.byUpdated.splice(at, 1);
  }

  touched(record: ConversationRecord): void {
    this.byUpdated.push(record);
  }

  remove(record: ConversationRecord): void {
    this.untouch(record);
    const at = positionOf(this.byCreated, record.createdMs, (c) => c.createdMs);
    if (at >= 0) this.byCreated.splice(at, 1);
  }
}

/** The index of the record whose key is `key` in rows sorted by that key (binary search). */
function positionOf(rows: readonly ConversationRecord[], key: number, keyOf: (c: ConversationRecord) => number): number {
  let low = 0;
  let high = rows.length - 1;
  while (low <= high) {
    const mid = (low + high) >>> 1;
    const at = keyOf(rows[mid]!);
    if (at === key) return mid;
    if (at < key) low = mid + 1;
    else high = mid - 1;
  }
  return -1;
}

export class ConversationStore {
  readonly #conversations = new Map<string, ConversationRecord>();
  /** Every kept conversation, least recently active first (a change moves one to the end). */
  readonly #recency = new Map<string, ConversationRecord>();
  readonly #messages = new Map<string, MessageRecord>();
  /** Rated messages, oldest rating first (a revoked rating leaves; a new one comes in at the end). */
  readonly #rated = new Map<string, MessageRecord>();
  /** How many conversations are kept (see retention.ts). */
  readonly #limit: number;

  constructor(options: { keep?: number } = {}) {
    this.#limit = options.keep ?? DEFAULT_RETENTION.conversations;
  }

  /** How many conversations are kept now, deleted ones included until they age out. */
  get size(): number {
    return this.#conversations.size;
  }
  /** Live conversations per app and user (`appId` NUL `user`). */
  readonly #index = new Map<string, UserConversations>();
  readonly #now = monotonic();

  #indexOf(appId: string, user: string, create: true): UserConversations;
  #indexOf(appId: string, user: string, create?: false): UserConversations | undefined;
  #indexOf(appId: string, user: string, create = false): UserConversations | undefined {
    const key = `${appId}\u0000${user}`;
    let index = this.#index.get(key);
    if (!index && create) this.#index.set(key, (index = new UserConversations()));
    return index;
  }

  /** Sets a live conversation's `updatedMs` to now, keeping its place in the index. */
  #setUpdated(record: ConversationRecord): void {
    const index = record.deleted ? undefined : this.#indexOf(record.appId, record.user);
    index?.untouch(record);
    record.updatedMs = this.#now();
    index?.touched(record);
    this.#recent(record);
  }

  #recent(record: ConversationRecord): void {
    if (!this.#recency.delete(record.id)) return;
    this.#recency.set(record.id, record);
  }

  /** Forgets a conversation and its messages (retention). A run still answering into it keeps its own reference. */
  #evict(record: ConversationRecord): void {
    if (!record.deleted) this.#indexOf(record.appId, record.user)?.remove(record);
    const key = `${record.appId}\u0000${record.user}`;
    if (this.#index.get(key)?.byCreated.length === 0) this.#index.delete(key);
    this.#conversations.delete(record.id);
    this.#recency.delete(record.id);
    for (const message of record.messages) this.#messages.delete(message.id), this.#rated.delete(message.id);
  }

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
    this.#recency.set(record.id, record);
    this.#indexOf(app.id, user, true).add(record);
    while (this.#recency.size > this.#limit) this.#evict(this.#recency.values().next().value as ConversationRecord);
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
    this.#setUpdated(conversation);
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

  /** The exchanges up to `message` in its conversation, the last `count` of them, oldest first. */
  history(message: MessageRecord, count: number): MessageRecord[] {
    const messages = this.#conversations.get(message.conversationId)?.messages ?? [message];
    const at = messages.indexOf(message);
    return messages.slice(Math.max(0, at + 1 - count), at + 1);
  }

  /** Any message of the app, for text to audio (which voices an answer whoever asks). */
  messageOfApp(appId: string, id: string): MessageRecord | undefined {
    const message = this.#messages.get(id);
    return message && message.appId === appId ? message : undefined;
  }

  /** Rates a message, or changes its rating; `null` revokes it (Dify deletes the row). */
  rate(message: MessageRecord, feedback: { rating: FeedbackRating; content: string | null } | null): void {
    if (!feedback) {
      message.feedback = null;
      this.#rated.delete(message.id);
    } else if (message.feedback) {
      Object.assign(message.feedback, feedback);
    } else {
      message.feedback = { id: uuid(), ...feedback, createdMs: this.#now() };
      this.#rated.set(message.id, message);
    }
  }

  /** The app's rated messages, newest rating first, page `page` (from 1) of `limit`; none of deleted conversations. */
  rated(appId: string, page: number, limit: number): MessageRecord[] {
    const rows: MessageRecord[] = [];
    const skip = (page - 1) * limit;
    let seen = 0;
    for (const message of [...this.#rated.values()].reverse()) {
      if (message.appId !== appId || this.#conversations.get(message.conversationId)?.deleted !== false) continue;
      if (seen++ < skip) continue;
      rows.push(message);
      if (rows.length === limit) break;
    }
    return rows;
  }

  list(appId: string, user: string, query: { lastId: string | null; limit: number; sortBy: ConversationSort }): Page<Conversation> {
    const byCreated = query.sortBy.replace('-', '') === 'created_at';
    const descending = query.sortBy.startsWith('-');
    const keyOf = byCreated ? (c: ConversationRecord) => c.createdMs : (c: ConversationRecord) => c.updatedMs;
    const index = this.#indexOf(appId, user);
    const rows = index ? (byCreated ? index.byCreated : index.byUpdated) : [];
    const step = descending ? -1 : 1;
    let start = descending ? rows.length - 1 : 0;
    if (query.lastId) {
      const last = this.#conversations.get(query.lastId);
      const at = last && !last.deleted && last.appId === appId && last.user === user ? positionOf(rows, keyOf(last), keyOf) : -1;
      if (at < 0) throw notFound('Last Conversation Not Exists.');
      start = at + step;
    }
    const page: ConversationRecord[] = [];
    for (let i = start; i >= 0 && i < rows.length && page.length <= query.limit; i += step) page.push(rows[i]!);
    return { limit: query.limit, has_more: page.length > query.limit, data: page.slice(0, query.limit).map(conversationView) };
  }

  rename(conversation: ConversationRecord, name: string | null, autoGenerate: boolean): Conversation {
    if (autoGenerate) {
      const first = conversation.messages[0];
      if (!first) throw badParam('Message Not Exists.');
      conversation.name = generateName(first.query);
    } else {
      conversation.name = name ?? '';
      this.#setUpdated(conversation);
    }
    return conversationView(conversation);
  }

  delete(conversation: ConversationRecord): void {
    if (conversation.deleted) return;
    this.#indexOf(conversation.appId, conversation.user)?.remove(conversation);
    conversation.deleted = true;
    conversation.updatedMs = this.#now();
    this.#recent(conversation);
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
    this.#setUpdated(conversation);
  }

  clear(): void {
    this.#conversations.clear();
    this.#messages.clear();
    this.#rated.clear();
    this.#index.clear();
    this.#recency.clear();
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

/** A rating as `GET /app/feedbacks` lists it: `MessageFeedback.to_dict` of an end user's row. */
export function feedbackView(m: MessageRecord, fromEndUserId: string): AppFeedback {
  const { id, rating, content, createdMs } = m.feedback!;
  const at = pythonIsoformat(createdMs);
  return {
    id,
    app_id: m.appId,
    conversation_id: m.conversationId,
    message_id: m.id,
    rating,
    content,
    from_source: 'user',
    from_end_user_id: fromEndUserId,
    from_account_id: null,
    created_at: at,
    updated_at: at,
  };
}

/** A UTC time as Python's `datetime.isoformat()` writes a naive one: no zone, microseconds only when not zero. */
export function pythonIsoformat(ms: number): string {
  const text = new Date(ms).toISOString().slice(0, -1);
  return text.endsWith('.000') ? text.slice(0, -4) : `${text}000`;
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
