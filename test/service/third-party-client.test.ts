/**
 * A real third-party client of the API, the `dify-client` SDK from npm (axios underneath), driven
 * against the embedded service: what it sends must be understood, and what it reads must be there.
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { ChatClient, CompletionClient, DifyClient } from 'dify-client';
import { KEYS, startApp, UUID, type Harness } from './app-helpers.js';

/** The SDK's own .d.ts lags behind its code for these methods; type them as the code has them. */
type Answer = Promise<{ status: number; data: Record<string, any> }>; // eslint-disable-line @typescript-eslint/no-explicit-any
const rename = (chat: ChatClient, id: string, name: string, user: string) =>
  (chat.renameConversation as unknown as (id: string, name: string, user: string) => Answer).call(chat, id, name, user);
const feedback = (chat: ChatClient, messageId: string, rating: string, user: string) =>
  (chat.messageFeedback as unknown as (id: string, rating: string, user: string) => Answer).call(chat, messageId, rating, user);
const runWorkflow = (client: CompletionClient, inputs: object, user: string) =>
  (client as unknown as { runWorkflow(inputs: object, user: string, stream: boolean): Answer }).runWorkflow(inputs, user, false);

let app: Harness;
const USER = 'sdk-user';

before(async () => {
  app = await startApp();
});
after(() => app.close());

test('chat: blocking and streaming messages, history, conversations, feedback, rename, delete', async () => {
  const chat = new ChatClient(KEYS.chatbot, app.svc.url);
  const first = (await chat.createChatMessage({}, 'Hello there', USER, false, null, null)).data;
  assert.equal(first.event, 'message');
  assert.match(first.conversation_id, UUID);
  assert.ok(first.answer.length > 0);

  const streamed = (await chat.createChatMessage({}, 'And again', USER, true, first.conversation_id, null)).data as AsyncIterable<Buffer>;
  let text = '';
  for await (const chunk of streamed) text += chunk.toString();
  const events = text.split('\n\n').filter((f) => f.startsWith('data: ')).map((f) => JSON.parse(f.slice(6)).event);
  assert.ok(events.includes('message') && events.at(-1) === 'message_end', events.join(','));

  const history = (await chat.getConversationMessages(USER, first.conversation_id)).data;
  assert.equal(history.data.length, 2);
  const listed = (await chat.getConversations(USER)).data;
  assert.ok(listed.data.some((c: { id: string }) => c.id === first.conversation_id));
  assert.deepEqual((await feedback(chat, first.message_id, 'like', USER)).data, { result: 'success' });
  assert.equal((await rename(chat, first.conversation_id, 'From the SDK', USER)).data.name, 'From the SDK');
  assert.equal((await chat.deleteConversation(first.conversation_id, USER)).status, 204);
});

test('parameters, a multipart upload, a completion and a blocking workflow run', async () => {
  const generator = new CompletionClient(KEYS.textGenerator, app.svc.url);
  const params = (await generator.getApplicationParameters(USER)).data;
  assert.ok(Array.isArray(params.user_input_form));
  const completion = (await generator.createCompletionMessage({}, USER, false)).data;
  assert.equal(completion.event, 'message');
  assert.ok(completion.answer.length > 0);

  const form = new FormData();
  form.append('file', new Blob(['hello'], { type: 'text/plain' }), 'notes.txt');
  form.append('user', USER);
  const upload = await new DifyClient(KEYS.chatbot, app.svc.url).fileUpload(form);
  assert.equal(upload.status, 201);
  assert.equal(upload.data.name, 'notes.txt');

  const workflow = (await runWorkflow(new CompletionClient(KEYS.workflow, app.svc.url), {}, USER)).data;
  assert.match(workflow.workflow_run_id, UUID);
  assert.equal(workflow.data.status, 'paused');
});

test("the SDK's errors carry the API's {code, message, status} body", async () => {
  const wrongKey = new ChatClient('app-no-such-key', app.svc.url);
  await assert.rejects(wrongKey.getConversations(USER), (error: { response?: { status: number; data: unknown } }) => {
    assert.equal(error.response?.status, 401);
    assert.deepEqual(error.response?.data, { code: 'unauthorized', message: 'Access token is invalid', status: 401 });
    return true;
  });
});
