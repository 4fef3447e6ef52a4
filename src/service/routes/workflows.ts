/** Workflow runs: start (streaming or blocking), follow, inspect (dify-wire.md §3). */
import { TERMINAL_WORKFLOW_EVENTS, type RunEvent, type WorkflowRunDetail } from '../../protocol/index.js';
import { authenticateApp } from '../auth.js';
import { ApiError, badParam, notFound } from '../errors.js';
import { json, readJsonObject, requireUser } from '../http.js';
import type { Router } from '../router.js';
import type { Run } from '../runs/run.js';
import { eventStreamResponse } from '../sse-response.js';
import type { ServiceContext } from './app.js';

const notWorkflowApp = () =>
  new ApiError(400, 'not_workflow_app', 'Please check if your app mode matches the right API route.');

export function workflowRoutes(router: Router<ServiceContext>): void {
  router.on('POST', '/workflows/run', async (request, _p, _u, { fixture, engine, pingIntervalMs }) => {
    const app = authenticateApp(request, fixture);
    if (app.mode !== 'workflow') throw notWorkflowApp();
    const body = await readJsonObject(request);
    const user = requireUser(body.user);
    const inputs = body.inputs;
    if (typeof inputs !== 'object' || inputs === null || Array.isArray(inputs)) {
      throw badParam('inputs is required in request body');
    }
    const mode = body.response_mode ?? 'blocking';
    if (mode !== 'streaming' && mode !== 'blocking') throw badParam("response_mode must be 'streaming' or 'blocking'");
    const run = engine.create(app, user, inputs as Record<string, unknown>);
    if (mode === 'streaming') {
      const response = eventStreamResponse({
        subscribe: (send) => run.topic.subscribe(send),
        isTerminal: (e) => TERMINAL_WORKFLOW_EVENTS.includes(e.event),
        pingIntervalMs,
      });
      engine.execute(run);
      return response;
    }
    const last = await untilTerminal(run, () => engine.execute(run));
    return json(blockingBody(run, last));
  });

  router.on('GET', '/workflows/run/:id', (request, { id }, _u, { fixture, engine }) => {
    const app = authenticateApp(request, fixture);
    const run = engine.runs.get(id!);
    if (!run || run.app.id !== app.id) throw notFound('Workflow run not found');
    const detail: WorkflowRunDetail = {
      id: run.id,
      workflow_id: run.workflow.id,
      status: run.status,
      inputs: JSON.stringify(run.inputs),
      outputs: run.outputs,
      error: run.error,
      total_steps: run.totalSteps,
      total_tokens: run.totalTokens,
      created_at: run.createdAt,
      finished_at: run.finishedAt,
      elapsed_time: (run.finishedAt ?? Date.now() / 1000) - run.startedMs / 1000,
    };
    return json(detail);
  });

  router.on('GET', '/workflow/:id/events', (request, { id }, url, { fixture, engine, pingIntervalMs }) => {
    const app = authenticateApp(request, fixture);
    if (app.mode !== 'workflow' && app.mode !== 'advanced-chat') throw notWorkflowApp();
    const user = requireUser(url.searchParams.get('user'));
    const run = engine.runs.get(id!);
    if (!run || run.app.id !== app.id || run.user !== user) throw notFound('Workflow run not found');
    if (run.finishedEvent) {
      return eventStreamResponse({ initial: [{ ...run.finishedEvent, task_id: run.id } as RunEvent], isTerminal: () => true, pingIntervalMs });
    }
    const flag = (name: string) => url.searchParams.get(name)?.toLowerCase() === 'true';
    const terminal: RunEvent['event'][] = flag('continue_on_pause') ? ['workflow_finished', 'error'] : ['workflow_finished', 'workflow_paused', 'error'];
    return eventStreamResponse({
      initial: flag('include_state_snapshot') ? snapshot(run, engine) : [],
      subscribe: (send) => run.topic.subscribe(send),
      isTerminal: (e) => terminal.includes(e.event),
      pingIntervalMs,
    });
  });
}

/**
 * The replay `include_state_snapshot=true` sends before live events (dify-wire.md §3.3): a ping,
 * a synthetic `workflow_started`, each executed node without its details, and the pending form.
 * The replayed `workflow_paused` ends a default stream like a live one would.
 */
function snapshot(run: Run, engine: ServiceContext['engine']): RunEvent[] {
  const envelope = { task_id: run.taskId, workflow_run_id: run.id };
  const events: RunEvent[] = [
    { event: 'ping' },
    {
      event: 'workflow_started',
      ...envelope,
      data: { id: run.id, workflow_id: run.workflow.id, inputs: run.inputs, created_at: run.createdAt, reason: 'initial' },
    },
  ];
  for (const { started, finished } of run.executions) {
    events.push({ event: 'node_started', ...envelope, data: { ...started, inputs: null } });
    if (finished) events.push({ event: 'node_finished', ...envelope, data: { ...finished, inputs: null, outputs: null, process_data: null } });
  }
  const form = run.pausedOn ? engine.forms.byId(run.pausedOn) : undefined;
  if (form && run.status === 'paused') {
    events.push({ event: 'human_input_required', ...envelope, data: form.request });
    events.push({
      event: 'workflow_paused',
      ...envelope,
      data: {
        workflow_run_id: run.id,
        paused_nodes: [form.node.id],
        outputs: {},
        reasons: [{ TYPE: 'human_input_required', ...form.request }],
        status: 'paused',
        created_at: run.createdAt,
        elapsed_time: (Date.now() - run.startedMs) / 1000,
        total_tokens: run.totalTokens,
        total_steps: run.totalSteps,
      },
    });
  }
  return events;
}

/** Waits for the run to pause, finish or fail, collecting what blocking mode answers. */
function untilTerminal(run: Run, start: () => void): Promise<RunEvent> {
  return new Promise((resolve) => {
    const detach = run.topic.subscribe((event) => {
      if (TERMINAL_WORKFLOW_EVENTS.includes(event.event)) {
        detach();
        resolve(event);
      }
    });
    start();
  });
}

function blockingBody(run: Run, last: RunEvent): unknown {
  const data = {
    id: run.id,
    workflow_id: run.workflow.id,
    status: run.status,
    outputs: run.outputs,
    error: last.event === 'error' ? last.message : run.error,
    elapsed_time: (Date.now() - run.startedMs) / 1000,
    total_tokens: run.totalTokens,
    total_steps: run.totalSteps,
    created_at: run.createdAt,
    finished_at: run.finishedAt,
  };
  if (last.event === 'workflow_paused') {
    return {
      task_id: run.taskId,
      workflow_run_id: run.id,
      data: { ...data, status: 'paused', finished_at: null, paused_nodes: last.data.paused_nodes, reasons: last.data.reasons },
    };
  }
  return { task_id: run.taskId, workflow_run_id: run.id, data };
}
