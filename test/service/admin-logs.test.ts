/**
 * `GET /workflows/logs` over loopback: Dify's `WorkflowAppLogApi` — the app's Workflow runs,
 * newest first, paged, filtered by keyword, status, dates, end user and account, with its
 * refusals (pydantic's `WorkflowLogQuery`, dateutil's `isoparse`, an unknown account).
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { WorkflowLog } from '../../src/protocol/index.js';
import { assertError, KEYS, startApp, UUID, type Harness, type RawFixture } from './app-helpers.js';

const QUICK = (raw: RawFixture) => {
  // A path through the workflow that ends at once: `scenario: quick`.
  const wf = raw.apps.find((a: { key: string }) => a.key === KEYS.workflow).workflow;
  wf.nodes[0].variables.find((v: { variable: string }) => v.variable === 'scenario').options.push('quick');
  wf.edges.unshift({ source: 'start', target: 'end_published', when: { variable: ['start', 'scenario'], in: ['quick'] } });
};

describe('GET /workflows/logs', () => {
  let app: Harness;
  const ids: Record<string, string> = {};
  let startedAt = 0;
  before(async () => {
    app = await startApp(QUICK);
    const wf = app.client(KEYS.workflow);
    startedAt = Date.now();
    ids.succeeded = (await wf.runWorkflow({ inputs: { scenario: 'quick', topic: 'Zebra crossing' }, user: 'alice' })).workflow_run_id;
    const paused = await wf.runWorkflow({ inputs: { topic: 'otters' }, user: 'bob' });
    ids.paused = paused.workflow_run_id;
    const stopped = await wf.runWorkflow({ inputs: {}, user: 'carol' });
    ids.stopped = stopped.workflow_run_id;
    await wf.stopWorkflow(stopped.task_id, 'carol');
    // A Chatflow's runs write no log.
    await app.client(KEYS.chatflow).sendChatMessage({ query: 'hi', inputs: {}, user: 'alice' });
  });
  after(async () => app?.close());

  const logs = (query = '', key: string = KEYS.workflow) => app.raw('GET', `/workflows/logs${query}`, { key });
  const runIds = (body: unknown) => (body as { data: WorkflowLog[] }).data.map((l) => l.workflow_run!.id);

  test('lists the app\'s runs newest first, in Dify\'s fields', async () => {
    const answer = await logs();
    assert.equal(answer.status, 200);
    const body = answer.body as { page: number; limit: number; total: number; has_more: boolean; data: WorkflowLog[] };
    assert.deepEqual(Object.keys(body), ['page', 'limit', 'total', 'has_more', 'data']);
    assert.deepEqual([body.page, body.limit, body.total, body.has_more], [1, 20, 3, false]);
    assert.deepEqual(runIds(body), [ids.stopped, ids.paused, ids.succeeded]);
    const entry = body.data[2]!;
    assert.deepEqual(Object.keys(entry), ['id', 'workflow_run', 'details', 'created_from', 'created_by_role', 'created_by_account', 'created_by_end_user', 'created_at']);
    assert.match(entry.id, UUID);
    assert.notEqual(entry.id, ids.succeeded);
    assert.deepEqual(Object.keys(entry.workflow_run!), ['id', 'version', 'status', 'triggered_from', 'error', 'elapsed_time', 'total_tokens', 'total_steps', 'created_at', 'finished_at', 'exceptions_count']);
    assert.equal(entry.workflow_run!.status, 'succeeded');
    assert.equal(entry.workflow_run!.triggered_from, 'app-run');
    assert.match(entry.workflow_run!.version, /^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d\.\d{6}$/);
    assert.equal(typeof entry.workflow_run!.finished_at, 'number');
    assert.deepEqual([entry.details, entry.created_from, entry.created_by_role, entry.created_by_account], [null, 'service-api', 'end_user', null]);
    assert.deepEqual(Object.keys(entry.created_by_end_user!), ['id', 'type', 'is_anonymous', 'session_id']);
    assert.deepEqual({ ...entry.created_by_end_user!, id: '' }, { id: '', type: 'service_api', is_anonymous: false, session_id: 'alice' });
    assert.equal(entry.created_at, entry.workflow_run!.created_at);
    const [stopped, paused] = body.data;
    assert.deepEqual([stopped!.workflow_run!.status, stopped!.workflow_run!.error], ['stopped', 'Workflow execution stopped by user.']);
    assert.deepEqual([paused!.workflow_run!.status, paused!.workflow_run!.finished_at], ['paused', null]);
    // The same log id on every listing.
    assert.equal((await app.client(KEYS.workflow).listWorkflowLogs()).data[2]!.id, entry.id);
  });

  test('a Chatflow\'s runs write no log, and another app\'s list holds none of these', async () => {
    assert.deepEqual((await logs('', KEYS.chatflow)).body, { page: 1, limit: 20, total: 0, has_more: false, data: [] });
    assert.equal((await logs('', KEYS.chatbot)).status, 200);
  });

  test('pages: total counts all, has_more while more follow', async () => {
    const first = (await logs('?limit=2')).body as { total: number; has_more: boolean };
    assert.deepEqual([first.total, first.has_more, runIds(first)], [3, true, [ids.stopped, ids.paused]]);
    const second = (await logs('?limit=2&page=2')).body as { total: number; has_more: boolean; page: number };
    assert.deepEqual([second.page, second.has_more, runIds(second)], [2, false, [ids.succeeded]]);
    assert.deepEqual(runIds((await logs('?limit=2&page=9')).body), []);
  });

  test('filters: status, keyword (inputs, outputs, user, run id), end user, dates', async () => {
    assert.deepEqual(runIds((await logs('?status=succeeded')).body), [ids.succeeded]);
    assert.deepEqual(runIds((await logs('?status=stopped')).body), [ids.stopped]);
    assert.deepEqual(runIds((await logs('?keyword=zebra')).body), [ids.succeeded], 'in the inputs, any case');
    assert.deepEqual(runIds((await logs('?keyword=OTTER')).body), [ids.paused]);
    assert.deepEqual(runIds((await logs('?keyword=caro')).body), [ids.stopped], 'the end user\'s session id');
    assert.deepEqual(runIds((await logs(`?keyword=${ids.paused!.replaceAll('-', '').toUpperCase()}`)).body), [ids.paused], 'a run id');
    assert.deepEqual(runIds((await logs('?keyword=nothing-like-this')).body), []);
    assert.deepEqual(runIds((await logs('?created_by_end_user_session_id=bob')).body), [ids.paused]);
    assert.deepEqual(runIds((await logs('?created_by_end_user_session_id=nobody')).body), []);
    const iso = (ms: number) => new Date(ms).toISOString();
    assert.equal(runIds((await logs(`?created_at__after=${iso(startedAt - 60_000)}`)).body).length, 3);
    assert.deepEqual(runIds((await logs(`?created_at__before=${iso(startedAt - 60_000)}`)).body), []);
    assert.deepEqual(runIds((await logs('?created_at__after=2999-01-01')).body), [], 'a naive date, read as UTC');
    assert.equal(runIds((await logs('?created_at__before=2999-01-01T00:00:00%2B08:00&created_at__after=')).body).length, 3, 'an empty date is no filter');
    // The owner's email is an account; no run here was started by one.
    assert.deepEqual(runIds((await logs('?created_by_account=owner@example.com')).body), []);
  });

  test('a keyword of thousands of braces is searched as fast as any other (uuid.UUID strips them; a regex that did took seconds)', async () => {
    // As long as the server takes in a request line, and every run is searched with it.
    const timed = async (keyword: string) => {
      const started = performance.now();
      const answer = await logs(`?keyword=${keyword}`);
      assert.equal(answer.status, 200);
      assert.deepEqual(runIds(answer.body), []);
      return performance.now() - started;
    };
    const plain = await timed('x'.repeat(14_002));
    const braces = await timed(`x${'{'.repeat(14_000)}x`);
    assert.ok(braces < 3 * plain + 100, `${Math.round(braces)} ms against ${Math.round(plain)} ms`);
  });

  test('refusals: pydantic\'s for status, page and limit; dateutil\'s for dates; an unknown account', async () => {
    assertError(await logs('?status=running'), 400, 'invalid_param', "1 validation error for WorkflowLogQuery\nstatus\n  Input should be 'succeeded', 'failed' or 'stopped'");
    assertError(await logs('?status='), 400, 'invalid_param', /^1 validation error for WorkflowLogQuery\nstatus\n/);
    assertError(await logs('?limit=101&page=0'), 400, 'invalid_param', '2 validation errors for WorkflowLogQuery\npage\n  Input should be greater than or equal to 1\nlimit\n  Input should be less than or equal to 100');
    assertError(await logs('?page=1.5'), 400, 'invalid_param', '1 validation error for WorkflowLogQuery\npage\n  Input should be a valid integer, unable to parse string as an integer');
    assertError(await logs('?created_at__before=yesterday'), 400, 'invalid_param', "invalid literal for int() with base 10: b'yest'");
    assertError(await logs('?created_at__after=abc'), 400, 'invalid_param', 'ISO string too short');
    assertError(await logs('?created_at__after=2024-13-01'), 400, 'invalid_param', 'month must be in 1..12');
    assertError(await logs('?created_at__after=2024-02-30'), 400, 'invalid_param', 'day is out of range for month');
    assertError(await logs('?created_at__after=2024-01-01T25:00'), 400, 'invalid_param', 'hour must be in 0..23');
    assertError(await logs('?created_at__after=2024-01-01T10:00:00%2B8'), 400, 'invalid_param', 'Time zone offset must be 1, 3, 5 or 6 characters');
    assertError(await logs('?created_at__after=2024-01-01T10:00:00abc'), 400, 'invalid_param', 'Unused components in ISO string');
    assertError(await logs('?created_by_account=someone@example.com'), 400, 'invalid_param', 'Account not found: someone@example.com');
    assertError(await app.raw('GET', '/workflows/logs', { key: null }), 401, 'unauthorized');
    assertError(await app.raw('POST', '/workflows/logs', { json: {} }), 405, 'method_not_allowed');
  });
});

describe('GET /workflows/logs under retention', () => {
  test('a forgotten finished run leaves the logs with it', async () => {
    const { startService, parseFixture } = await import('../../src/service/index.js');
    const { defaultFixture } = await import('./app-helpers.js');
    const raw = defaultFixture();
    QUICK(raw);
    const svc = await startService({ fixture: parseFixture(raw), port: 0, retention: { finishedRuns: 2 } });
    try {
      const client = (await import('../../src/client/index.js')).AppClient;
      const wf = new client({ baseUrl: svc.url, credential: KEYS.workflow });
      const runs = [];
      for (let i = 0; i < 3; i++) runs.push((await wf.runWorkflow({ inputs: { scenario: 'quick' }, user: 'u' })).workflow_run_id);
      const listed = await wf.listWorkflowLogs();
      assert.equal(listed.total, 2);
      assert.deepEqual(listed.data.map((l) => l.workflow_run!.id), [runs[2], runs[1]]);
    } finally {
      await svc.close();
    }
  });
});
