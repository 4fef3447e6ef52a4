/**
 * Executes fixture workflows the way the real service does from a client's point of view: node
 * events, streamed text, pauses at human-input nodes (emitting `human_input_required` then
 * `workflow_paused`), resumption along the chosen action's branch, and the timeout branch.
 * Runs go on server-side whether or not anyone listens.
 */
import type {
  EventEnvelope,
  HumanInputRequest,
  NodeFinishedData,
  NodeStartedData,
  RunEvent,
  WorkflowFinishedData,
} from '../../protocol/index.js';
import { renderWithOutputs, stringifyValue, substituteVariables } from '../../protocol/index.js';
import type { FixtureApp, HumanInputNode, WorkflowNode } from '../fixture.js';
import { FormStore, type HumanInputForm } from '../forms.js';
import { formToken, nowSeconds, uuid } from '../ids.js';
import { createRun, elapsedSeconds, type Run } from './run.js';

type Emittable = RunEvent extends infer E ? (E extends { event: string } ? Omit<E, keyof EventEnvelope> : never) : never;

const TIMEOUT_HANDLE = '__timeout';

export interface EngineOptions {
  /** Extra delay before each event, for QA latency scenarios. */
  latencyMs?: () => number;
}

export class WorkflowEngine {
  readonly runs = new Map<string, Run>();
  readonly forms = new FormStore();
  readonly #options: EngineOptions;

  constructor(options: EngineOptions = {}) {
    this.#options = options;
  }

  /** Creates a run; call `execute` once listeners are attached. */
  create(app: FixtureApp, user: string, inputs: Record<string, unknown>): Run {
    if (!app.workflow) throw new Error(`app ${app.id} has no workflow`);
    const run = createRun({ id: uuid(), taskId: uuid(), app, workflow: app.workflow, user, inputs });
    this.runs.set(run.id, run);
    return run;
  }

  /** Starts executing a created run in the background. */
  execute(run: Run): void {
    const start = run.workflow.nodes.find((n) => n.type === 'start')!;
    void this.#guard(run, async () => {
      await this.#emit(run, {
        event: 'workflow_started',
        data: { id: run.id, workflow_id: run.workflow.id, inputs: run.inputs, created_at: run.createdAt, reason: 'initial' },
      });
      await this.#walk(run, start.id, null);
    });
  }

  /** Resumes a paused run after a successful submit. */
  resume(form: HumanInputForm, action: { id: string; title: string }, values: Record<string, unknown>): void {
    form.status = 'submitted';
    clearTimeout(form.timer);
    const { run, node } = form;
    const rendered = renderWithOutputs(form.request.form_content, form.request.inputs, values);
    void this.#guard(run, async () => {
      await this.#resumeAt(run, node, async (started) => {
        await this.#emit(run, {
          event: 'human_input_form_filled',
          data: {
            node_id: node.id,
            node_title: node.title,
            rendered_content: rendered,
            action_id: action.id,
            action_text: action.title,
            submitted_data: values,
          },
        });
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

  /** Stops every timer; runs in flight stop at their next step. */
  close(): void {
    for (const run of this.runs.values()) run.abort.abort();
    this.forms.clear();
    this.runs.clear();
  }

  async #resumeAt(run: Run, node: HumanInputNode, body: (started: NodeStartedData) => Promise<void>): Promise<void> {
    run.status = 'running';
    run.pausedOn = null;
    await this.#emit(run, {
      event: 'workflow_started',
      data: { id: run.id, workflow_id: run.workflow.id, inputs: run.inputs, created_at: run.createdAt, reason: 'resumption' },
    });
    const started = await this.#startNode(run, node, null);
    await body(started);
  }

  async #follow(run: Run, from: string, handle: string | undefined): Promise<void> {
    const edge = run.workflow.edges.find((e) => e.source === from && (handle === undefined || e.source_handle === handle));
    if (edge) await this.#walk(run, edge.target, from);
    else await this.#finishWorkflow(run, run.outputs ?? {});
  }

  async #walk(run: Run, nodeId: string, predecessor: string | null): Promise<void> {
    let current: string | undefined = nodeId;
    let previous = predecessor;
    while (current) {
      if (run.abort.signal.aborted) return;
      const node: WorkflowNode = run.workflow.nodes.find((n) => n.id === current)!;
      const started = await this.#startNode(run, node, previous);
      switch (node.type) {
        case 'start': {
          const inputs = { ...defaultsOf(node), ...run.inputs };
          run.pool.set('sys', { user_id: run.user, workflow_run_id: run.id, workflow_id: run.workflow.id, app_id: run.app.id });
          await this.#finishNode(run, started, inputs);
          break;
        }
        case 'llm': {
          const text = this.#substitute(run, node.text);
          for (let i = 0; i < text.length; i += node.chunk_size) {
            if (node.chunk_delay_ms) await delay(node.chunk_delay_ms);
            await this.#emit(run, {
              event: 'text_chunk',
              data: { text: text.slice(i, i + node.chunk_size), from_variable_selector: [node.id, 'text'] },
            });
          }
          run.totalTokens += Math.ceil(text.length / 4);
          await this.#finishNode(run, started, { text });
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
      current = run.workflow.edges.find((e) => e.source === current && !e.source_handle)?.target;
      if (!current) await this.#finishWorkflow(run, {});
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
      inputs: node.inputs,
      actions: node.user_actions,
      display_in_ui: node.delivery === 'web_app',
      form_token: token,
      resolved_default_values: this.#defaults(run, node),
      expiration_time: expiration,
    };
    const form: HumanInputForm = { id: request.form_id, token, run, node, request, status: 'waiting', timer: undefined };
    this.forms.add(form);
    form.timer = setTimeout(() => this.timeOut(form), seconds * 1000);
    form.timer.unref?.();
    run.status = 'paused';
    run.pausedOn = form.id;
    await this.#emit(run, { event: 'human_input_required', data: request });
    await this.#emit(run, {
      event: 'workflow_paused',
      data: {
        workflow_run_id: run.id,
        paused_nodes: [node.id],
        outputs: {},
        reasons: [{ TYPE: 'human_input_required', ...request }],
        status: 'paused',
        created_at: run.createdAt,
        elapsed_time: elapsedSeconds(run),
        total_tokens: run.totalTokens,
        total_steps: run.totalSteps,
      },
    });
  }

  #defaults(run: Run, node: HumanInputNode): Record<string, string> {
    const defaults: Record<string, string> = {};
    for (const input of node.inputs) {
      if (input.type !== 'paragraph' || !input.default) continue;
      defaults[input.output_variable_name] =
        input.default.type === 'constant' ? input.default.value : stringifyValue(this.#lookup(run, input.default.selector));
    }
    return defaults;
  }

  async #startNode(run: Run, node: WorkflowNode, predecessor: string | null): Promise<NodeStartedData> {
    run.totalSteps += 1;
    const data: NodeStartedData = {
      id: uuid(),
      node_id: node.id,
      node_type: node.type === 'human-input' ? 'human-input' : node.type,
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

  async #finishNode(run: Run, started: NodeStartedData, outputs: Record<string, unknown>): Promise<void> {
    run.pool.set(started.node_id, outputs);
    const data: NodeFinishedData = {
      ...finishedShell(started),
      outputs,
      status: 'succeeded',
      elapsed_time: Math.max(0, nowSeconds() - started.created_at),
      finished_at: nowSeconds(),
    };
    const record = run.executions.find((e) => e.started.id === started.id);
    if (record) record.finished = data;
    await this.#emit(run, { event: 'node_finished', data });
  }

  async #finishWorkflow(run: Run, outputs: Record<string, unknown>): Promise<void> {
    run.status = 'succeeded';
    run.outputs = outputs;
    run.finishedAt = nowSeconds();
    const data: WorkflowFinishedData = {
      id: run.id,
      workflow_id: run.workflow.id,
      status: 'succeeded',
      outputs,
      error: null,
      elapsed_time: elapsedSeconds(run),
      total_tokens: run.totalTokens,
      total_steps: run.totalSteps,
      created_by: { id: run.user, user: run.user },
      created_at: run.createdAt,
      finished_at: run.finishedAt,
      exceptions_count: 0,
      files: [],
    };
    run.finishedEvent = this.#envelope(run, { event: 'workflow_finished', data });
    await this.#emit(run, { event: 'workflow_finished', data });
  }

  /** A failure inside a run ends it with `workflow_finished(failed)` and an in-stream `error`. */
  async #guard(run: Run, body: () => Promise<void>): Promise<void> {
    try {
      await body();
    } catch (error) {
      if (run.abort.signal.aborted) return;
      run.status = 'failed';
      run.error = (error as Error).message;
      run.finishedAt = nowSeconds();
      await this.#emit(run, {
        event: 'error',
        code: 'internal_server_error',
        status: 500,
        message: 'Internal Server Error, please contact support.',
      }).catch(() => undefined);
    }
  }

  #envelope(run: Run, event: Emittable): RunEvent {
    // Field order as the real service writes it: event, task_id, workflow_run_id, then the payload.
    return Object.assign({ event: event.event, task_id: run.taskId, workflow_run_id: run.id }, event) as RunEvent;
  }

  async #emit(run: Run, event: Emittable): Promise<void> {
    const latency = this.#options.latencyMs?.() ?? 0;
    if (latency > 0) await delay(latency);
    if (run.abort.signal.aborted) return;
    const full = this.#envelope(run, event);
    // The real service's error event carries no task_id.
    if (full.event === 'error') delete full.task_id;
    run.topic.publish(full);
  }

  #substitute(run: Run, template: string): string {
    return substituteVariables(template, (selector) => this.#lookup(run, selector) ?? '');
  }

  #lookup(run: Run, selector: string[]): unknown {
    const [nodeId, ...path] = selector;
    let value: unknown = run.pool.get(nodeId ?? '');
    for (const key of path) value = (value as Record<string, unknown> | undefined)?.[key];
    return value;
  }
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

function defaultsOf(node: Extract<WorkflowNode, { type: 'start' }>): Record<string, unknown> {
  return Object.fromEntries(node.variables.map((v) => [v.variable, v.default]));
}

const delay = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));
