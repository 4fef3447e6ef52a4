/**
 * The QA controls (loopback-only endpoint, latency, cut streams, reset, start-up settings) and
 * bad input: malformed JSON, wrong types and oversize bodies get 400/413 in the error shape,
 * never a 500.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { KnowledgeClient } from '../../src/client/knowledge.js';
import type { RunEventOf } from '../../src/protocol/index.js';
import { assertError, drain, eventually, KEYS, live, openEvents, startApp, type Harness } from './app-helpers.js';

let h: Harness;
before(async () => {
  h = await startApp();
});
after(() => h.close());

describe('QA endpoint', () => {
  test('answers loopback callers only', async () => {
    const { service } = h.svc;
    for (const remoteAddress of ['192.0.2.10', '10.0.0.5', '::ffff:192.0.2.1', undefined]) {
      const answer = await service.fetch(new Request('http://127.0.0.1/_qa/state'), { remoteAddress });
      assert.equal(answer.status, 403, String(remoteAddress));
      assert.deepEqual(await answer.json(), { code: 'forbidden', message: 'The QA endpoint answers loopback callers only.', status: 403 });
    }
    for (const remoteAddress of ['127.0.0.1', '::1', '::ffff:127.0.0.1']) {
      assert.equal((await service.fetch(new Request('http://127.0.0.1/_qa/state'), { remoteAddress })).status, 200);
    }
  });

  test('settings are validated', async () => {
    assertError(await h.raw('PATCH', '/_qa/settings', { key: null, json: { speed: 1 } }), 400, 'invalid_param', /Unknown setting "speed"/);
    assertError(await h.raw('PATCH', '/_qa/settings', { key: null, json: { latencyMs: -1 } }), 400, 'invalid_param', 'latencyMs must be an integer from 0 to 60000');
    assertError(await h.raw('PATCH', '/_qa/settings', { key: null, json: { cutStreamAfter: -1 } }), 400, 'invalid_param', 'cutStreamAfter must be null or an integer of at least 0');
    assertError(await h.raw('PATCH', '/_qa/settings', { key: null, json: { pingIntervalMs: 0 } }), 400, 'invalid_param', 'pingIntervalMs must be an integer from 10 to 600000');
    assertError(await h.raw('PATCH', '/_qa/settings', { key: null, json: { streamIdleTimeoutMs: 50 } }), 400, 'invalid_param', 'streamIdleTimeoutMs must be an integer from 100 to 86400000');
    assertError(await h.raw('POST', '/_qa/runs/nope/cut-stream', { key: null, json: { after: 2 } }), 404, 'not_found', 'Workflow run not found');
    assertError(await h.raw('POST', '/_qa/forms/nope/expire', { key: null }), 404, 'not_found', 'Form not found');
  });

  test('latency delays every response', async () => {
    await h.raw('PATCH', '/_qa/settings', { key: null, json: { latencyMs: 250 } });
    const started = Date.now();
    await h.client(KEYS.chatbot).getSite();
    assert.ok(Date.now() - started >= 240, `took ${Date.now() - started} ms`);
    await h.raw('PATCH', '/_qa/settings', { key: null, json: { latencyMs: 0 } });
  });

  test('a cut stream ends after N events while the run goes on', async () => {
    const wf = h.client(KEYS.workflow);
    await h.raw('PATCH', '/_qa/settings', { key: null, json: { cutStreamAfter: 3 } });
    const events = live(await drain(wf.streamWorkflow({ inputs: {}, user: 'cut' })));
    await h.raw('PATCH', '/_qa/settings', { key: null, json: { cutStreamAfter: null } });
    assert.deepEqual(events.map((e) => e.event), ['workflow_started', 'node_started', 'node_finished']);
    const runId = events[0]!.workflow_run_id!;
    await eventually(async () => (await wf.getWorkflowRun(runId)).status === 'paused', 'the run to pause without its client');

    // One run's streams only.
    const other = live(await drain(wf.streamWorkflow({ inputs: {}, user: 'cut' })));
    assert.equal(other.at(-1)!.event, 'workflow_paused');
    assert.equal((await h.raw('POST', `/_qa/runs/${runId}/cut-stream`, { key: null, json: { after: 2 } })).status, 200);
    const replay = live(await drain(wf.workflowEvents(runId, { user: 'cut', include_state_snapshot: true })));
    assert.equal(replay.length, 2);
    const full = live(await drain(wf.workflowEvents(other[0]!.workflow_run_id!, { user: 'cut', include_state_snapshot: true })));
    assert.equal(full.at(-1)!.event, 'workflow_paused');
  });

  test('a run\'s event stream closes after streamIdleTimeoutMs without an event, pings not counting, as the real service\'s does', async () => {
    const wf = h.client(KEYS.workflow);
    await h.raw('PATCH', '/_qa/settings', { key: null, json: { pingIntervalMs: 40, streamIdleTimeoutMs: 400 } });
    try {
      const start = live(await drain(wf.streamWorkflow({ inputs: {}, user: 'idle' })));
      assert.equal(start.at(-1)!.event, 'workflow_paused');
      const opened = Date.now();
      const events = await drain(wf.workflowEvents(start[0]!.workflow_run_id!, { user: 'idle', include_state_snapshot: true, continue_on_pause: true }));
      const took = Date.now() - opened;
      assert.ok(took >= 380 && took < 2000, `closed after ${took} ms`);
      assert.equal(live(events).at(-1)!.event, 'workflow_paused', 'nothing after the snapshot');
      assert.ok(events.filter((e) => e.event === 'ping').length >= 4, 'pinged meanwhile, and the pings did not keep it open');
    } finally {
      await h.raw('PATCH', '/_qa/settings', { key: null, json: { pingIntervalMs: 10_000, streamIdleTimeoutMs: 300_000 } });
    }
  });

  test('state lists the runs and their forms; reset forgets everything', async () => {
    const bot = h.client(KEYS.chatbot);
    await bot.sendChatMessage({ query: 'Remember me', inputs: {}, user: 'resetter' });
    const state = (await h.raw('GET', '/_qa/state', { key: null })).body as { runs: { status: string; paused_form: { form_token: string } | null }[] };
    const paused = state.runs.find((r) => r.status === 'paused');
    assert.ok(paused?.paused_form?.form_token);
    await h.raw('PATCH', '/_qa/settings', { key: null, json: { latencyMs: 5 } });
    assert.equal((await h.raw('POST', '/_qa/reset', { key: null })).status, 200);
    assert.deepEqual((await bot.listConversations({ user: 'resetter' })).data, []);
    const after = (await h.raw('GET', '/_qa/state', { key: null })).body as { runs: unknown[]; settings: { latencyMs: number } };
    assert.deepEqual(after.runs, []);
    assert.equal(after.settings.latencyMs, 0);
  });

  test('reset puts the knowledge side back to the fixture', async () => {
    const kc = new KnowledgeClient({ baseUrl: h.svc.url, credential: 'dataset-demo' });
    const names = async () => (await kc.listDatasets({ limit: 100, include_all: true })).data.map((d) => d.name).sort();
    const before = await names();
    const handbook = (await kc.listDatasets({ keyword: 'Demo handbook' })).data[0]!;
    const created = await kc.createDataset({ name: 'Made before the reset' });
    await kc.updateDataset(handbook.id, { name: 'Renamed handbook' });
    assert.deepEqual(await names(), [...before.filter((n) => n !== 'Demo handbook'), 'Made before the reset', 'Renamed handbook'].sort());

    assert.equal((await h.raw('POST', '/_qa/reset', { key: null })).status, 200);
    assert.deepEqual(await names(), before);
    assert.equal((await kc.getDataset(handbook.id)).name, 'Demo handbook');
    await assert.rejects(kc.getDataset(created.id), { status: 404 });
  });

  test('start-up settings (the CLI flags) apply from the first request', async () => {
    const failing = await startApp(undefined, { failRemoteFetch: true, cutStreamAfter: 1 });
    try {
      const events = await drain(failing.client(KEYS.workflow).streamWorkflow({ inputs: {}, user: 'flags' }));
      assert.deepEqual(live(events).map((e) => e.event), ['workflow_started']);
      const state = (await failing.raw('GET', '/_qa/state', { key: null })).body as { settings: Record<string, unknown> };
      assert.deepEqual(state.settings, { latencyMs: 0, cutStreamAfter: 1, failRemoteFetch: true, remoteFetchTimeoutMs: 5000, pingIntervalMs: 10_000, streamIdleTimeoutMs: 300_000, transcript: null });
    } finally {
      await failing.close();
    }
  });
});

describe('bad input', () => {
  const INVALID_JSON = 'Invalid JSON payload received or JSON payload is empty.';
  const jsonRoutes: [string, string, string][] = [
    ['POST', '/workflows/run', KEYS.workflow],
    ['POST', '/chat-messages', KEYS.chatbot],
    ['POST', '/completion-messages', KEYS.textGenerator],
    ['POST', '/messages/8c9a2f0e-0000-4000-8000-000000000000/feedbacks', KEYS.chatbot],
    ['PUT', '/conversations/8c9a2f0e-0000-4000-8000-000000000000/variables/8c9a2f0e-0000-4000-8000-000000000001', KEYS.chatbot],
    ['POST', '/text-to-audio', KEYS.chatbot],
    ['POST', '/form/human_input/abc', KEYS.workflow],
    ['POST', '/workflows/tasks/abc/stop', KEYS.workflow],
  ];

  test('malformed JSON and non-object bodies get 400 invalid_param', async () => {
    for (const [method, path, key] of jsonRoutes) {
      for (const body of ['{"user": ', 'not json', '']) {
        assertError(await h.raw(method, path, { key, body, headers: { 'Content-Type': 'application/json' } }), 400, 'invalid_param', INVALID_JSON);
      }
      assertError(await h.raw(method, path, { key, json: [1, 2] }), 400, 'invalid_param', 'Input should be a valid dictionary');
    }
  });

  test('oversize bodies get 413 before they are read', async () => {
    const big = JSON.stringify({ user: 'u', inputs: {}, query: 'x'.repeat(1024 * 1024 + 10) });
    for (const [method, path, key] of jsonRoutes.slice(0, 3)) {
      assertError(await h.raw(method, path, { key, body: big, headers: { 'Content-Type': 'application/json' } }), 413, 'request_entity_too_large', 'The data value transmitted exceeds the capacity limit.');
    }
  });

  test('wrong types get 400 with a clear message, never 500', async () => {
    const cases: [string, string, string, unknown, RegExp][] = [
      ['POST', '/workflows/run', KEYS.workflow, { inputs: 'x', user: 'u' }, /WorkflowRunPayload\ninputs\n {2}Input should be a valid dictionary/],
      ['POST', '/workflows/run', KEYS.workflow, { inputs: null, user: 'u' }, /WorkflowRunPayload\ninputs\n {2}Input should be a valid dictionary/],
      ['POST', '/completion-messages', KEYS.textGenerator, { inputs: null, user: 'u' }, /CompletionRequestPayload\ninputs\n {2}Input should be a valid dictionary/],
      ['POST', '/workflows/run', KEYS.workflow, { inputs: {}, user: 0 }, /Arg user must be provided/],
      ['POST', '/workflows/run', KEYS.workflow, { inputs: {}, user: false }, /Arg user must be provided/],
      ['POST', '/workflows/run', KEYS.workflow, { inputs: { scenario: 7 }, user: 'u' }, /^\(type 'select'\) scenario in input form must be a string$/],
      ['POST', '/workflows/run', KEYS.workflow, { inputs: {}, user: 'u', response_mode: 'sometimes' }, /response_mode/],
      ['POST', '/chat-messages', KEYS.chatbot, { inputs: {}, user: 'u', query: ['q'] }, /query\n {2}Input should be a valid string/],
      ['POST', '/chat-messages', KEYS.chatbot, { inputs: [], user: 'u', query: 'q' }, /ChatRequestPayload\ninputs\n {2}Input should be a valid dictionary/],
      ['POST', '/conversations/8c9a2f0e-0000-4000-8000-000000000000/name', KEYS.chatbot, { auto_generate: 'maybe' }, /auto_generate\n {2}Input should be a valid boolean/],
      ['POST', '/chat-messages', KEYS.chatbot, { inputs: {}, user: 'u', query: 'q', auto_generate_name: 'sure' }, /auto_generate_name\n {2}Input should be a valid boolean/],
      ['POST', '/text-to-audio', KEYS.chatbot, { message_id: 5 }, /message_id\n {2}Input should be a valid string/],
      ['POST', '/form/human_input/abc', KEYS.workflow, { inputs: [], action: 'a', user: 'u' }, /inputs\n {2}Input should be a valid dictionary/],
    ];
    for (const [method, path, key, json, message] of cases) assertError(await h.raw(method, path, { key, json }), 400, 'invalid_param', message);
    // An empty query value is present and not an integer (pydantic), not the default.
    assertError(await h.raw('GET', '/conversations?user=u&limit=', { key: KEYS.chatbot }), 400, 'invalid_param', /limit\n {2}Input should be a valid integer/);
    // The real service takes `str(user)` of any truthy value, and lax booleans.
    assert.equal((await h.raw('POST', '/workflows/run', { json: { inputs: {}, user: 42 } })).status, 200);
    assert.equal((await h.raw('POST', '/chat-messages', { key: KEYS.chatbot, json: { inputs: {}, user: 'u', query: 'q', auto_generate_name: 'no' } })).status, 200);
  });

  test('garbage never crashes a route', async () => {
    const bodies = ['{"a":{"b":[{"c":null}]}}', '{"user":{"$gt":""},"inputs":{"x":{"y":1}},"query":null}', '{"value":1e999}', '"just a string"', 'null', '{"inputs":{},"user":"u","files":"nope","conversation_id":123}'];
    const routes = [...jsonRoutes, ['POST', '/conversations/8c9a2f0e-0000-4000-8000-000000000000/name', KEYS.chatbot], ['DELETE', '/conversations/8c9a2f0e-0000-4000-8000-000000000000', KEYS.chatbot]] as [string, string, string][];
    for (const [method, path, key] of routes) {
      for (const body of bodies) {
        const answer = await h.raw(method, path, { key, body, headers: { 'Content-Type': 'application/json' } });
        assert.ok(answer.status >= 200 && answer.status < 500, `${method} ${path} ${body} → ${answer.status} ${JSON.stringify(answer.body)}`);
        if (answer.status >= 400) assertError(answer, answer.status, (answer.body as { code: string }).code);
      }
    }
    const queries = ['limit=-1', 'limit=1e3', 'last_id=%00', 'sort_by[]=x', 'user=&limit=5', 'conversation_id=x'];
    for (const q of queries) {
      for (const path of ['/conversations', '/messages', '/conversations/8c9a2f0e-0000-4000-8000-000000000000/variables']) {
        const answer = await h.raw('GET', `${path}?${q}`, { key: KEYS.chatbot });
        assert.ok(answer.status < 500, `${path}?${q} → ${answer.status}`);
      }
    }
  });

  test('a blocking stop of nothing still succeeds, like the real service', async () => {
    const answer = await h.raw('POST', '/workflows/tasks/no-such-task/stop', { key: KEYS.workflow, json: { user: 'u' } });
    assert.equal(answer.status, 200);
    assert.deepEqual(answer.body, { result: 'success' });
    const first = (await drain(h.client(KEYS.workflow).streamWorkflow({ inputs: {}, user: 'late' }))).find((e) => e.event === 'workflow_started') as RunEventOf<'workflow_started'>;
    assert.ok(first.task_id);
  });
});

describe('stream failures and keep-alives', () => {
  test('a failed Workflow run: the node in progress finishes failed, then workflow_finished(failed) ends the stream; HTTP stays 200', async () => {
    const wf = h.client(KEYS.workflow);
    const paused = live(await drain(wf.streamWorkflow({ inputs: {}, user: 'failing' })));
    const runId = paused[0]!.workflow_run_id!;
    const stream = await openEvents(wf, runId, { user: 'failing', continue_on_pause: true });
    assert.equal((await h.raw('POST', `/_qa/runs/${runId}/fail`, { key: null, json: { message: '[openai] Rate limit reached' } })).status, 200);
    const events = live(await drain(stream));
    // Dify's workflow pipeline sends nothing after a failed `workflow_finished` (no `error`, unlike a Chatflow's).
    assert.deepEqual(events.map((e) => e.event), ['node_finished', 'workflow_finished']);
    const node = events[0] as RunEventOf<'node_finished'>;
    assert.deepEqual([node.data.node_type, node.data.status, node.data.error], ['human-input', 'failed', '[openai] Rate limit reached']);
    assert.equal(node.data.id, (paused.find((e) => e.event === 'node_started' && e.data.node_type === 'human-input') as RunEventOf<'node_started'>).data.id);
    const finished = events[1] as RunEventOf<'workflow_finished'>;
    assert.deepEqual([finished.data.status, finished.data.error], ['failed', '[openai] Rate limit reached']);
    const detail = await wf.getWorkflowRun(runId);
    assert.deepEqual([detail.status, detail.error], ['failed', '[openai] Rate limit reached']);
    const late = await drain(wf.workflowEvents(runId, { user: 'failing' }));
    assert.deepEqual(late.map((e) => e.event), ['workflow_finished']);
    assertError(await h.raw('POST', `/_qa/runs/${runId}/fail`, { key: null, json: {} }), 409, 'run_not_active', 'The run is failed; only a running or paused run can fail.');
  });

  test("a failed Chatflow: workflow_finished(failed), then an error with the chat envelope (no task_id), Dify's invalid_param \"Run failed: …\"", async () => {
    const cf = h.client(KEYS.chatflow);
    const paused = live(await drain(cf.streamChatMessage({ query: 'q', inputs: {}, user: 'failing' })));
    const head = paused[0]!;
    const stream = await openEvents(cf, head.workflow_run_id!, { user: 'failing', continue_on_pause: true });
    await h.raw('POST', `/_qa/runs/${head.workflow_run_id}/fail`, { key: null, json: {} });
    const events = live(await drain(stream));
    assert.deepEqual(events.map((e) => e.event), ['node_finished', 'workflow_finished', 'error']);
    assert.deepEqual(events.at(-1), {
      event: 'error', conversation_id: head.conversation_id, message_id: head.message_id, created_at: head.created_at,
      code: 'invalid_param', status: 400, message: 'Run failed: Completion request failed.',
    });
    const { data } = await cf.listMessages({ conversation_id: head.conversation_id!, user: 'failing' });
    assert.deepEqual([data[0]!.status, data[0]!.error], ['error', 'Run failed: Completion request failed.']);
  });

  test('idle streams get bare `event: ping` keep-alives', async () => {
    const quick = await startApp(undefined, undefined, 50);
    try {
      const wf = quick.client(KEYS.workflow);
      const paused = await drain(wf.streamWorkflow({ inputs: {}, user: 'pinged' }));
      const { url, init } = await wf.prepareWorkflowEvents(live(paused)[0]!.workflow_run_id!, { user: 'pinged', continue_on_pause: true });
      const abort = new AbortController();
      const response = await fetch(url, { ...init, signal: abort.signal });
      const reader = response.body!.getReader();
      let text = '';
      while (!text.includes('event: ping\n\n')) text += new TextDecoder().decode((await reader.read()).value);
      abort.abort();
      assert.match(text, /^event: ping\n\n/);
    } finally {
      await quick.close();
    }
  });
});
