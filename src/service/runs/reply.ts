/**
 * Answers of the apps without a workflow (Chatbot, Agent, Legacy Agent, Text Generator): the
 * fixture's reply template streamed as `message` (or, for agents, `agent_thought` +
 * `agent_message`) events, closed by `message_end`. Like workflow runs they go on whether or not
 * a client listens, and `stop` ends them early with what was said so far.
 */
import { logFault } from '../errors.js';
import { DEFAULT_RETENTION, FinishedQueue } from '../retention.js';
import type { AnnotationReplyMetadata, AppMode, RunEvent } from '../../protocol/index.js';
import { substituteVariables } from '../../protocol/index.js';
import type { ConversationRecord, MessageRecord } from '../conversations/store.js';
import type { FixtureApp } from '../fixture.js';
import { uuid } from '../ids.js';
import { inputVariables } from '../run-inputs.js';
import { RunTopic } from './topic.js';
import { delay, tokensOf, usage } from './usage.js';

export interface ReplyTask {
  readonly taskId: string;
  readonly app: FixtureApp;
  readonly user: string;
  readonly conversation: ConversationRecord;
  readonly message: MessageRecord;
  readonly topic: RunTopic;
  status: 'running' | 'finished' | 'stopped';
  /** The closing `message_end`, for blocking answers that start after it. */
  end: RunEvent | null;
  readonly startedMs: number;
  readonly abort: AbortController;
  /** Set when an annotation answers instead of the app (annotation reply): its answer and who wrote it. */
  readonly annotation: AnnotationAnswer | null;
}

export interface AnnotationAnswer extends AnnotationReplyMetadata {
  readonly answer: string;
}

const isAgent = (mode: AppMode) => mode === 'agent' || mode === 'agent-chat';

export interface ReplyOptions {
  latencyMs?: () => number;
  /** Finished replies kept (see retention.ts); default 10,000. */
  keepFinished?: number;
}

export class ReplyTasks {
  readonly #tasks = new Map<string, ReplyTask>();
  readonly #options: ReplyOptions;
  readonly #finished: FinishedQueue;

  constructor(options: ReplyOptions = {}) {
    this.#options = options;
    this.#finished = new FinishedQueue(options.keepFinished ?? DEFAULT_RETENTION.finishedRuns, (id) => this.#tasks.delete(id));
  }

  create(app: FixtureApp, user: string, conversation: ConversationRecord, message: MessageRecord, annotation: AnnotationAnswer | null = null): ReplyTask {
    const task: ReplyTask = {
      annotation,
      taskId: uuid(),
      app,
      user,
      conversation,
      message,
      topic: new RunTopic(),
      status: 'running',
      end: null,
      startedMs: Date.now(),
      abort: new AbortController(),
    };
    this.#tasks.set(task.taskId, task);
    return task;
  }

  get(taskId: string): ReplyTask | undefined {
    return this.#tasks.get(taskId);
  }

  /** Streams the reply in the background; call once listeners are attached. */
  execute(task: ReplyTask): void {
    void this.#reply(task).catch((error) => {
      if (task.abort.signal.aborted) return;
      logFault('reply failed', error, []);
      task.status = 'finished';
      task.message.status = 'error';
      task.message.error = (error as Error).message;
      this.#publish(task, { event: 'error', code: 'internal_server_error', status: 500, message: 'Internal Server Error, please contact support.' }, true);
      this.#finished.finished(task.taskId);
    });
  }

  /** Ends a running reply with what was said so far. */
  stop(task: ReplyTask): void {
    if (task.status !== 'running') return;
    task.status = 'stopped';
    this.#end(task);
  }

  close(): void {
    for (const task of this.#tasks.values()) task.abort.abort();
    this.#tasks.clear();
    this.#finished.clear();
  }

  async #reply(task: ReplyTask): Promise<void> {
    if (task.annotation) return this.#annotate(task, task.annotation);
    const { app, message, conversation } = task;
    const reply = app.reply!;
    const variables = Object.fromEntries(conversation.variables.map((v) => [v.name, v.value]));
    const pool: Record<string, Record<string, unknown>> = {
      sys: { query: message.query, user_id: task.user, conversation_id: conversation.id, dialogue_count: conversation.messages.length },
      inputs: { ...Object.fromEntries(inputVariables(app).map((v) => [v.variable, v.default])), ...message.inputs },
      conversation: variables,
    };
    const fill = (template: string) =>
      substituteVariables(template, (selector) => {
        let value: unknown = pool[selector[0]!];
        for (const key of selector.slice(1)) value = (value as Record<string, unknown> | undefined)?.[key];
        return value ?? '';
      });
    const agent = isAgent(app.mode);
    let position = 0;
    if (agent) {
      for (const step of reply.thoughts) {
        const thought = {
          id: uuid(),
          message_id: message.id,
          position: ++position,
          thought: fill(step.thought),
          observation: fill(step.observation),
          tool: step.tool,
          tool_labels: toolLabels(step.tool, step.tool_labels),
          tool_input: JSON.stringify({ [step.tool]: step.tool_input }),
          message_files: [],
          created_at: Math.floor(Date.now() / 1000),
        };
        await this.#wait(task, reply.chunk_delay_ms);
        if (task.status !== 'running') return;
        message.agentThoughts.push(thought);
        this.#publish(task, { event: 'agent_thought', ...withoutMeta(thought) });
      }
    }
    const answer = fill(reply.answer);
    // The answering round's thought goes out before its chunks and again, filled, after them, under
    // one id (Dify's agent runners publish the round's thought on its first chunk and once it is
    // saved): a client that appends `agent_message` text to the latest thought, as Dify's web app
    // does, then shows the answer once, not also on the tool step before it.
    const final = agent && {
      id: uuid(),
      message_id: message.id,
      position: ++position,
      thought: '',
      observation: '',
      tool: '',
      tool_labels: {},
      tool_input: '',
      message_files: [],
      created_at: Math.floor(Date.now() / 1000),
    };
    for (let i = 0; i < answer.length; i += reply.chunk_size) {
      await this.#wait(task, reply.chunk_delay_ms);
      if (task.status !== 'running') return;
      if (final && i === 0) this.#publish(task, { event: 'agent_thought', ...withoutMeta(final) });
      const chunk = answer.slice(i, i + reply.chunk_size);
      message.answer += chunk;
      this.#publish(task, { event: agent ? 'agent_message' : 'message', id: message.id, answer: chunk });
    }
    if (final) {
      final.thought = answer;
      message.agentThoughts.push(final);
      this.#publish(task, { event: 'agent_thought', ...withoutMeta(final) });
    }
    task.status = 'finished';
    this.#end(task);
  }

  /**
   * The annotation's answer, as Dify's runners give it: a Chatbot's or Agent's `direct_output` one
   * `message` per character (agents too: `QueueLLMChunkEvent`s), a Chatflow's
   * `_complete_with_stream_output` one `message` with all of it and no workflow run. No model ran:
   * no tokens. The `message_end` names the annotation, except a Chatflow's, whose pipeline deletes
   * `annotation_reply` from it (`_message_end_to_stream_response`).
   */
  async #annotate(task: ReplyTask, annotation: AnnotationAnswer): Promise<void> {
    const { message } = task;
    message.messageTokens = 0;
    const chunks = task.app.mode === 'advanced-chat' ? [annotation.answer] : [...annotation.answer];
    await this.#wait(task, 0);
    for (const chunk of chunks) {
      if (task.status !== 'running') return;
      message.answer += chunk;
      this.#publish(task, { event: 'message', id: message.id, answer: chunk, ...(task.app.mode === 'advanced-chat' ? { from_variable_selector: null } : {}) });
    }
    task.status = 'finished';
    this.#end(task);
  }

  #end(task: ReplyTask): void {
    const { message, annotation } = task;
    message.answerTokens = annotation ? 0 : tokensOf(message.answer);
    message.latency = Math.round((Date.now() - task.startedMs) / 10) / 100;
    const shown = annotation && task.app.mode !== 'advanced-chat' ? { annotation_reply: { id: annotation.id, account: annotation.account } } : {};
    const end = this.#envelope(task, {
      event: 'message_end',
      id: message.id,
      metadata: { ...shown, usage: usage(message.messageTokens, message.answerTokens, message.latency), retriever_resources: [] },
      files: [],
    });
    task.end = end;
    task.topic.publish(end);
    this.#finished.finished(task.taskId);
  }

  async #wait(task: ReplyTask, ms: number): Promise<void> {
    await delay(ms + (this.#options.latencyMs?.() ?? 0), task.abort.signal);
  }

  #publish(task: ReplyTask, event: Record<string, unknown>, final = false): void {
    if (task.abort.signal.aborted || (task.status !== 'running' && !final)) return;
    task.topic.publish(this.#envelope(task, event));
  }

  /** Chat apps: event, conversation_id, message_id, created_at, task_id; completion: no conversation. */
  #envelope(task: ReplyTask, event: Record<string, unknown>): RunEvent {
    const head: Record<string, unknown> = { event: event.event };
    if (task.app.mode !== 'completion') head.conversation_id = task.conversation.id;
    head.message_id = task.message.id;
    head.created_at = Math.floor(task.message.createdMs / 1000);
    if (event.event !== 'error') head.task_id = task.taskId;
    return Object.assign(head, event) as unknown as RunEvent;
  }
}

/** An agent thought as the stream carries it: the envelope gives message and time. */
function withoutMeta<T extends { message_id: string; created_at: number }>(thought: T): Omit<T, 'message_id' | 'created_at'> {
  const { message_id: _m, created_at: _c, ...rest } = thought;
  return rest;
}

/**
 * `tool_labels` as the real agent runners store them: one I18n object per tool of a `;`-joined
 * `tool`, always with `en_US` and `zh_Hans` (Dify's web types require both; a tool without a
 * label of its own gets its name in both, and `I18nObject` fills a missing `zh_Hans` from `en_US`).
 */
export function toolLabels(tool: string, labels: Record<string, { en_US: string } & Record<string, string>>): Record<string, Record<string, string>> {
  const out: Record<string, Record<string, string>> = {};
  for (const name of tool.split(';')) {
    if (!name || name in out) continue;
    const label = labels[name];
    out[name] = label ? { ...label, zh_Hans: label.zh_Hans || label.en_US } : { en_US: name, zh_Hans: name };
  }
  return out;
}
