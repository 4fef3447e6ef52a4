/**
 * Retention: the service keeps the newest finished runs, replies and conversations up to its
 * limits and forgets older ones (with their forms and messages), while running and paused runs,
 * their forms and recent conversations keep working.
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { withoutStreamDelays } from '../../src/service/fixture.js';
import { parseFixture, startService, type RunningService } from '../../src/service/index.js';
import { defaultFixture, KEYS } from './app-helpers.js';

let svc: RunningService;

before(async () => {
  svc = await startService({ fixture: parseFixture(withoutStreamDelays(defaultFixture())), port: 0, retention: { finishedRuns: 3, conversations: 4 } });
});

after(async () => {
  await svc?.close();
});

async function call(method: string, path: string, key: string, json?: unknown): Promise<{ status: number; body: any }> {
  const response = await fetch(`${svc.url}${path}`, {
    method,
    headers: { Authorization: `Bearer ${key}`, ...(json === undefined ? {} : { 'Content-Type': 'application/json' }) },
    body: json === undefined ? undefined : JSON.stringify(json),
  });
  const text = await response.text();
  return { status: response.status, body: text ? JSON.parse(text) : undefined };
}

test('finished runs past the limit are forgotten with their forms; a paused run and its form are kept', async () => {
  // A QA run paused at a form, as the demo leaves one for a person to answer.
  const paused = await call('POST', '/workflows/run', KEYS.workflow, { inputs: {}, response_mode: 'blocking', user: 'qa' });
  assert.equal(paused.status, 200, JSON.stringify(paused.body));
  const pausedId: string = paused.body.workflow_run_id;
  // Runs that pause and are then stopped: finished, each with a form.
  const stopped: { id: string; token: string }[] = [];
  for (let i = 0; i < 5; i++) {
    const run = await call('POST', '/workflows/run', KEYS.workflow, { inputs: {}, response_mode: 'blocking', user: 'qa' });
    const form = svc.service.engine.forms.byId(svc.service.engine.runs.get(run.body.workflow_run_id)!.pausedOn!)!;
    assert.equal((await call('POST', `/workflows/tasks/${run.body.task_id}/stop`, KEYS.workflow, { user: 'qa' })).status, 200);
    await new Promise((resolve) => setTimeout(resolve, 20));
    stopped.push({ id: run.body.workflow_run_id, token: form.token! });
  }
  // The newest three finished runs are kept, the two oldest (and their forms) are gone.
  for (const [i, run] of stopped.entries()) {
    const detail = await call('GET', `/workflows/run/${run.id}`, KEYS.workflow);
    const form = await call('GET', `/form/human_input/${run.token}`, KEYS.workflow);
    if (i < 2) {
      assert.equal(detail.status, 404, `run ${i}`);
      assert.equal(form.status, 404, `form ${i}`);
    } else {
      assert.equal(detail.status, 200, `run ${i}`);
      assert.equal(detail.body.status, 'stopped');
      assert.equal(form.status, 412, `form ${i}`);
    }
  }
  // The paused run outlived them all, and its form still takes an answer.
  const run = svc.service.engine.runs.get(pausedId);
  assert.ok(run, 'the paused run is kept');
  const token = svc.service.engine.forms.byId(run.pausedOn!)!.token!;
  const definition = await call('GET', `/form/human_input/${token}`, KEYS.workflow);
  assert.equal(definition.status, 200);
  const submitted = await call('POST', `/form/human_input/${token}`, KEYS.workflow, { inputs: { comments: 'ok' }, action: 'approve', user: 'qa' });
  assert.equal(submitted.status, 200, JSON.stringify(submitted.body));
});

test('conversations past the limit are forgotten, least recently active first, with their messages', async () => {
  const ids: string[] = [];
  const messages: string[] = [];
  for (let i = 0; i < 6; i++) {
    const answer = await call('POST', '/chat-messages', KEYS.chatbot, { inputs: {}, query: `q${i}`, user: 'sam', response_mode: 'blocking' });
    assert.equal(answer.status, 200, JSON.stringify(answer.body));
    ids.push(answer.body.conversation_id);
    messages.push(answer.body.message_id);
    if (i === 3) {
      // The first conversation is used again, so it is no longer the least recently active.
      assert.equal((await call('POST', '/chat-messages', KEYS.chatbot, { inputs: {}, query: 'again', user: 'sam', response_mode: 'blocking', conversation_id: ids[0] })).status, 200);
    }
  }
  const listed = await call('GET', '/conversations?user=sam&limit=100', KEYS.chatbot);
  // Four kept: the newest three and the first one, used again after the fourth was made.
  assert.deepEqual(new Set(listed.body.data.map((c: { id: string }) => c.id)), new Set([ids[0], ids[3], ids[4], ids[5]]));
  assert.equal((await call('GET', `/messages?user=sam&conversation_id=${ids[1]}`, KEYS.chatbot)).status, 404);
  assert.equal((await call('POST', `/messages/${messages[1]}/feedbacks`, KEYS.chatbot, { rating: 'like', user: 'sam' })).status, 404);
  assert.equal((await call('GET', `/messages?user=sam&conversation_id=${ids[5]}`, KEYS.chatbot)).status, 200);
  assert.equal(svc.service.context.conversations.size, 4);
});
