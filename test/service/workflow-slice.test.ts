/**
 * The human-input slice of the embedded service, over real HTTP on loopback, through AppClient
 * (raw fetch where the client cannot express the bad input): a streaming run pauses at the
 * review form, the form is fetched and submitted, the resumed run is followed to its end
 * (dify-wire.md §2–§4).
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { AppClient, ServiceError } from '../../src/client/index.js';
import {
  readRunEvents,
  type HumanInputRequest,
  type RunEvent,
  type RunEventOf,
  type RunEventName,
} from '../../src/protocol/index.js';
import { loadFixture, startService, type RunningService } from '../../src/service/index.js';

const KEY = 'app-demo-workflow';
const DRAFT = (version: string) =>
  `Version ${version} brings faster uploads, clearer errors and a new review step for every release.`;
const FORM_CONTENT = (version: string) =>
  `## Review the draft\n\n> ${DRAFT(version)}\n\n**Your comments for the writer**\n\n{{#$output.comments#}}\n\nApprove to publish, or send it back with your comments.`;
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
const WORKFLOW_APP = { app: '0a1f9a52-6c3b-4f7e-9a1d-3b2f4d5e6a71', workflow: '7c2d1e0f-9b8a-4c3d-8e7f-6a5b4c3d2e1f' };
/**
 * A run's reported inputs: the form's variables (the missing ones at their defaults,
 * `_prepare_user_inputs`), then its system variables as `sys.*` (`_prepare_workflow_inputs`).
 */
const reported = (version: string, user: string, runId: string) => ({
  version,
  scenario: 'review',
  topic: 'the spring launch',
  'sys.files': [],
  'sys.user_id': user,
  'sys.app_id': WORKFLOW_APP.app,
  'sys.workflow_id': WORKFLOW_APP.workflow,
  'sys.workflow_run_id': runId,
});
const NOT_FOUND_TEXT =
  'The requested URL was not found on the server. If you entered the URL manually please check your spelling and try again.';

let svc: RunningService;
let client: AppClient;

before(async () => {
  svc = await startService({ fixture: await loadFixture(), port: 0 });
  client = new AppClient({ baseUrl: svc.url, credential: KEY });
});

after(async () => {
  await svc?.close();
});

// ---------------------------------------------------------------------------------------------
// helpers

/** Events without keep-alives. */
const live = (events: RunEvent[]) => events.filter((e) => e.event !== 'ping');

function find<N extends RunEventName>(events: RunEvent[], name: N): RunEventOf<N> {
  const event = events.find((e) => e.event === name);
  assert.ok(event, `no ${name} event among ${events.map((e) => e.event).join(', ')}`);
  return event as RunEventOf<N>;
}

/** The event names, with runs of text_chunk collapsed into one, and node events tagged with their node. */
function outline(events: RunEvent[]): string[] {
  const names: string[] = [];
  for (const e of live(events)) {
    let name: string = e.event;
    if (e.event === 'node_started' || e.event === 'node_finished') name += `:${e.data.node_id}`;
    if (name === 'text_chunk' && names.at(-1) === 'text_chunk') continue;
    names.push(name);
  }
  return names;
}

async function drain(events: AsyncIterable<RunEvent>): Promise<RunEvent[]> {
  const all: RunEvent[] = [];
  for await (const event of events) all.push(event);
  return all;
}

interface PausedRun {
  events: RunEvent[];
  runId: string;
  taskId: string;
  token: string;
  request: HumanInputRequest;
}

/** Starts a streaming run and reads it until the server ends the stream at the pause. */
async function startPaused(user: string, inputs: Record<string, unknown> = {}): Promise<PausedRun> {
  const events = await drain(client.streamWorkflow({ inputs, user }));
  const required = find(events, 'human_input_required');
  assert.ok(required.data.form_token);
  return { events, runId: required.workflow_run_id!, taskId: required.task_id!, token: required.data.form_token, request: required.data };
}

/**
 * Opens the run's event stream and waits for the response head, so the subscription exists
 * before anything is submitted (the topic keeps no backlog).
 */
async function openEvents(runId: string, user: string): Promise<AsyncGenerator<RunEvent, void, undefined>> {
  const { url, init } = await client.prepareWorkflowEvents(runId, { user });
  const response = await fetch(url, init);
  assert.equal(response.status, 200);
  assert.match(response.headers.get('content-type') ?? '', /^text\/event-stream/);
  return readRunEvents(response.body!);
}

interface RawAnswer {
  status: number;
  headers: Headers;
  body: unknown;
}

/** A raw request to the service, for inputs the client cannot express. */
async function raw(method: string, path: string, init: { body?: string; json?: unknown; auth?: string | null } = {}): Promise<RawAnswer> {
  const headers: Record<string, string> = {};
  const auth = init.auth === undefined ? `Bearer ${KEY}` : init.auth;
  if (auth !== null) headers.Authorization = auth;
  let body = init.body;
  if (init.json !== undefined) body = JSON.stringify(init.json);
  if (body !== undefined) headers['Content-Type'] = 'application/json';
  const response = await fetch(svc.url.replace(/\/v1$/, '') + path, { method, headers, body });
  const text = await response.text();
  return { status: response.status, headers: response.headers, body: text ? JSON.parse(text) : undefined };
}

function assertError(answer: RawAnswer, status: number, code: string, message: string | RegExp): void {
  assert.equal(answer.status, status, JSON.stringify(answer.body));
  const body = answer.body as Record<string, unknown>;
  assert.deepEqual(Object.keys(body).sort(), ['code', 'message', 'status']);
  assert.equal(body.code, code);
  assert.equal(body.status, status);
  if (typeof message === 'string') assert.equal(body.message, message);
  else assert.match(String(body.message), message);
}

async function rejectsWith(promise: Promise<unknown>, status: number, code: string, message: string): Promise<void> {
  await assert.rejects(promise, (error: unknown) => {
    assert.ok(error instanceof ServiceError, `expected a ServiceError, got ${String(error)}`);
    assert.deepEqual(error.toJSON(), { code, message, status });
    return true;
  });
}

// ---------------------------------------------------------------------------------------------

describe('a streaming run', () => {
  let run: PausedRun;
  before(async () => {
    run = await startPaused('alice', { version: '3.1.0' });
  });

  test('runs to the review form, pauses, and the stream ends there', () => {
    assert.deepEqual(outline(run.events), [
      'workflow_started',
      'node_started:start',
      'node_finished:start',
      'node_started:draft',
      'text_chunk',
      'node_finished:draft',
      'node_started:review',
      'human_input_required',
      'workflow_paused',
    ]);
    assert.equal(run.events.at(-1)?.event, 'workflow_paused');
  });

  test('every event has the workflow envelope: event, task_id, workflow_run_id, data', () => {
    assert.match(run.runId, UUID);
    assert.match(run.taskId, UUID);
    for (const event of live(run.events)) {
      assert.deepEqual(Object.keys(event), ['event', 'task_id', 'workflow_run_id', 'data'], event.event);
      assert.equal(event.task_id, run.taskId);
      assert.equal(event.workflow_run_id, run.runId);
    }
  });

  test('workflow_started and node events carry their payloads', () => {
    const started = find(run.events, 'workflow_started');
    assert.equal(started.data.id, run.runId);
    assert.equal(started.data.reason, 'initial');
    assert.deepEqual(started.data.inputs, reported('3.1.0', 'alice', run.runId));
    assert.equal(typeof started.data.created_at, 'number');

    const nodes = live(run.events).filter((e): e is RunEventOf<'node_started'> => e.event === 'node_started');
    assert.deepEqual(nodes.map((n) => [n.data.node_id, n.data.node_type, n.data.predecessor_node_id, n.data.index]), [
      ['start', 'start', null, 1],
      ['draft', 'llm', 'start', 2],
      ['review', 'human-input', 'draft', 3],
    ]);
    const finishedDraft = live(run.events).find((e) => e.event === 'node_finished' && e.data.node_id === 'draft') as RunEventOf<'node_finished'>;
    assert.equal(finishedDraft.data.status, 'succeeded');
    assert.equal(finishedDraft.data.id, nodes[1]!.data.id);
    assert.deepEqual(finishedDraft.data.outputs, { text: DRAFT('3.1.0') });
    // The start node outputs the same: what the run was given and its system variables (Dify's `StartNode`).
    const finishedStart = live(run.events).find((e) => e.event === 'node_finished' && e.data.node_id === 'start') as RunEventOf<'node_finished'>;
    assert.deepEqual(finishedStart.data.outputs, reported('3.1.0', 'alice', run.runId));
  });

  test('text_chunk events stream the draft in pieces', () => {
    const chunks = run.events.filter((e): e is RunEventOf<'text_chunk'> => e.event === 'text_chunk');
    assert.ok(chunks.length > 1);
    assert.equal(chunks.map((c) => c.data.text).join(''), DRAFT('3.1.0'));
    for (const c of chunks) assert.deepEqual(c.data.from_variable_selector, ['draft', 'text']);
  });

  test('human_input_required carries the form with variables substituted and the slot kept', () => {
    const required = find(run.events, 'human_input_required');
    const data = required.data;
    assert.match(data.form_token!, /^[A-Za-z0-9]{22}$/);
    assert.equal(required.workflow_run_id, run.runId);
    assert.match(data.form_id, UUID);
    assert.equal(data.node_id, 'review');
    assert.equal(data.node_title, 'Editor review');
    assert.equal(data.form_content, FORM_CONTENT('3.1.0'));
    assert.ok(!data.form_content.includes('{{#draft.text#}}'));
    assert.ok(data.form_content.includes('{{#$output.comments#}}'));
    assert.deepEqual(data.inputs, [
      { type: 'paragraph', output_variable_name: 'comments', default: { type: 'constant', selector: [], value: '' } },
    ]);
    assert.deepEqual(data.actions, [
      { id: 'approve', title: 'Approve and publish', button_style: 'primary' },
      { id: 'send_back', title: 'Send back', button_style: 'default' },
    ]);
    assert.equal(data.display_in_ui, true);
    // A constant default is not resolved (§2.4): it is in `inputs[].default.value` only.
    assert.deepEqual(data.resolved_default_values, {});
    const inThreeDays = Math.floor(Date.now() / 1000) + 3 * 86_400;
    assert.ok(Math.abs(data.expiration_time! - inThreeDays) <= 5, `expiration_time ${data.expiration_time}`);
  });

  test('workflow_paused lists the paused node and the same form as its reason', () => {
    const paused = find(run.events, 'workflow_paused');
    assert.equal(paused.data.workflow_run_id, run.runId);
    assert.equal(paused.data.status, 'paused');
    assert.deepEqual(paused.data.paused_nodes, ['review']);
    assert.deepEqual(paused.data.reasons, [{ TYPE: 'human_input_required', ...run.request }]);
    assert.equal(paused.data.total_steps, 3);
  });

  test('GET form answers the definition (§2.2)', async () => {
    const form = await client.getForm(run.token);
    assert.deepEqual(Object.keys(form).sort(), ['expiration_time', 'form_content', 'inputs', 'resolved_default_values', 'user_actions']);
    assert.equal(form.form_content, FORM_CONTENT('3.1.0'));
    assert.deepEqual(form.inputs, run.request.inputs);
    assert.deepEqual(form.resolved_default_values, {});
    assert.deepEqual(form.user_actions, run.request.actions);
    assert.equal(form.expiration_time, run.request.expiration_time);

    const answer = await raw('GET', `/v1/form/human_input/${run.token}`);
    assert.equal(answer.status, 200);
    assert.match(answer.headers.get('content-type') ?? '', /^application\/json/);
  });

  test('GET /workflows/run/{id} shows the paused run', async () => {
    const detail = await client.getWorkflowRun(run.runId);
    assert.equal(detail.id, run.runId);
    assert.equal(detail.status, 'paused');
    assert.equal(detail.finished_at, null);
    assert.equal(detail.inputs, JSON.stringify(reported('3.1.0', 'alice', run.runId)));
    assert.equal(detail.total_steps, 3);
    await rejectsWith(client.getWorkflowRun('00000000-0000-0000-0000-000000000000'), 404, 'not_found', 'Workflow run not found');
  });
});

describe('submitting the form', () => {
  test('rejected submissions answer the real errors and leave the form open', async () => {
    const run = await startPaused('bob');
    const path = `/v1/form/human_input/${run.token}`;
    const ok = { inputs: { comments: 'fine' }, action: 'approve', user: 'bob' };

    assertError(await raw('POST', path, { json: { inputs: ok.inputs, action: 'approve' } }), 400, 'invalid_param', 'Arg user must be provided.');
    assertError(await raw('POST', path, { json: { ...ok, user: '' } }), 400, 'invalid_param', 'Arg user must be provided.');
    // user is read before the payload is validated (the real service's decorator)
    assertError(await raw('POST', path, { json: {} }), 400, 'invalid_param', 'Arg user must be provided.');
    assertError(await raw('POST', path, { json: { inputs: {}, user: 'bob' } }), 400, 'invalid_param', /^1 validation error for HumanInputFormSubmitPayload\naction\n {2}Field required/);
    await rejectsWith(client.submitForm(run.token, { ...ok, action: 'x' }), 400, 'invalid_form_data', 'Invalid action: x');
    // the action is checked before missing inputs
    await rejectsWith(client.submitForm(run.token, { inputs: {}, action: 'x', user: 'bob' }), 400, 'invalid_form_data', 'Invalid action: x');
    await rejectsWith(client.submitForm(run.token, { inputs: {}, action: 'approve', user: 'bob' }), 400, 'invalid_form_data', 'Missing required inputs: comments');
    await rejectsWith(client.submitForm('NoSuchTokenNoSuchToken', ok), 404, 'not_found', 'Form not found');
    assertError(await raw('POST', path, { body: '{"inputs": ' }), 400, 'invalid_param', 'Invalid JSON payload received or JSON payload is empty.');
    assertError(await raw('POST', path, { body: '' }), 400, 'invalid_param', 'Invalid JSON payload received or JSON payload is empty.');

    // Nothing was consumed: the form still answers, and a valid submit goes through.
    const form = await client.getForm(run.token);
    assert.equal(form.form_content, run.request.form_content);
    assert.equal((await client.getWorkflowRun(run.runId)).status, 'paused');
    assert.deepEqual(await client.submitForm(run.token, ok), {});
  });

  test('the user is checked before the token, like the real service', async () => {
    assertError(
      await raw('POST', '/v1/form/human_input/NoSuchTokenNoSuchToken', { json: { inputs: {}, action: 'approve' } }),
      400,
      'invalid_param',
      'Arg user must be provided.',
    );
  });

  test('a paragraph answer that is not text is written into rendered_content as Python str() would', async () => {
    const user = 'pat';
    const run = await startPaused(user);
    const stream = await openEvents(run.runId, user);
    const comments = { note: "it's fine", steps: [1.5, 2, null, true] };
    await client.submitForm(run.token, { inputs: { comments: comments as never }, action: 'approve', user });
    const filled = find(await drain(stream), 'human_input_form_filled');
    assert.equal(filled.data.rendered_content, run.request.form_content.replace('{{#$output.comments#}}', `{'note': "it's fine", 'steps': [1.5, 2, None, True]}`));
    assert.deepEqual(filled.data.submitted_data, { comments });
  });

  test('approve: the resumed run is followed to workflow_finished, then the form is closed', async () => {
    const user = 'carol';
    const run = await startPaused(user);
    const stream = await openEvents(run.runId, user); // opened before submitting
    assert.deepEqual(await client.submitForm(run.token, { inputs: { comments: 'Ship it on Monday.' }, action: 'approve', user }), {});
    const events = await drain(stream); // ends: the server closes the stream after workflow_finished

    assert.deepEqual(outline(events), [
      'workflow_started',
      'node_started:review',
      'human_input_form_filled',
      'node_finished:review',
      'node_started:publish',
      'text_chunk',
      'node_finished:publish',
      'node_started:end_published',
      'node_finished:end_published',
      'workflow_finished',
    ]);
    for (const event of live(events)) {
      assert.deepEqual(Object.keys(event), ['event', 'task_id', 'workflow_run_id', 'data'], event.event);
      assert.equal(event.workflow_run_id, run.runId);
    }
    assert.equal(find(events, 'workflow_started').data.reason, 'resumption');

    const filled = find(events, 'human_input_form_filled');
    const rendered = run.request.form_content.replace('{{#$output.comments#}}', 'Ship it on Monday.');
    assert.deepEqual(filled.data, {
      node_id: 'review',
      node_title: 'Editor review',
      rendered_content: rendered,
      action_id: 'approve',
      action_text: 'Approve and publish',
      submitted_data: { comments: 'Ship it on Monday.' },
    });
    assert.ok(!filled.data.rendered_content.includes('{{#$output.'));

    const reviewDone = live(events).find((e) => e.event === 'node_finished' && e.data.node_id === 'review') as RunEventOf<'node_finished'>;
    assert.deepEqual(reviewDone.data.outputs, {
      comments: 'Ship it on Monday.',
      __action_id: 'approve',
      __action_value: 'Approve and publish',
      __rendered_content: rendered,
    });

    const text = events.filter((e): e is RunEventOf<'text_chunk'> => e.event === 'text_chunk').map((e) => e.data.text).join('');
    assert.equal(text, "Published version 2.4.0. Editor's note: Ship it on Monday.");

    const finished = find(events, 'workflow_finished');
    assert.equal(events.at(-1), finished);
    assert.equal(finished.data.id, run.runId);
    assert.equal(finished.data.status, 'succeeded');
    assert.equal(finished.data.error, null);
    assert.deepEqual(finished.data.outputs, { result: 'published', notes: DRAFT('2.4.0'), comments: 'Ship it on Monday.' });
    // created_by names the end-user record (the same id an upload by this user carries) and the user string.
    const upload = await client.uploadFile(new Blob(['x']), 'a.txt', user);
    assert.deepEqual(finished.data.created_by, { id: upload.created_by, user });

    // One-shot: a second submit, and the definition, answer 412.
    const submitted = `This form has already been submitted by another user, form_id=${run.request.form_id}`;
    await rejectsWith(client.submitForm(run.token, { inputs: { comments: 'again' }, action: 'approve', user }), 412, 'human_input_form_submitted', submitted);
    await rejectsWith(client.submitForm(run.token, { inputs: { comments: 'other' }, action: 'send_back', user: 'someone-else' }), 412, 'human_input_form_submitted', submitted);
    await rejectsWith(client.getForm(run.token), 412, 'human_input_form_submitted', submitted);

    // A finished run answers its events with a single workflow_finished frame (task_id = run id).
    const late = await drain(client.workflowEvents(run.runId, { user }));
    assert.equal(late.length, 1);
    const only = late[0] as RunEventOf<'workflow_finished'>;
    assert.equal(only.event, 'workflow_finished');
    assert.equal(only.task_id, run.runId);
    assert.equal(only.workflow_run_id, run.runId);
    assert.deepEqual(only.data, finished.data);

    // Another end user cannot see the run; a missing user is refused.
    await rejectsWith(drain(client.workflowEvents(run.runId, { user: 'mallory' })), 404, 'not_found', 'Workflow run not found');
    assertError(await raw('GET', `/v1/workflow/${run.runId}/events`), 400, 'invalid_param', 'Arg user must be provided.');
    await rejectsWith(drain(client.workflowEvents('00000000-0000-0000-0000-000000000000', { user })), 404, 'not_found', 'Workflow run not found');

    const detail = await client.getWorkflowRun(run.runId);
    assert.equal(detail.status, 'succeeded');
    assert.equal(typeof detail.finished_at, 'number');
    assert.deepEqual(detail.outputs, finished.data.outputs);
    assert.equal(detail.inputs, JSON.stringify(reported('2.4.0', user, run.runId)));
    assert.equal(detail.total_steps, finished.data.total_steps);
  });

  test('send_back takes the other branch and ends with result "sent_back"', async () => {
    const user = 'dave';
    const run = await startPaused(user);
    const stream = await openEvents(run.runId, user);
    await client.submitForm(run.token, { inputs: { comments: 'Needs numbers.' }, action: 'send_back', user });
    const events = await drain(stream);
    assert.deepEqual(outline(events), [
      'workflow_started',
      'node_started:review',
      'human_input_form_filled',
      'node_finished:review',
      'node_started:end_sent_back',
      'node_finished:end_sent_back',
      'workflow_finished',
    ]);
    const filled = find(events, 'human_input_form_filled');
    assert.equal(filled.data.action_id, 'send_back');
    assert.equal(filled.data.action_text, 'Send back');
    const finished = find(events, 'workflow_finished');
    assert.equal(finished.data.status, 'succeeded');
    assert.deepEqual(finished.data.outputs, { result: 'sent_back', comments: 'Needs numbers.' });
  });
});

describe('blocking mode', () => {
  test('answers the paused body when the run stops at the form', async () => {
    const body = await client.runWorkflow({ inputs: {}, user: 'erin' });
    assert.match(body.task_id, UUID);
    assert.match(body.workflow_run_id, UUID);
    assert.equal(body.data.id, body.workflow_run_id);
    assert.equal(body.data.status, 'paused');
    assert.equal(body.data.finished_at, null);
    assert.deepEqual(body.data.outputs, {}, 'as in the workflow_paused event');
    assert.ok('paused_nodes' in body.data);
    assert.deepEqual(body.data.paused_nodes, ['review']);
    assert.equal(body.data.reasons.length, 1);
    const reason = body.data.reasons[0]!;
    assert.equal(reason.TYPE, 'human_input_required');
    assert.equal(reason.node_id, 'review');
    assert.match(reason.form_token!, /^[A-Za-z0-9]{22}$/);
    assert.equal(reason.form_content, FORM_CONTENT('2.4.0'));
    // The form it names is live.
    const form = await client.getForm(reason.form_token!);
    assert.equal(form.form_content, reason.form_content);
  });

  test('a run needs a user', async () => {
    assertError(await raw('POST', '/v1/workflows/run', { json: { inputs: {}, response_mode: 'blocking' } }), 400, 'invalid_param', 'Arg user must be provided.');
    assertError(await raw('POST', '/v1/workflows/run', { body: 'nope' }), 400, 'invalid_param', 'Invalid JSON payload received or JSON payload is empty.');
  });
});

describe('authentication and routing', () => {
  const routes: [string, string][] = [
    ['POST', '/v1/workflows/run'],
    ['GET', '/v1/workflows/run/00000000-0000-0000-0000-000000000000'],
    ['GET', '/v1/workflow/00000000-0000-0000-0000-000000000000/events?user=u'],
    ['GET', '/v1/form/human_input/NoSuchTokenNoSuchToken'],
    ['POST', '/v1/form/human_input/NoSuchTokenNoSuchToken'],
    ['GET', '/v1/site'],
  ];
  const cases: [string | null, string][] = [
    [null, "Authorization header must be provided and start with 'Bearer'"],
    ['Bearer', "Authorization header must be provided and start with 'Bearer'"],
    ['Basic dXNlcjpwYXNz', "Authorization scheme must be 'Bearer'"],
    ['Bearer app-no-such-key', 'Access token is invalid'],
  ];

  test('401 with the real messages and WWW-Authenticate: Bearer realm="api"', async () => {
    for (const [method, path] of routes) {
      for (const [auth, message] of cases) {
        const answer = await raw(method, path, { auth, ...(method === 'POST' ? { json: { inputs: {}, user: 'u' } } : {}) });
        assertError(answer, 401, 'unauthorized', message);
        assert.equal(answer.headers.get('www-authenticate'), 'Bearer realm="api"', `${method} ${path} ${auth}`);
      }
    }
  });

  test('the client reports a bad key as a ServiceError', async () => {
    const bad = new AppClient({ baseUrl: svc.url, credential: 'app-wrong' });
    await rejectsWith(bad.runWorkflow({ inputs: {}, user: 'u' }), 401, 'unauthorized', 'Access token is invalid');
    await rejectsWith(drain(bad.streamWorkflow({ inputs: {}, user: 'u' })), 401, 'unauthorized', 'Access token is invalid');
  });

  test('unknown routes answer 404, known routes with another method 405', async () => {
    for (const path of ['/v1/nope', '/v1/workflows', '/v1/form/human_input', '/v2/workflows/run', '/']) {
      assertError(await raw('GET', path), 404, 'not_found', NOT_FOUND_TEXT);
    }
    for (const [method, path] of [
      ['GET', '/v1/workflows/run'],
      ['DELETE', '/v1/form/human_input/abc'],
      ['PUT', '/v1/workflows/run/abc'],
      ['POST', '/v1/workflow/abc/events'],
    ] as const) {
      assertError(await raw(method, path), 405, 'method_not_allowed', 'The method is not allowed for the requested URL.');
    }
  });
});
