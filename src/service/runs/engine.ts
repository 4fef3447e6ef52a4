/**
 * Executes fixture workflows the way the real service does from a client's point of view: node
 * events, streamed text, pauses at human-input nodes (emitting `human_input_required` then
 * `workflow_paused`), resumption along the chosen action's branch, the timeout branch, and stop.
 * Workflow apps stream `text_chunk`s; Chatflow runs stream their answer nodes as `message`s into
 * the conversation's message and end with `message_end`. Runs go on server-side whether or not
 * anyone listens.
 */
import { logFault } from '../errors.js';
import type {
  HumanInputExtraContent,
  HumanInputRequest,
  NodeFinishedData,
  NodeStartedData,
  RunEvent,
  WorkflowFinishedData,
  WorkflowPausedData,
} from '../../protocol/index.js';
import { renderWithOutputs, stringifyValue, substituteVariables } from '../../protocol/index.js';
import { pythonStr } from '../python-str.js';
import type { FixtureApp, FixtureEdge, HumanInputNode, WorkflowNode } from '../fixture.js';
import { FormStore, type HumanInputForm, type SubmittedFile } from '../forms.js';
import { formToken, nowSeconds, uuid } from '../ids.js';
import { DEFAULT_RETENTION, FinishedQueue } from '../retention.js';
import { createRun, elapsedSeconds, inputsWithSystem, isOver, type ChatTarget, type Run } from './run.js';
import { delay, tokensOf, usage } from './usage.js';

/** A run event before the envelope is added. */
type Emittable = RunEvent extends infer E ? (E extends { event: string } ? Omit<E, 'task_id' | 'workflow_run_id' | 'conversation_id' | 'message_id' | 'created_at'> : never) : never;

const TIMEOUT_HANDLE = '__timeout';
/** Events of a Chatflow that carry no `workflow_run_id` (dify-wire.md §4.2). */
const CHAT_ONLY_EVENTS: ReadonlySet<string> = new Set(['message', 'message_end', 'message_replace', 'agent_log', 'text_chunk', 'reasoning_chunk', 'tts_message', 'tts_message_end', 'error']);
const STOPPED_ERROR = 'Workflow execution stopped by user.';

export interface EngineOptions {
  /** Extra delay before each event, for QA latency scenarios. */
  latencyMs?: () => number;
  /** The end-user record id of an app's `user`, which `created_by` carries (else the `user` itself). */
  endUserId?: (appId: string, user: string) => string;
  /** Finished runs kept (see retention.ts); default 10,000. */
  keepFinishedRuns?: number;
}

export class WorkflowEngine {
  readonly runs = new Map<string, Run>();
  readonly #byTask = new Map<string, Run>();
  readonly forms = new FormStore();
  readonly #options: EngineOptions;
  /** Forms by run id, so a forgotten run takes its forms along. */
  readonly #formsOf = new Map<string, HumanInputForm[]>();
  readonly #finished: FinishedQueue;

  constructor(options: EngineOptions = {}) {
    this.#options = options;
    this.#finished = new FinishedQueue(options.keepFinishedRuns ?? DEFAULT_RETENTION.finishedRuns, (id) => this.#forget(id));
  }

  #forget(id: string): void {
    const run = this.runs.get(id);
    if (!run) return;
    this.runs.delete(id);
    this.#byTask.delete(run.taskId);
    for (const form of this.#formsOf.get(id) ?? []) this.forms.remove(form);
    this.#formsOf.delete(id);
  }

  /** Creates a run; call `execute` once listeners are attached. */
  create(app: FixtureApp, user: string, inputs: Record<string, unknown>, chat: ChatTarget | null = null, files: SubmittedFile[] = []): Run {
    if (!app.workflow) throw new Error(`app ${app.id} has no workflow`);
    const run = createRun({ id: uuid(), taskId: uuid(), app, workflow: app.workflow, user, inputs, chat, files });
    this.runs.set(run.id, run);
    this.#byTask.set(run.taskId, run);
    if (chat) {
      chat.message.workflowRunId = run.id;
      // A Chatflow's message counts what its LLM nodes use, and nothing for the query itself:
      // Dify's `_save_message` takes `graph_runtime_state.llm_usage` (empty when no LLM node ran).
      chat.message.messageTokens = 0;
    }
    return run;
  }

  byTask(taskId: string): Run | undefined {
    return this.#byTask.get(taskId);
  }

  /** Starts executing a created run in the background. */
  execute(run: Run, query = ''): void {
    const start = run.workflow.nodes.find((n) => n.type === 'start')!;
    // In `SystemVariable.to_dict`'s order.
    run.pool.set('sys', {
      files: run.files,
      user_id: run.user,
      app_id: run.app.id,
      workflow_id: run.workflow.id,
      workflow_run_id: run.id,
      ...(run.chat ? { query, conversation_id: run.chat.conversation.id, dialogue_count: run.chat.conversation.messages.length } : {}),
    });
    void this.#guard(run, async () => {
      await this.#emit(run, {
        event: 'workflow_started',
        data: { id: run.id, workflow_id: run.workflow.id, inputs: inputsWithSystem(run), created_at: run.createdAt, reason: 'initial' },
      });
      await this.#walk(run, start.id, null);
    });
  }

  /** Resumes a paused run after a successful submit. */
  resume(form: HumanInputForm, action: { id: string; title: string }, values: Record<string, unknown>): void {
    form.status = 'submitted';
    clearTimeout(form.timer);
    const { run, node } = form;
    const rendered = renderWithOutputs(form.request.form_content, form.inputs(), values, pythonStr);
    const filled = {
      node_id: node.id,
      node_title: node.title,
      rendered_content: rendered,
      action_id: action.id,
      action_text: action.title,
      submitted_data: values,
    };
    const extra = this.#extraContent(run, form);
    if (extra) {
      extra.submitted = true;
      extra.form_submission_data = filled;
    }
    void this.#guard(run, async () => {
      await this.#resumeAt(run, node, async (started) => {
        await this.#emit(run, { event: 'human_input_form_filled', data: filled });
        const outputs = { ...values, __action_id: action.id, __action_value: action.title, __rendered_content: rendered };
        await this.#finishNode(run, started, outputs);
      });
      await this.#follow(run, node.id, action.id);
    });
  }

  /** The form's expiry passed unanswered: take the timeout branch. */
  timeOut(form: HumanInputForm): void {
    if (form.status !== 'waiting') return;
    form.status = 'timeout';
    clearTimeout(form.timer);
    const { run, node } = form;
    void this.#guard(run, async () => {
      await this.#resumeAt(run, node, async (started) => {
        await this.#emit(run, {
          event: 'human_input_form_timeout',
          data: { node_id: node.id, node_title: node.title, expiration_time: form.request.expiration_time },
        });
        await this.#finishNode(run, started, { __action_id: TIMEOUT_HANDLE });
      });
      await this.#follow(run, node.id, TIMEOUT_HANDLE);
    });
  }

  /** Stops a run that is running or paused; its forms close. A finished run stays as it was. */
  stop(run: Run): void {
    if (isOver(run)) return;
    run.status = 'stopped';
    this.#closeForm(run);
    void this.#guard(run, () => this.#finishWorkflow(run, run.outputs ?? {}, 'stopped'));
  }

  /**
   * Fails a running or paused run as a node failing would (a provider error, say): the node in
   * progress finishes `failed` with `message`, then `workflow_finished(failed)`. A Workflow's
   * stream ends there (Dify's workflow pipeline sends nothing after it); a Chatflow's gets an
   * in-stream `error`, `invalid_param` "Run failed: …", as Dify's advanced-chat pipeline wraps the
   * failure in a `ValueError`. Its waiting form closes.
   */
  fail(run: Run, message: string): void {
    if (isOver(run)) return;
    const error = { code: 'invalid_param', status: 400, message: `Run failed: ${message}` };
    this.#failed(run, error.message);
    void (async () => {
      for (const record of run.executions) {
        if (record.finished) continue;
        const { started } = record;
        record.finished = { ...endedShell(started), status: 'failed', error: message };
        await this.#emit(run, { event: 'node_finished', data: record.finished }, true);
      }
      await this.#finishWorkflow(run, run.outputs ?? {}, 'failed', message);
      if (run.chat) await this.#emit(run, { event: 'error', ...error }, true);
    })().catch(() => undefined);
  }

  /** A fault of this service inside a run: `workflow_finished(failed)`, then an in-stream `internal_server_error`. */
  #crash(run: Run): void {
    if (isOver(run)) return;
    const error = { code: 'internal_server_error', status: 500, message: 'Internal Server Error, please contact support.' };
    this.#failed(run, error.message);
    void this.#finishWorkflow(run, run.outputs ?? {}, 'failed', error.message)
      .then(() => this.#emit(run, { event: 'error', ...error }, true))
      .catch(() => undefined);
  }

  /** Marks a run failed: its form closes, and a Chatflow's message keeps `reason` as its error. */
  #failed(run: Run, reason: string): void {
    this.#closeForm(run);
    run.status = 'failed';
    if (run.chat) {
      run.chat.message.status = 'error';
      run.chat.message.error = reason;
    }
  }

  /** The form a run waits on closes with it. */
  #closeForm(run: Run): void {
    const form = run.pausedOn ? this.forms.byId(run.pausedOn) : undefined;
    if (form && form.status === 'waiting') {
      form.status = 'expired';
      clearTimeout(form.timer);
    }
    run.pausedOn = null;
  }

  /** Stops every timer; runs in flight stop at their next step. */
  close(): void {
    for (const run of this.runs.values()) run.abort.abort();
    this.forms.clear();
    this.runs.clear();
    this.#byTask.clear();
    this.#formsOf.clear();
    this.#finished.clear();
  }

  /** The `workflow_paused` payload of a run paused on `form` (also replayed by snapshots). */
  pausedData(run: Run, form: HumanInputForm): WorkflowPausedData {
    return {
      workflow_run_id: run.id,
      paused_nodes: [form.node.id],
      outputs: {},
      reasons: [{ TYPE: 'human_input_required', ...form.request }],
      status: 'paused',
      created_at: run.createdAt,
      elapsed_time: elapsedSeconds(run),
      total_tokens: run.totalTokens,
      total_steps: run.totalSteps,
    };
  }

  /** Adds the envelope the run's app type puts on every event (dify-wire.md §4.2). */
  envelope(run: Run, event: Emittable): RunEvent {
    if (run.chat) {
      const { message } = run.chat;
      const head: Record<string, unknown> = {
        event: event.event,
        conversation_id: message.conversationId,
        message_id: message.id,
        created_at: Math.floor(message.createdMs / 1000),
      };
      if (event.event !== 'error') head.task_id = run.taskId;
      if (!CHAT_ONLY_EVENTS.has(event.event)) head.workflow_run_id = run.id;
      return Object.assign(head, event) as RunEvent;
    }
    // Field order as the real service writes it: event, task_id, workflow_run_id, then the payload.
    const head: Record<string, unknown> = { event: event.event };
    if (event.event !== 'error') head.task_id = run.taskId;
    head.workflow_run_id = run.id;
    return Object.assign(head, event) as RunEvent;
  }

  async #resumeAt(run: Run, node: HumanInputNode, body: (started: NodeStartedData) => Promise<void>): Promise<void> {
    run.status = 'running';
    run.pausedOn = null;
    await this.#emit(run, {
      event: 'workflow_started',
      data: { id: run.id, workflow_id: run.workflow.id, inputs: inputsWithSystem(run), created_at: run.createdAt, reason: 'resumption' },
    });
    const started = await this.#startNode(run, node, null);
    await body(started);
  }

  async #follow(run: Run, from: string, handle: string): Promise<void> {
    const next = this.#next(run, from, handle);
    if (next) await this.#walk(run, next, from);
    else await this.#finishWorkflow(run, run.outputs ?? this.#chatOutputs(run));
  }

  /** The node after `from`: its conditional edges first (in order), then its plain one. */
  #next(run: Run, from: string, handle?: string): string | undefined {
    const out = run.workflow.edges.filter((e) => e.source === from && (handle === undefined ? !e.source_handle : e.source_handle === handle));
    const taken = out.find((e) => e.when && this.#matches(run, e.when)) ?? out.find((e) => !e.when);
    return taken?.target;
  }

  #matches(run: Run, when: NonNullable<FixtureEdge['when']>): boolean {
    return when.in.includes(stringifyValue(this.#lookup(run, when.variable)));
  }

  async #walk(run: Run, nodeId: string, predecessor: string | null): Promise<void> {
    let current: string | undefined = nodeId;
    let previous = predecessor;
    while (current) {
      if (run.abort.signal.aborted || isOver(run)) return;
      const node: WorkflowNode = run.workflow.nodes.find((n) => n.id === current)!;
      const started = await this.#startNode(run, node, previous);
      switch (node.type) {
        case 'start': {
          await this.#finishNode(run, started, inputsWithSystem(run, true));
          break;
        }
        case 'llm': {
          const text = this.#substitute(run, node.text);
          // A Chatflow's LLM text reaches the chat through its answer nodes; only workflows stream it.
          if (!run.chat) {
            await this.#stream(run, text, node, (chunk) => ({ event: 'text_chunk', data: { text: chunk, from_variable_selector: [node.id, 'text'] } }));
          }
          // A stop mid-answer ends the run where it is: the unfinished node adds no tokens.
          if (isOver(run)) return;
          const tokens = tokensOf(text);
          run.totalTokens += tokens;
          if (run.chat) run.chat.message.answerTokens += tokens;
          await this.#finishNode(run, started, { text }, { total_tokens: tokens, total_price: '0', currency: 'USD' });
          break;
        }
        case 'answer': {
          const text = this.#substitute(run, node.answer);
          const message = run.chat?.message;
          await this.#stream(run, text, node, (chunk) => {
            if (message) message.answer += chunk;
            return { event: 'message', id: message?.id ?? '', answer: chunk, from_variable_selector: [node.id, 'answer'] };
          });
          await this.#finishNode(run, started, { answer: text });
          break;
        }
        case 'human-input':
          await this.#pause(run, node);
          return;
        case 'end': {
          const outputs = Object.fromEntries(Object.entries(node.outputs).map(([k, v]) => [k, this.#substitute(run, v)]));
          await this.#finishNode(run, started, outputs);
          await this.#finishWorkflow(run, outputs);
          return;
        }
      }
      previous = current;
      current = this.#next(run, current);
      if (!current) await this.#finishWorkflow(run, this.#chatOutputs(run));
    }
  }

  /** Emits `text` in chunks at the node's pace. */
  async #stream(run: Run, text: string, pace: { chunk_size: number; chunk_delay_ms: number }, event: (chunk: string) => Emittable): Promise<void> {
    for (let i = 0; i < text.length; i += pace.chunk_size) {
      if (pace.chunk_delay_ms) await delay(pace.chunk_delay_ms, run.abort.signal);
      if (isOver(run)) return;
      await this.#emit(run, event(text.slice(i, i + pace.chunk_size)));
    }
  }

  async #pause(run: Run, node: HumanInputNode): Promise<void> {
    const seconds = node.timeout_seconds ?? node.timeout * (node.timeout_unit === 'day' ? 86_400 : 3_600);
    const expiration = nowSeconds() + seconds;
    const token = node.delivery === 'web_app' ? formToken() : null;
    const request: HumanInputRequest = {
      form_id: uuid(),
      node_id: node.id,
      node_title: node.title,
      form_content: this.#substitute(run, node.form_content),
      // The node's own input config, as real Dify's event and paused body carry it; only the
      // form's GET (and the checks of a submission) read a variable-backed select's live options.
      inputs: node.inputs,
      actions: node.user_actions,
      display_in_ui: node.delivery === 'web_app',
      form_token: token,
      resolved_default_values: this.#defaults(run, node),
      expiration_time: expiration,
    };
    // Read when asked, as the real GET reads them: a conversation variable may change while the form waits.
    const inputs = () =>
      node.inputs.map((input) =>
        input.type === 'select' && input.option_source.type === 'variable'
          ? { ...input, option_source: { ...input.option_source, value: toStringList(this.#lookup(run, input.option_source.selector)) } }
          : input,
      );
    const form: HumanInputForm = { id: request.form_id, token, run, node, request, inputs, status: 'waiting', timer: undefined };
    this.forms.add(form);
    const forms = this.#formsOf.get(run.id);
    if (forms) forms.push(form);
    else this.#formsOf.set(run.id, [form]);
    // Real Dify times forms out in a periodic task, so the run's timeout comes some time after
    // `expiration_time`, never at it: here at the next whole second after it has passed. A page's
    // own countdown (which disables the form at the expiry) thus always has the first word.
    form.timer = setTimeout(() => this.timeOut(form), (expiration + 1) * 1000 - Date.now());
    form.timer.unref?.();
    run.status = 'paused';
    run.pausedOn = form.id;
    run.chat?.message.extraContents.push({
      type: 'human_input',
      workflow_run_id: run.id,
      submitted: false,
      form_definition: request,
      form_submission_data: null,
    });
    await this.#emit(run, { event: 'human_input_required', data: request });
    await this.#emit(run, { event: 'workflow_paused', data: this.pausedData(run, form) });
  }

  #extraContent(run: Run, form: HumanInputForm): HumanInputExtraContent | undefined {
    return run.chat?.message.extraContents.find((c) => c.form_definition.form_id === form.id);
  }

  /**
   * Only variable-backed defaults, as the real node's `resolve_default_values` (constants are
   * skipped: a client reads them from `inputs[].default.value`; a missing variable is left out).
   */
  #defaults(run: Run, node: HumanInputNode): Record<string, string> {
    const defaults: Record<string, string> = {};
    for (const input of node.inputs) {
      if (input.type !== 'paragraph' || input.default?.type !== 'variable') continue;
      const value = this.#lookup(run, input.default.selector);
      if (value !== undefined) defaults[input.output_variable_name] = stringifyValue(value);
    }
    return defaults;
  }

  async #startNode(run: Run, node: WorkflowNode, predecessor: string | null): Promise<NodeStartedData> {
    run.totalSteps += 1;
    const data: NodeStartedData = {
      id: uuid(),
      node_id: node.id,
      node_type: node.type,
      title: node.title,
      index: run.totalSteps,
      predecessor_node_id: predecessor,
      inputs: null,
      inputs_truncated: false,
      created_at: nowSeconds(),
      extras: {},
      iteration_id: null,
      loop_id: null,
    };
    run.executions.push({ started: data });
    await this.#emit(run, { event: 'node_started', data });
    return data;
  }

  async #finishNode(run: Run, started: NodeStartedData, outputs: Record<string, unknown>, metadata: NodeFinishedData['execution_metadata'] = null): Promise<void> {
    run.pool.set(started.node_id, outputs);
    const data: NodeFinishedData = { ...endedShell(started), outputs, execution_metadata: metadata, status: 'succeeded' };
    const record = run.executions.find((e) => e.started.id === started.id);
    if (record) record.finished = data;
    await this.#emit(run, { event: 'node_finished', data });
  }

  async #finishWorkflow(run: Run, outputs: Record<string, unknown>, status: 'succeeded' | 'stopped' | 'failed' = 'succeeded', error: string | null = null): Promise<void> {
    if (run.finishedEvent || (status === 'succeeded' && (run.status === 'stopped' || run.status === 'failed'))) return;
    run.status = status;
    run.outputs = outputs;
    run.error = status === 'stopped' ? STOPPED_ERROR : error;
    run.finishedMs = Date.now();
    run.finishedAt = nowSeconds();
    const data: WorkflowFinishedData = {
      id: run.id,
      workflow_id: run.workflow.id,
      status,
      outputs,
      error: run.error,
      elapsed_time: elapsedSeconds(run),
      total_tokens: run.totalTokens,
      total_steps: run.totalSteps,
      created_by: { id: this.#options.endUserId?.(run.app.id, run.user) ?? run.user, user: run.user },
      created_at: run.createdAt,
      finished_at: run.finishedAt,
      exceptions_count: 0,
      files: [],
    };
    // A late `/events` request gets this one frame with task_id = run id and no conversation fields.
    run.finishedEvent = { event: 'workflow_finished', task_id: run.id, workflow_run_id: run.id, data };
    await this.#emit(run, { event: 'workflow_finished', data }, true);
    if (run.chat && status !== 'failed') {
      // After `workflow_finished`: Dify's advanced-chat pipeline publishes the message's end once
      // it has sent that (`_handle_workflow_succeeded_event`, and its stop handler alike).
      const { message } = run.chat;
      message.latency = elapsedSeconds(run);
      await this.#emit(run, {
        event: 'message_end',
        id: message.id,
        metadata: { usage: usage(message.messageTokens, message.answerTokens, message.latency), retriever_resources: [] },
        files: [],
      }, true);
    }
    this.#finished.finished(run.id);
  }

  #chatOutputs(run: Run): Record<string, unknown> {
    return run.chat ? { answer: run.chat.message.answer } : {};
  }

  /** A failure inside a run ends it with an in-stream `error`. */
  async #guard(run: Run, body: () => Promise<void>): Promise<void> {
    try {
      await body();
    } catch (error) {
      if (run.abort.signal.aborted) return;
      logFault('run failed', error, []);
      this.#crash(run);
    }
  }

  /** Publishes an event; once a run is stopped or failed only its closing events (`final`) go out. */
  async #emit(run: Run, event: Emittable, final = false): Promise<void> {
    const latency = this.#options.latencyMs?.() ?? 0;
    if (latency > 0) await delay(latency, run.abort.signal);
    if (run.abort.signal.aborted || ((run.status === 'stopped' || run.status === 'failed') && !final)) return;
    run.topic.publish(this.envelope(run, event));
  }

  #substitute(run: Run, template: string): string {
    return substituteVariables(template, (selector) => this.#lookup(run, selector) ?? '');
  }

  #lookup(run: Run, selector: string[]): unknown {
    const [nodeId, ...path] = selector;
    let value: unknown;
    if (nodeId === 'conversation' && run.chat) {
      value = Object.fromEntries(run.chat.conversation.variables.map((v) => [v.name, v.value]));
    } else {
      value = run.pool.get(nodeId ?? '');
    }
    for (const key of path) value = (value as Record<string, unknown> | undefined)?.[key];
    return value;
  }
}

function toStringList(value: unknown): string[] {
  return Array.isArray(value) ? value.map((v) => stringifyValue(v)) : [];
}

/** The shell of a node that ends now: its time taken and its end. */
function endedShell(started: NodeStartedData): NodeFinishedData {
  return { ...finishedShell(started), elapsed_time: Math.max(0, nowSeconds() - started.created_at), finished_at: nowSeconds() };
}

function finishedShell(started: NodeStartedData): NodeFinishedData {
  return {
    ...started,
    process_data: null,
    process_data_truncated: false,
    outputs: null,
    outputs_truncated: false,
    status: 'running',
    error: null,
    elapsed_time: 0,
    execution_metadata: null,
    finished_at: 0,
    files: [],
  };
}
