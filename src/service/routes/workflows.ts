/** Workflow runs: start (streaming or blocking), follow, inspect, stop (dify-wire.md §3). */
import { LAX_UUID_PATTERN, APP_OPERATIONS, TERMINAL_WORKFLOW_EVENTS, type RunEvent, type RunEventName, type WorkflowRunDetail } from '../../protocol/index.js';
import type { ServiceContext } from '../context.js';
import { ApiError, badParam, notFound } from '../errors.js';
import type { FixtureApp } from '../fixture.js';
import { json } from '../http.js';
import { WORKFLOW_MODES } from '../params.js';
import type { Router } from '../router.js';
import { checkRunInputs } from '../run-inputs.js';
import { elapsedSeconds, inputsWithSystem, type Run } from '../runs/run.js';
import { eventStreamResponse } from '../sse-response.js';
import { liveStream, untilTerminal } from './streams.js';
import { appFileResolver } from '../files/resolve.js';
import { resolveRunFiles } from '../files/run-files.js';
import { appRoute, type AppCall } from './app-route.js';

export function workflowRoutes(router: Router<ServiceContext>): void {
  const route = appRoute(router);
  const run = { user: 'required', modes: ['workflow'], modeCode: 'not_workflow_app' } as const;
  route(APP_OPERATIONS.runWorkflow, run, startRun);
  route(APP_OPERATIONS.runPublishedWorkflow, run, startRun);

  route(APP_OPERATIONS.getWorkflowRun, { modes: WORKFLOW_MODES, modeCode: 'not_workflow_app' }, ({ app, params, context: { engine } }) => {
    const run = engine.runs.get(params.workflow_run_id!);
    if (!run || run.app.id !== app.id) throw notFound('Workflow run not found');
    const detail: WorkflowRunDetail = {
      id: run.id,
      workflow_id: run.workflow.id,
      status: run.status,
      inputs: JSON.stringify(inputsWithSystem(run)),
      outputs: run.outputs,
      error: run.error,
      total_steps: run.totalSteps,
      total_tokens: run.totalTokens,
      created_at: run.createdAt,
      finished_at: run.finishedAt,
      elapsed_time: elapsedSeconds(run),
    };
    return json(detail);
  });

  route(APP_OPERATIONS.workflowEvents, { user: 'required', modes: WORKFLOW_MODES, modeCode: 'not_workflow_app' }, ({ app, user, params, url, context }) => {
    const run = context.engine.runs.get(params.workflow_run_id!);
    if (!run || run.app.id !== app.id || run.user !== user) throw notFound('Workflow run not found');
    if (run.finishedEvent) return eventStreamResponse({ initial: [run.finishedEvent], isTerminal: () => true, pingIntervalMs: context.qa.settings.pingIntervalMs });
    const flag = (name: string) => url.searchParams.get(name)?.toLowerCase() === 'true';
    // Dify's default terminal events close even a Chatflow's stream at `workflow_finished`, before
    // its `message_end`; with `continue_on_pause` (no terminal events there) it ends with the run's last event.
    const last: RunEventName = run.chat ? 'message_end' : 'workflow_finished';
    const terminal: RunEventName[] = flag('continue_on_pause') ? [last, 'error'] : ['workflow_finished', 'workflow_paused', 'error'];
    return liveStream(context, run.topic, terminal, { runId: run.id, initial: flag('include_state_snapshot') ? snapshot(run, context) : [] });
  });

  route(APP_OPERATIONS.stopWorkflow, { user: 'required', modes: ['workflow'], modeCode: 'not_workflow_app' }, ({ app, user, params, context: { engine } }) => {
    const run = engine.byTask(params.task_id!);
    // Like the real service, a stop for someone else's (or no) task changes nothing and still succeeds.
    if (run && run.app.id === app.id && run.user === user) engine.stop(run);
    return json({ result: 'success' });
  });
}

async function startRun({ app, user, body, params, context }: AppCall): Promise<Response> {
  const { engine } = context;
  checkPinnedWorkflow(app, params.workflow_id);
  const inputs = checkRunInputs(app, body.inputs, 'WorkflowRunPayload');
  const mode = body.response_mode ?? 'blocking';
  if (mode !== 'streaming' && mode !== 'blocking') throw badParam("response_mode must be 'streaming' or 'blocking'");
  const files = await resolveRunFiles(app, body.files, user, appFileResolver(context, app.id), 'WorkflowRunPayload');
  const run = engine.create(app, user, inputs, null, files);
  if (mode === 'streaming') {
    return liveStream(context, run.topic, TERMINAL_WORKFLOW_EVENTS, { runId: run.id, start: () => engine.execute(run) });
  }
  const last = await untilTerminal(run.topic, TERMINAL_WORKFLOW_EVENTS, () => engine.execute(run));
  return json(blockingBody(run, last));
}

/** `POST /workflows/{workflow_id}/run` runs only the app's own (published) workflow. */
export function checkPinnedWorkflow(app: FixtureApp, workflowId: string | undefined): void {
  if (workflowId === undefined) return;
  if (!LAX_UUID_PATTERN.test(workflowId)) throw new ApiError(400, 'bad_request', 'Invalid workflow_id format');
  if (workflowId !== app.workflow?.id) throw notFound('Workflow not found');
}

/**
 * The replay `include_state_snapshot=true` sends before live events (dify-wire.md §3.3): a ping,
 * a synthetic `workflow_started`, for a Chatflow the answer so far, each executed node without
 * its details, and the pending form. The replayed `workflow_paused` ends a default stream like a
 * live one would.
 */
function snapshot(run: Run, { engine }: ServiceContext): RunEvent[] {
  const events: RunEvent[] = [
    { event: 'ping' },
    engine.envelope(run, {
      event: 'workflow_started',
      data: { id: run.id, workflow_id: run.workflow.id, inputs: inputsWithSystem(run), created_at: run.createdAt, reason: 'initial' },
    }),
  ];
  if (run.chat) events.push(engine.envelope(run, { event: 'message_replace', answer: run.chat.message.answer, reason: '' }));
  for (const { started, finished } of run.executions) {
    events.push(engine.envelope(run, { event: 'node_started', data: { ...started, inputs: null } }));
    if (finished) events.push(engine.envelope(run, { event: 'node_finished', data: { ...finished, inputs: null, outputs: null, process_data: null } }));
  }
  const form = run.pausedOn ? engine.forms.byId(run.pausedOn) : undefined;
  if (form && run.status === 'paused') {
    events.push(engine.envelope(run, { event: 'human_input_required', data: form.request }));
    events.push(engine.envelope(run, { event: 'workflow_paused', data: engine.pausedData(run, form) }));
  }
  return events;
}

function blockingBody(run: Run, last: RunEvent): unknown {
  const data = {
    id: run.id,
    workflow_id: run.workflow.id,
    status: run.status,
    outputs: run.outputs,
    error: last.event === 'error' ? last.message : run.error,
    elapsed_time: elapsedSeconds(run),
    total_tokens: run.totalTokens,
    total_steps: run.totalSteps,
    created_at: run.createdAt,
    finished_at: run.finishedAt,
  };
  if (last.event === 'workflow_paused') {
    return {
      task_id: run.taskId,
      workflow_run_id: run.id,
      // The same outputs the run's workflow_paused event carries.
      data: { ...data, status: 'paused', outputs: last.data.outputs, finished_at: null, paused_nodes: last.data.paused_nodes, reasons: last.data.reasons },
    };
  }
  return { task_id: run.taskId, workflow_run_id: run.id, data };
}
