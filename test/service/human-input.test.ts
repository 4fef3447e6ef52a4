/**
 * Human input on the Workflow app's `full` scenario: a form with every input type and all four
 * button styles, every submission rule of dify-wire.md §2.6 (uploads, remote URLs fetched from a
 * loopback server, the QA fetch failure), two consecutive forms on one open stream, a branch per
 * action, expiry by the node's timeout and by the QA endpoint, email-only delivery, snapshots,
 * stop, and runs that go on with no client.
 */
import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, test } from 'node:test';
import type { AppClient } from '../../src/client/index.js';
import type { HumanInputRequest, RunEvent, RunEventOf } from '../../src/protocol/index.js';
import { assertError, drain, eventually, find, KEYS, live, openEvents, outline, rejects, startApp, type Harness } from './app-helpers.js';

const PNG = Buffer.from('89504e470d0a1a0a0000000d4948445200000001000000010806000000', 'hex');
let h: Harness;
let wf: AppClient;
let files: Server;
let filesUrl: string;

before(async () => {
  h = await startApp();
  wf = h.client(KEYS.workflow);
  files = createServer((req, res) => {
    const types: Record<string, string> = { '/cover.png': 'image/png', '/photo.gif': 'image/gif', '/brief.md': 'text/markdown', '/report.pdf': 'application/pdf' };
    if (req.url === '/slow.png') return; // never answers
    const type = types[req.url ?? ''];
    if (!type) return void res.writeHead(404).end();
    res.writeHead(200, { 'Content-Type': type, 'Content-Length': String(PNG.length) }).end(req.method === 'HEAD' ? undefined : PNG);
  });
  await new Promise<void>((resolve) => files.listen(0, '127.0.0.1', resolve));
  filesUrl = `http://127.0.0.1:${(files.address() as AddressInfo).port}`;
});

after(async () => {
  files.closeAllConnections();
  files.close();
  await h.close();
});

interface Paused {
  runId: string;
  taskId: string;
  token: string;
  request: HumanInputRequest;
}

async function startFull(user: string, client = wf): Promise<Paused> {
  const events = await drain(client.streamWorkflow({ inputs: { scenario: 'full', topic: 'the autumn release' }, user }));
  const required = find(events, 'human_input_required');
  assert.equal(events.at(-1)!.event, 'workflow_paused');
  return { runId: required.workflow_run_id!, taskId: required.task_id!, token: required.data.form_token!, request: required.data };
}

/** A loopback URL nobody listens on. */
async function closedPortUrl(): Promise<string> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise((resolve) => server.close(resolve));
  return `http://127.0.0.1:${port}`;
}

const upload = (name: string, user: string, bytes: Uint8Array = PNG) => wf.uploadFile(new Blob([bytes]), name, user);

/** A submission that passes every rule, built from fresh uploads of `user`. */
async function validInputs(user: string): Promise<Record<string, unknown>> {
  const cover = await upload('cover.png', user);
  const brief = await upload('brief.md', user, new TextEncoder().encode('# Brief'));
  const sheet = await upload('numbers.csv', user, new TextEncoder().encode('a,b\n1,2'));
  return {
    summary: 'Ship it',
    notes: 'All good',
    priority: 'high',
    cover: { transfer_method: 'local_file', upload_file_id: cover.id, type: 'image' },
    brief: { transfer_method: 'local_file', upload_file_id: brief.id },
    attachments: [
      { transfer_method: 'local_file', upload_file_id: sheet.id, type: 'document' },
      { transfer_method: 'remote_url', url: `${filesUrl}/report.pdf`, type: 'document' },
    ],
  };
}

describe('defaults as the real node resolves them (dify-wire.md §2.4)', () => {
  test('a default whose variable the run never set is left out, not sent as ""', async () => {
    const h2 = await startApp((raw) => {
      const app = raw.apps.find((a: { key: string }) => a.key === KEYS.workflow);
      const node = findNode(app, 'summary');
      node.default.selector = ['outline', 'no_such_field'];
    });
    try {
      const events = await drain(h2.client(KEYS.workflow).streamWorkflow({ inputs: { scenario: 'full', topic: 'x' }, user: 'kim' }));
      const required = find(events, 'human_input_required');
      assert.deepEqual(required.data.resolved_default_values, {});
      assert.deepEqual((await h2.client(KEYS.workflow).getForm(required.data.form_token!)).resolved_default_values, {});
    } finally {
      await h2.close();
    }
  });
});

/** The input named `name` anywhere in a raw fixture app. */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
function findNode(value: any, name: string): any {
  if (value && typeof value === 'object') {
    if (value.output_variable_name === name) return value;
    for (const child of Object.values(value)) {
      const hit = findNode(child, name);
      if (hit) return hit;
    }
  }
  return undefined;
}

describe('the form with every input type', () => {
  let run: Paused;
  before(async () => {
    run = await startFull('ivy');
  });

  test('inputs, defaults (constant and variable), options, file limits and the four button styles', async () => {
    const form = await wf.getForm(run.token);
    assert.deepEqual(form.inputs.map((i) => [i.type, i.output_variable_name]), [
      ['paragraph', 'summary'], ['paragraph', 'notes'], ['select', 'priority'], ['file', 'cover'], ['file', 'brief'], ['file-list', 'attachments'],
    ]);
    const outlineText = 'Launch plan for the autumn release: announce on Monday, publish the docs on Tuesday, and watch the support queue all week.';
    // Only the variable-backed default, as real Dify sends it; the constant one is in the input itself.
    assert.deepEqual(form.resolved_default_values, { summary: outlineText });
    assert.deepEqual(form.inputs[1], { type: 'paragraph', output_variable_name: 'notes', default: { type: 'constant', selector: [], value: 'Looks good overall.' } });
    assert.ok(form.form_content.startsWith(`## Launch checklist for the autumn release\n\n> ${outlineText}`));
    for (const name of ['summary', 'notes', 'priority', 'cover', 'brief', 'attachments']) assert.ok(form.form_content.includes(`{{#$output.${name}#}}`));
    const select = form.inputs[2]!;
    assert.ok(select.type === 'select' && select.option_source.type === 'constant');
    assert.deepEqual(select.option_source.value, ['low', 'medium', 'high']);
    const list = form.inputs[5]!;
    assert.ok(list.type === 'file-list');
    assert.equal(list.number_limits, 3);
    assert.deepEqual(form.user_actions.map((a) => a.button_style), ['primary', 'default', 'accent', 'ghost']);
    const inADay = Math.floor(Date.now() / 1000) + 86_400;
    assert.ok(Math.abs(form.expiration_time! - inADay) <= 5);
  });

  test('every rule of §2.6, in order, with the real messages; the form stays open', async () => {
    const user = 'ivy';
    const valid = await validInputs(user);
    const submit = (inputs: Record<string, unknown>, action = 'approve', as = user) => wf.submitForm(run.token, { inputs: inputs as never, action, user: as });
    const bad = (name: string, value: unknown) => ({ ...valid, [name]: value });
    const invalid = (message: string) => ['invalid_form_data', message] as const;
    const strangers = await upload('cover.png', 'someone-else');
    const closedUrl = await closedPortUrl();
    const markdown = await upload('notes.md', user, new TextEncoder().encode('x'));
    const gif = await upload('photo.gif', user);
    const pdf = await upload('spec.pdf', user);
    const cases: [Record<string, unknown>, string, string][] = [
      [bad('priority', 3), 'approve', "Invalid value for select input 'priority': expected string"],
      [bad('priority', 'urgent'), 'approve', "Invalid value for select input 'priority': urgent"],
      [bad('cover', 'cover.png'), 'approve', "Invalid value for file input 'cover': expected mapping"],
      [bad('cover', { transfer_method: 'local_file', upload_file_id: '42' }), 'approve', "Invalid value for file input 'cover': Invalid upload file id format"],
      [bad('cover', { transfer_method: 'local_file', upload_file_id: strangers.id }), 'approve', "Invalid value for file input 'cover': Invalid upload file"],
      [bad('cover', { transfer_method: 'ftp', url: 'x' }), 'approve', "Invalid value for file input 'cover': unsupported transfer method"],
      [bad('cover', {}), 'approve', "Invalid value for file input 'cover': unsupported transfer method"],
      [bad('cover', { transfer_method: 'remote_url', url: 'not a url' }), 'approve', "Invalid value for file input 'cover': Invalid file url"],
      [bad('cover', { transfer_method: 'remote_url', url: `${filesUrl}/missing.png` }), 'approve', `Invalid value for file input 'cover': Failed to fetch remote file ${filesUrl}/missing.png: HTTP 404`],
      [bad('cover', { transfer_method: 'remote_url', url: `${closedUrl}/cover.png` }), 'approve', `Invalid value for file input 'cover': Failed to fetch remote file ${closedUrl}/cover.png: ECONNREFUSED`],
      [bad('cover', { transfer_method: 'local_file', upload_file_id: (valid.cover as { upload_file_id: string }).upload_file_id, type: 'document' }), 'approve', "Invalid value for file input 'cover': Detected file type does not match the specified type. Please verify the file."],
      [bad('attachments', 'x'), 'approve', "Invalid value for file list input 'attachments': expected list"],
      [bad('attachments', ['x']), 'approve', "Invalid value for file list input 'attachments': expected list of mappings"],
      [bad('attachments', [1, 2, 3, 4].map(() => valid.cover)), 'approve', "Invalid value for file list input 'attachments': Number of files exceeds the maximum limit 3"],
      [valid, 'ship', 'Invalid action: ship'],
      [{ summary: 'only this' }, 'approve', 'Missing required inputs: notes, priority, cover, brief, attachments'],
      [bad('cover', { transfer_method: 'local_file', upload_file_id: markdown.id }), 'approve', "Invalid value for file input 'cover': unsupported file type"],
      [bad('cover', { transfer_method: 'local_file', upload_file_id: gif.id }), 'approve', "Invalid value for file input 'cover': file is not allowed by config"],
      [bad('brief', { transfer_method: 'remote_url', url: `${filesUrl}/brief.md` }), 'approve', "Invalid value for file input 'brief': unsupported transfer method"],
      [bad('brief', { transfer_method: 'local_file', upload_file_id: pdf.id }), 'approve', "Invalid value for file input 'brief': unsupported file type"],
      [bad('attachments', [{ transfer_method: 'remote_url', url: `${filesUrl}/cover.png` }, { transfer_method: 'local_file', upload_file_id: (await upload('clip.mp4', user)).id }]), 'approve', "Invalid value for file list input 'attachments': unsupported file type"],
    ];
    for (const [inputs, action, message] of cases) await rejects(submit(inputs, action), 400, ...invalid(message));

    // A remote fetch that takes too long fails too (QA shortens the timeout).
    await h.raw('PATCH', '/_qa/settings', { key: null, json: { remoteFetchTimeoutMs: 200 } });
    await rejects(submit(bad('cover', { transfer_method: 'remote_url', url: `${filesUrl}/slow.png` })), 400, 'invalid_form_data', `Invalid value for file input 'cover': Failed to fetch remote file ${filesUrl}/slow.png: no answer within 200 ms`);
    // QA: every remote fetch fails, even of a file that exists.
    await h.raw('PATCH', '/_qa/settings', { key: null, json: { failRemoteFetch: true, remoteFetchTimeoutMs: 5000 } });
    await rejects(submit(valid), 400, 'invalid_form_data', `Invalid value for file list input 'attachments': Failed to fetch remote file ${filesUrl}/report.pdf: fetching is disabled by the QA controls`);
    await h.raw('PATCH', '/_qa/settings', { key: null, json: { failRemoteFetch: false } });

    // Nothing was consumed: the form still answers and the run still waits.
    assert.equal((await wf.getForm(run.token)).form_content, run.request.form_content);
    assert.equal((await wf.getWorkflowRun(run.runId)).status, 'paused');
    // The run's user is not required to match: the form is the token's.
    assert.deepEqual(await submit(await validInputs('another'), 'approve', 'another'), {});
    await rejects(submit(valid), 412, 'human_input_form_submitted', `This form has already been submitted by another user, form_id=${run.request.form_id}`);
  });
});

describe('a run through both forms on one stream', () => {
  test('approve, then the consecutive sign-off form, then the launch', async () => {
    const user = 'june';
    const run = await startFull(user);
    const stream = await openEvents(wf, run.runId, { user, continue_on_pause: true });
    const inputs = await validInputs(user);
    await wf.submitForm(run.token, { inputs: inputs as never, action: 'approve', user });
    const events: RunEventOf<'human_input_required'>[] = [];
    const seen = [];
    for await (const event of stream) {
      seen.push(event);
      if (event.event === 'human_input_required') {
        events.push(event);
        const form = await wf.getForm(event.data.form_token!);
        assert.deepEqual(form.resolved_default_values, { signoff_note: 'All good' });
        assert.ok(form.form_content.startsWith('Priority **high**, approved with the note: All good'));
        await wf.submitForm(event.data.form_token!, { inputs: { signoff_note: 'Go!' }, action: 'confirm', user });
      }
    }
    assert.deepEqual(outline(seen), [
      'workflow_started', 'node_started:intake', 'human_input_form_filled', 'node_finished:intake',
      'node_started:signoff', 'human_input_required', 'workflow_paused',
      'workflow_started', 'node_started:signoff', 'human_input_form_filled', 'node_finished:signoff',
      'node_started:announce', 'text_chunk', 'node_finished:announce', 'node_started:end_launched', 'node_finished:end_launched', 'workflow_finished',
    ]);
    const filled = live(seen).filter((e): e is RunEventOf<'human_input_form_filled'> => e.event === 'human_input_form_filled');
    assert.equal(filled[0]!.data.action_id, 'approve');
    assert.match(filled[0]!.data.rendered_content, /\*\*Cover image\*\* \(PNG or JPEG\):\n\n\[file\]\n\n/);
    assert.match(filled[0]!.data.rendered_content, /\*\*Supporting files\*\* \(up to 3 documents or images\):\n\n\[2 files\]$/);
    const submitted = filled[0]!.data.submitted_data!;
    assert.equal(submitted.priority, 'high');
    assert.deepEqual(submitted.cover, { type: 'image', transfer_method: 'local_file', upload_file_id: (inputs.cover as { upload_file_id: string }).upload_file_id, filename: 'cover.png', extension: 'png', mime_type: 'image/png', size: PNG.length });
    assert.deepEqual((submitted.attachments as { filename: string; type: string }[]).map((f) => [f.filename, f.type]), [['numbers.csv', 'document'], ['report.pdf', 'document']]);
    const finished = find(seen, 'workflow_finished');
    assert.deepEqual(finished.data.outputs, {
      result: 'launched',
      priority: 'high',
      summary: 'Ship it',
      announcement: 'Launching the autumn release with high priority. Go!',
    });
  });

  test('each action takes its own branch', async () => {
    const expected: Record<string, Record<string, unknown>> = {
      revise: { result: 'revise', notes: 'All good' },
      escalate: { result: 'escalated', priority: 'high' },
      discard: { result: 'discarded' },
    };
    for (const [action, outputs] of Object.entries(expected)) {
      const user = `branch-${action}`;
      const run = await startFull(user);
      await wf.submitForm(run.token, { inputs: (await validInputs(user)) as never, action, user });
      await eventually(async () => (await wf.getWorkflowRun(run.runId)).status === 'succeeded', `the ${action} branch`);
      assert.deepEqual((await wf.getWorkflowRun(run.runId)).outputs, outputs);
    }
  });

  test('reopen on the sign-off form ends the run there', async () => {
    const user = 'reopener';
    const run = await startFull(user);
    await wf.submitForm(run.token, { inputs: (await validInputs(user)) as never, action: 'approve', user });
    let token: string | null | undefined;
    await eventually(async () => {
      const snapshot = await drain(wf.workflowEvents(run.runId, { user, include_state_snapshot: true }));
      token = snapshot.find((e): e is RunEventOf<'human_input_required'> => e.event === 'human_input_required' && e.data.node_id === 'signoff')?.data.form_token;
      return Boolean(token);
    }, 'the sign-off form');
    await wf.submitForm(token!, { inputs: { signoff_note: 'Not yet' }, action: 'reopen', user });
    await eventually(async () => (await wf.getWorkflowRun(run.runId)).status === 'succeeded', 'the reopened end');
    assert.deepEqual((await wf.getWorkflowRun(run.runId)).outputs, { result: 'reopened', note: 'Not yet' });
  });
});

describe('expiry', () => {
  test("the node's timeout expires the form: timeout branch and human_input_form_timeout", async () => {
    const quick = await startApp((raw) => {
      const intake = raw.apps.find((a: { key: string }) => a.key === KEYS.workflow).workflow.nodes.find((n: { id: string }) => n.id === 'intake');
      intake.timeout_seconds = 1;
    });
    try {
      const client = quick.client(KEYS.workflow);
      const events = await drain(client.streamWorkflow({ inputs: { scenario: 'full' }, user: 'kim' }));
      const required = find(events, 'human_input_required');
      assert.ok(Math.abs(required.data.expiration_time! - (Math.floor(Date.now() / 1000) + 1)) <= 1);
      const stream = await openEvents(client, required.workflow_run_id!, { user: 'kim' });
      const after: RunEvent[] = [];
      let timedOutAt = 0;
      for await (const event of stream) {
        if (event.event === 'human_input_form_timeout') timedOutAt = Date.now();
        after.push(event);
      }
      // As Dify's periodic task, the timeout comes after the expiry has passed, not at it.
      assert.ok(timedOutAt >= (required.data.expiration_time! + 1) * 1000, 'the run timed out before its expiry second was over');
      assert.deepEqual(outline(after), [
        'workflow_started', 'node_started:intake', 'human_input_form_timeout', 'node_finished:intake',
        'node_started:timed_out_note', 'text_chunk', 'node_finished:timed_out_note', 'node_started:end_timed_out', 'node_finished:end_timed_out', 'workflow_finished',
      ]);
      const timeout = find(after, 'human_input_form_timeout');
      assert.deepEqual(timeout.data, { node_id: 'intake', node_title: 'Launch checklist', expiration_time: required.data.expiration_time });
      assert.equal(find(after, 'workflow_finished').data.outputs!.result, 'timed_out');
      const expired = `This form has expired, form_id=${required.data.form_id}`;
      await rejects(client.getForm(required.data.form_token!), 412, 'human_input_form_expired', expired);
      await rejects(client.submitForm(required.data.form_token!, { inputs: {}, action: 'approve', user: 'kim' }), 412, 'human_input_form_expired', expired);
    } finally {
      await quick.close();
    }
  });

  test('the QA endpoint expires a form now', async () => {
    const run = await startFull('lee');
    const stream = await openEvents(wf, run.runId, { user: 'lee' });
    const answer = await h.raw('POST', `/_qa/forms/${run.token}/expire`, { key: null });
    assert.equal(answer.status, 200);
    const events = await drain(stream);
    assert.ok(outline(events).includes('human_input_form_timeout'));
    assert.equal(find(events, 'workflow_finished').data.outputs!.result, 'timed_out');
    assertError(await h.raw('POST', `/_qa/forms/${run.token}/expire`, { key: null }), 409, 'form_not_waiting', 'The form is timeout; only a waiting form can expire.');
    await rejects(wf.getForm(run.token), 412, 'human_input_form_expired');
  });

  test('an email-only form has no token; it cannot be driven, only expire', async () => {
    const events = await drain(wf.streamWorkflow({ inputs: { scenario: 'email' }, user: 'max' }));
    const required = find(events, 'human_input_required');
    assert.equal(required.data.form_token, null);
    assert.equal(required.data.display_in_ui, false);
    assert.equal(find(events, 'workflow_paused').data.reasons[0]!.form_token, null);
    await rejects(wf.getForm(required.data.form_id), 404, 'not_found', 'Form not found');
    const stream = await openEvents(wf, required.workflow_run_id!, { user: 'max' });
    await h.raw('POST', `/_qa/forms/${required.data.form_id}/expire`, { key: null });
    assert.equal(find(await drain(stream), 'workflow_finished').data.outputs!.result, 'expired');
  });
});

describe('following and stopping runs', () => {
  test('include_state_snapshot replays the run up to its pending form, then the stream closes', async () => {
    const run = await startFull('nia');
    const events = await drain(wf.workflowEvents(run.runId, { user: 'nia', include_state_snapshot: true }));
    assert.equal(events[0]!.event, 'ping');
    assert.deepEqual(outline(events), [
      'workflow_started', 'node_started:start', 'node_finished:start', 'node_started:outline', 'node_finished:outline', 'node_started:intake',
      'human_input_required', 'workflow_paused',
    ]);
    const finished = events.find((e): e is RunEventOf<'node_finished'> => e.event === 'node_finished')!;
    assert.equal(finished.data.outputs, null);
    assert.equal(find(events, 'human_input_required').data.form_token, run.token);
  });

  test('stopping a paused run finishes it as stopped and closes its form', async () => {
    const run = await startFull('otto');
    const stream = await openEvents(wf, run.runId, { user: 'otto', continue_on_pause: true });
    assert.deepEqual(await wf.stopWorkflow(run.taskId, 'someone-else'), { result: 'success' });
    assert.equal((await wf.getWorkflowRun(run.runId)).status, 'paused');
    assert.deepEqual(await wf.stopWorkflow(run.taskId, 'otto'), { result: 'success' });
    const events = await drain(stream);
    const finished = find(events, 'workflow_finished');
    assert.equal(finished.data.status, 'stopped');
    assert.equal(finished.data.error, 'Workflow execution stopped by user.');
    const detail = await wf.getWorkflowRun(run.runId);
    assert.equal(detail.status, 'stopped');
    await rejects(wf.getForm(run.token), 412, 'human_input_form_expired');
  });

  test('stopping a running run ends its stream with workflow_finished(stopped)', async () => {
    const stream = wf.streamWorkflow({ inputs: { scenario: 'full' }, user: 'pia' });
    const first = (await stream.next()).value as RunEventOf<'workflow_started'>;
    await wf.stopWorkflow(first.task_id!, 'pia');
    const rest = await drain(stream);
    assert.equal(rest.at(-1)!.event, 'workflow_finished');
    const finished = (rest.at(-1) as RunEventOf<'workflow_finished'>).data;
    assert.equal(finished.status, 'stopped');
    assert.ok(!outline(rest).includes('human_input_required'));
    // The run's detail tells the same story as its last event, and its clock has stopped.
    const detail = await wf.getWorkflowRun(first.workflow_run_id!);
    assert.equal(detail.total_tokens, finished.total_tokens);
    await new Promise((r) => setTimeout(r, 60));
    assert.equal((await wf.getWorkflowRun(first.workflow_run_id!)).elapsed_time, detail.elapsed_time);
  });

  test('an LLM node reports its token use in execution_metadata; the run adds it up', async () => {
    const events = await drain(wf.streamWorkflow({ inputs: { scenario: 'full', topic: 'tokens' }, user: 'tess' }));
    const done = live(events).filter((e): e is RunEventOf<'node_finished'> => e.event === 'node_finished');
    const llm = done.filter((e) => e.data.node_type === 'llm');
    assert.ok(llm.length > 0);
    for (const e of llm) {
      assert.deepEqual(Object.keys(e.data.execution_metadata ?? {}), ['total_tokens', 'total_price', 'currency']);
      assert.ok(e.data.execution_metadata!.total_tokens! > 0);
    }
    for (const e of done.filter((x) => x.data.node_type !== 'llm')) assert.equal(e.data.execution_metadata, null, e.data.node_id);
    const sum = llm.reduce((n, e) => n + e.data.execution_metadata!.total_tokens!, 0);
    assert.equal(find(events, 'workflow_paused').data.total_tokens, sum);
  });

  test('a run goes on with no client; another user cannot follow it', async () => {
    const abort = new AbortController();
    const stream = wf.streamWorkflow({ inputs: { scenario: 'full' }, user: 'quinn' }, abort.signal);
    const first = (await stream.next()).value as RunEventOf<'workflow_started'>;
    abort.abort();
    await stream.return(undefined);
    await eventually(async () => (await wf.getWorkflowRun(first.workflow_run_id!)).status === 'paused', 'the run to pause unattended');
    await rejects(drain(wf.workflowEvents(first.workflow_run_id!, { user: 'mallory' })), 404, 'not_found', 'Workflow run not found');
    const replay = await drain(wf.workflowEvents(first.workflow_run_id!, { user: 'quinn', include_state_snapshot: true }));
    assert.equal(replay.at(-1)!.event, 'workflow_paused');
  });
});
