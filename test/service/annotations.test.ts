/**
 * Annotations over loopback (Dify's `controllers/service_api/app/annotation.py`): the list, create,
 * update, delete routes, the annotation-reply jobs, their refusals, and the behaviour they are for:
 * with annotation reply enabled, a chat message whose query matches an annotation's question is
 * answered with the annotation's answer (blocking and streaming) and the hit is counted.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { Annotation, AnnotationReplyRequest, MessageEndEvent, RunEvent } from '../../src/protocol/index.js';
import { assertError, drain, KEYS, live, startApp, UUID, type Harness } from './app-helpers.js';

const REPLY: AnnotationReplyRequest = { score_threshold: 0.9, embedding_provider_name: 'openai', embedding_model_name: 'text-embedding-3-small' };
const OWNER = { id: '88ce5fb8-16f7-463a-8e28-09a8f1e69a5e', name: 'Demo Owner' };
const MISSING = '3f2b8c1e-9a4d-4e7b-8c2a-1d5e6f7a8b9c';

describe('annotations', () => {
  let app: Harness;
  before(async () => {
    app = await startApp();
  });
  after(async () => app?.close());

  test('create (201), list newest first with keyword and paging, update, delete (204)', async () => {
    const key = KEYS.chatbot;
    const created = await app.raw('POST', '/apps/annotations', { key, json: { question: 'What are your opening hours?', answer: 'Nine to five.' } });
    assert.equal(created.status, 201);
    const first = created.body as Annotation;
    assert.deepEqual(Object.keys(first), ['id', 'question', 'answer', 'hit_count', 'created_at']);
    assert.match(first.id, UUID);
    assert.deepEqual([first.question, first.answer, first.hit_count], ['What are your opening hours?', 'Nine to five.', 0]);
    const client = app.client(key);
    const second = await client.createAnnotation({ question: '', answer: '' });
    const listed = await client.listAnnotations();
    assert.deepEqual(Object.keys(listed), ['data', 'has_more', 'limit', 'total', 'page']);
    assert.deepEqual(listed.data.map((a) => a.id), [second.id, first.id]);
    assert.deepEqual([listed.has_more, listed.limit, listed.total, listed.page], [false, 20, 2, 1]);
    // `has_more` is `len(items) == limit`; the limit asked is echoed even past the cap of 100.
    assert.deepEqual(await client.listAnnotations({ limit: 1 }).then((p) => [p.data.length, p.has_more, p.total]), [1, true, 2]);
    assert.deepEqual(await client.listAnnotations({ limit: 1, page: 3 }).then((p) => [p.data, p.has_more, p.page]), [[], false, 3]);
    assert.deepEqual(await client.listAnnotations({ limit: 500 }).then((p) => [p.data.length, p.limit]), [2, 500]);
    assert.deepEqual((await client.listAnnotations({ keyword: 'FIVE' })).data.map((a) => a.id), [first.id], 'in the answer, any case');
    assert.deepEqual((await client.listAnnotations({ keyword: 'opening' })).data.map((a) => a.id), [first.id]);
    assert.equal((await client.listAnnotations({ keyword: '%' })).total, 0, 'a keyword is literal text');
    // Another app sees none of them.
    assert.equal((await app.client(KEYS.agent).listAnnotations()).total, 0);
    const updated = await client.updateAnnotation(first.id.toUpperCase(), { question: 'When are you open?', answer: 'Nine to six.' });
    assert.deepEqual(updated, { ...first, question: 'When are you open?', answer: 'Nine to six.' });
    const deleted = await app.raw('DELETE', `/apps/annotations/${second.id}`, { key });
    assert.deepEqual([deleted.status, deleted.body], [204, undefined]);
    assert.deepEqual((await client.listAnnotations()).data.map((a) => a.id), [first.id]);
    await client.deleteAnnotation(first.id);
    assert.equal((await client.listAnnotations()).total, 0);
  });

  test('refusals: pydantic\'s payload and query errors, an unknown annotation, a segment that is no UUID, no key', async () => {
    const key = KEYS.chatbot;
    assertError(await app.raw('POST', '/apps/annotations', { key, json: {} }), 400, 'invalid_param', '2 validation errors for AnnotationCreatePayload\nquestion\n  Field required\nanswer\n  Field required');
    assertError(await app.raw('POST', '/apps/annotations', { key }), 400, 'invalid_param', /^2 validation errors for AnnotationCreatePayload/);
    assertError(await app.raw('POST', '/apps/annotations', { key, json: { question: null, answer: 42 } }), 400, 'invalid_param', '2 validation errors for AnnotationCreatePayload\nquestion\n  Input should be a valid string\nanswer\n  Input should be a valid string');
    assertError(await app.raw('GET', '/apps/annotations?page=0&limit=abc', { key }), 400, 'invalid_param', '2 validation errors for AnnotationListQuery\npage\n  Input should be greater than or equal to 1\nlimit\n  Input should be a valid integer, unable to parse string as an integer');
    assertError(await app.raw('PUT', `/apps/annotations/${MISSING}`, { key, json: { question: 'q', answer: 'a' } }), 404, 'not_found', 'Annotation not found');
    assertError(await app.raw('PUT', `/apps/annotations/${MISSING}`, { key, json: { question: 'q' } }), 400, 'invalid_param', '1 validation error for AnnotationCreatePayload\nanswer\n  Field required');
    assertError(await app.raw('DELETE', `/apps/annotations/${MISSING}`, { key }), 404, 'not_found', 'Annotation not found');
    const other = await app.client(KEYS.agent).createAnnotation({ question: 'q', answer: 'a' });
    assertError(await app.raw('DELETE', `/apps/annotations/${other.id}`, { key }), 404, 'not_found', 'Annotation not found');
    assertError(await app.raw('DELETE', '/apps/annotations/not-a-uuid', { key }), 404, 'not_found', /^The requested URL was not found/);
    assertError(await app.raw('DELETE', `/apps/annotations/${MISSING.replaceAll('-', '')}`, { key }), 404, 'not_found', /^The requested URL was not found/);
    assertError(await app.raw('PATCH', `/apps/annotations/${MISSING}`, { key, json: {} }), 405, 'method_not_allowed');
    assertError(await app.raw('GET', '/apps/annotations', { key: null }), 401, 'unauthorized');
  });

  test('annotation reply jobs: enable and disable answer `waiting`, then report `completed`; refusals', async () => {
    const client = app.client(KEYS.chatflow);
    const job = await client.setAnnotationReply('enable', REPLY);
    assert.deepEqual(Object.keys(job), ['job_id', 'job_status']);
    assert.match(job.job_id, UUID);
    assert.equal(job.job_status, 'waiting');
    assert.deepEqual(await client.getAnnotationReplyStatus('enable', job.job_id), { job_id: job.job_id, job_status: 'completed', error_msg: '' });
    // Jobs are keyed by action and id.
    assertError(await app.raw('GET', `/apps/annotation-reply/disable/status/${job.job_id}`, { key: KEYS.chatflow }), 400, 'invalid_param', 'The job does not exist.');
    assertError(await app.raw('GET', `/apps/annotation-reply/enable/status/${MISSING}`, { key: KEYS.chatflow }), 400, 'invalid_param', 'The job does not exist.');
    assertError(await app.raw('GET', '/apps/annotation-reply/enable/status/nope', { key: KEYS.chatflow }), 404, 'not_found');
    const off = await client.setAnnotationReply('disable', REPLY);
    assert.equal((await client.getAnnotationReplyStatus('disable', off.job_id)).job_status, 'completed');
    // Disabling what is not enabled: Dify's task returns without reporting, so the job waits.
    const again = await client.setAnnotationReply('disable', REPLY);
    assert.equal((await client.getAnnotationReplyStatus('disable', again.job_id)).job_status, 'waiting');
    // The payload is required for either action, and checked before the action.
    assertError(await app.raw('POST', '/apps/annotation-reply/disable', { key: KEYS.chatflow, json: { score_threshold: 0.5 } }), 400, 'invalid_param', '2 validation errors for AnnotationReplyActionPayload\nembedding_provider_name\n  Field required\nembedding_model_name\n  Field required');
    assertError(await app.raw('POST', '/apps/annotation-reply/enable', { key: KEYS.chatflow, json: { ...REPLY, score_threshold: 'high' } }), 400, 'invalid_param', '1 validation error for AnnotationReplyActionPayload\nscore_threshold\n  Input should be a valid number, unable to parse string as a number');
    assertError(await app.raw('POST', '/apps/annotation-reply/toggle', { key: KEYS.chatflow, json: REPLY }), 400, 'invalid_param', 'Unsupported annotation reply action');
    assert.equal((await app.raw('POST', '/apps/annotation-reply/enable', { key: KEYS.chatflow, json: { ...REPLY, score_threshold: '0.8' } })).status, 200, 'a numeric string is a float');
    await client.setAnnotationReply('disable', REPLY);
  });
});

describe('annotation reply answers chat messages', () => {
  let app: Harness;
  before(async () => {
    app = await startApp();
  });
  after(async () => app?.close());

  async function annotate(key: string, threshold = 0.9): Promise<Annotation> {
    const client = app.client(key);
    const annotation = await client.createAnnotation({ question: 'How do I reset my password?', answer: 'Use the link on the sign-in page.' });
    await client.setAnnotationReply('enable', { ...REPLY, score_threshold: threshold });
    return annotation;
  }
  const hits = async (key: string, id: string) => (await app.client(key).listAnnotations()).data.find((a) => a.id === id)!.hit_count;

  test('Chatbot, blocking: the annotation\'s answer, `metadata.annotation_reply`, no tokens; the hit counted', async () => {
    const annotation = await annotate(KEYS.chatbot);
    const answer = await app.client(KEYS.chatbot).sendChatMessage({ query: '  how do i RESET my password? ', inputs: {}, user: 'ann' });
    assert.equal(answer.answer, 'Use the link on the sign-in page.');
    const metadata = answer.metadata as Record<string, unknown> & { usage: { total_tokens: number } };
    assert.deepEqual(metadata.annotation_reply, { id: annotation.id, account: OWNER });
    assert.deepEqual(metadata.retriever_resources, []);
    assert.equal(metadata.usage.total_tokens, 0);
    assert.equal(await hits(KEYS.chatbot, annotation.id), 1);
    // The message keeps the answer.
    const messages = await app.client(KEYS.chatbot).listMessages({ conversation_id: answer.conversation_id, user: 'ann' });
    assert.equal(messages.data.at(-1)!.answer, 'Use the link on the sign-in page.');
    // A query that does not match gets the app's own answer, and counts nothing.
    const own = await app.client(KEYS.chatbot).sendChatMessage({ query: 'Tell me about pricing', inputs: {}, user: 'ann' });
    assert.notEqual(own.answer, 'Use the link on the sign-in page.');
    assert.equal((own.metadata as Record<string, unknown>).annotation_reply, undefined);
    assert.equal(await hits(KEYS.chatbot, annotation.id), 1);
  });

  test('Agent, streaming: one `message` per character (not `agent_message`), then `message_end` naming the annotation', async () => {
    const annotation = await annotate(KEYS.agent);
    const events = live(await drain(app.client(KEYS.agent).streamChatMessage({ query: 'How do I reset my password?', inputs: {}, user: 'ann' })));
    const messages = events.filter((e) => e.event === 'message') as Extract<RunEvent, { event: 'message' }>[];
    assert.equal(messages.length, 'Use the link on the sign-in page.'.length);
    assert.ok(messages.every((m) => m.answer.length === 1 && typeof m.task_id === 'string' && typeof m.conversation_id === 'string'));
    assert.equal(messages.map((m) => m.answer).join(''), 'Use the link on the sign-in page.');
    assert.deepEqual([...new Set(events.map((e) => e.event))], ['message', 'message_end']);
    const end = events.at(-1) as MessageEndEvent;
    assert.deepEqual(end.metadata.annotation_reply, { id: annotation.id, account: OWNER });
    assert.equal(await hits(KEYS.agent, annotation.id), 1);
  });

  test('Chatflow, streaming and blocking: one `message` with the whole answer, no workflow run, no `annotation_reply` in `message_end`', async () => {
    const annotation = await annotate(KEYS.chatflow);
    const client = app.client(KEYS.chatflow);
    const events = live(await drain(client.streamChatMessage({ query: 'How do I reset my password?', inputs: {}, user: 'ann' })));
    assert.deepEqual(events.map((e) => e.event), ['message', 'message_end']);
    const [message, end] = events as [Extract<RunEvent, { event: 'message' }>, MessageEndEvent];
    assert.equal(message.answer, 'Use the link on the sign-in page.');
    assert.equal('workflow_run_id' in message, false);
    assert.deepEqual(Object.keys(end.metadata).sort(), ['retriever_resources', 'usage']);
    const blocking = await client.sendChatMessage({ query: 'how do I reset my password', inputs: {}, user: 'ann' });
    assert.equal(blocking.answer, 'Use the link on the sign-in page.');
    assert.equal((blocking.metadata as Record<string, unknown>).annotation_reply, undefined);
    assert.equal(await hits(KEYS.chatflow, annotation.id), 2);
  });

  test('the threshold: a loose one matches a related query, 0 is read as 1 (an exact question only); disabled, nothing matches', async () => {
    const client = app.client(KEYS.legacyAgent);
    const annotation = await annotate(KEYS.legacyAgent, 0.5);
    const loose = live(await drain(client.streamChatMessage({ query: 'how can I reset the password', inputs: {}, user: 'ann' })));
    assert.equal((loose.at(-1) as MessageEndEvent).metadata.annotation_reply?.id, annotation.id);
    await client.setAnnotationReply('enable', { ...REPLY, score_threshold: 0 });
    const strict = live(await drain(client.streamChatMessage({ query: 'how can I reset the password', inputs: {}, user: 'ann' })));
    assert.equal((strict.at(-1) as MessageEndEvent).metadata.annotation_reply, undefined);
    const exact = live(await drain(client.streamChatMessage({ query: 'How do I reset my password?', inputs: {}, user: 'ann' })));
    assert.equal((exact.at(-1) as MessageEndEvent).metadata.annotation_reply?.id, annotation.id);
    await client.setAnnotationReply('disable', REPLY);
    const off = live(await drain(client.streamChatMessage({ query: 'How do I reset my password?', inputs: {}, user: 'ann' })));
    assert.equal((off.at(-1) as MessageEndEvent).metadata.annotation_reply, undefined);
    assert.equal(await hits(KEYS.legacyAgent, annotation.id), 2);
  });
  test('a query or a question of one enormous word is scored like any other, not a 500', async () => {
    // One word of 200,000 letters: the tokenizer spread its characters into one call's arguments.
    const word = 'a'.repeat(200_000);
    const key = KEYS.chatbot;
    await annotate(key);
    await app.client(key).createAnnotation({ question: `${word} ${word}?`, answer: 'Long.' });
    for (const query of [word, `How do I reset my password? ${word}`]) {
      const answer = await app.raw('POST', '/chat-messages', { key, json: { query, inputs: {}, user: 'ann', response_mode: 'blocking' } });
      assert.equal(answer.status, 200, JSON.stringify(answer.body).slice(0, 300));
    }
  });
});
