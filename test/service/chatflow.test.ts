/**
 * Chatflow: answer nodes stream into the conversation, human input pauses the chat message, the
 * resumed run finishes the answer, and the message history shows the form (`extra_contents`).
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { AppClient } from '../../src/client/index.js';
import type { ChatPausedBlockingResponse, RunEvent, RunEventOf } from '../../src/protocol/index.js';
import { drain, find, KEYS, live, openEvents, outline, rejects, startApp, type Harness } from './app-helpers.js';

let h: Harness;
let cf: AppClient;
before(async () => {
  h = await startApp();
  cf = h.client(KEYS.chatflow);
});
after(() => h.close());

const answerOf = (events: RunEvent[]) => events.filter((e): e is RunEventOf<'message'> => e.event === 'message').map((e) => e.answer).join('');

describe('a Chatflow message that needs approval', () => {
  const user = 'rosa';
  let events: RunEvent[];
  before(async () => {
    events = await drain(cf.streamChatMessage({ query: 'Where is my order?', inputs: {}, user }));
  });

  test('streams the draft as messages, then pauses with the chat envelope', () => {
    assert.deepEqual(outline(events), [
      'workflow_started', 'node_started:start', 'node_finished:start', 'node_started:draft_reply', 'node_finished:draft_reply',
      'node_started:draft_answer', 'message', 'node_finished:draft_answer', 'node_started:approve_reply', 'human_input_required', 'workflow_paused',
    ]);
    const started = find(events, 'workflow_started');
    assert.deepEqual(Object.keys(started), ['event', 'conversation_id', 'message_id', 'created_at', 'task_id', 'workflow_run_id', 'data']);
    // The chat's system variables are among the inputs, all but the conversation's id; the start node outputs that too.
    const inputs = started.data.inputs as Record<string, unknown>;
    assert.deepEqual([inputs.scenario, inputs['sys.query'], inputs['sys.dialogue_count'], inputs['sys.user_id']], ['review', 'Where is my order?', 1, user]);
    assert.equal('sys.conversation_id' in inputs, false);
    const startOutputs = (events.find((e) => e.event === 'node_finished' && e.data.node_id === 'start') as { data: { outputs: Record<string, unknown> } }).data.outputs;
    assert.equal(startOutputs['sys.conversation_id'], started.conversation_id);
    const message = find(events, 'message');
    // Message events carry no workflow_run_id.
    assert.deepEqual(Object.keys(message), ['event', 'conversation_id', 'message_id', 'created_at', 'task_id', 'id', 'answer', 'from_variable_selector']);
    for (const e of live(events)) assert.equal(e.message_id, message.message_id);
    assert.match(answerOf(events), /^Here is a draft answer to “Where is my order\?”: Your order for Ada Lovelace left our warehouse/);
    const required = find(events, 'human_input_required');
    assert.deepEqual(required.data.resolved_default_values, { wording: 'Your order for Ada Lovelace left our warehouse yesterday and should arrive within two days.' });
  });

  test('the history shows the open form as an extra content; submitting finishes the answer', async () => {
    const required = find(events, 'human_input_required');
    const conversationId = required.conversation_id!;
    let [message] = (await cf.listMessages({ conversation_id: conversationId, user })).data;
    assert.equal(message!.extra_contents.length, 1);
    const extra = message!.extra_contents[0]!;
    assert.equal(extra.type, 'human_input');
    assert.equal(extra.submitted, false);
    assert.equal(extra.workflow_run_id, required.workflow_run_id);
    assert.equal(extra.form_definition.form_token, required.data.form_token);
    assert.equal(extra.form_submission_data, null);

    // Dify's default terminal events end `/events` at `workflow_finished`, before the message's end;
    // with `continue_on_pause` it goes on to the run's last event.
    const stream = await openEvents(cf, required.workflow_run_id!, { user });
    const whole = await openEvents(cf, required.workflow_run_id!, { user, continue_on_pause: true });
    await cf.submitForm(required.data.form_token!, { inputs: { tone: 'formal', wording: 'It arrives Friday.' }, action: 'send', user });
    const resumed = await drain(stream);
    const body = [
      'workflow_started', 'node_started:approve_reply', 'human_input_form_filled', 'node_finished:approve_reply',
      'node_started:sent_answer', 'message', 'node_finished:sent_answer', 'workflow_finished',
    ];
    assert.deepEqual(outline(resumed), body);
    const all = await drain(whole);
    // Dify's advanced-chat pipeline publishes the message's end after it has sent `workflow_finished`.
    assert.deepEqual(outline(all), [...body, 'message_end']);
    const end = find(all, 'message_end');
    assert.equal(end.id, required.message_id);
    assert.ok(!('workflow_run_id' in end));
    assert.equal(answerOf(resumed), 'Sent (formal): It arrives Friday.');
    const finished = find(resumed, 'workflow_finished');
    assert.equal(finished.conversation_id, conversationId);
    // The message's usage is what the run's LLM nodes used (Dify's `graph_runtime_state.llm_usage`), as its total_tokens counts.
    assert.ok(finished.data.total_tokens > 0);
    assert.deepEqual([end.metadata.usage.prompt_tokens, end.metadata.usage.total_tokens], [0, finished.data.total_tokens]);

    [message] = (await cf.listMessages({ conversation_id: conversationId, user })).data;
    assert.equal(message!.answer, answerOf(events) + 'Sent (formal): It arrives Friday.');
    assert.equal(message!.extra_contents[0]!.submitted, true);
    assert.equal(message!.extra_contents[0]!.form_submission_data!.action_id, 'send');
    assert.deepEqual(finished.data.outputs, { answer: message!.answer });
  });

  test('a reopened stream replays the answer so far (message_replace) with the conversation fields', async () => {
    const paused = await drain(cf.streamChatMessage({ query: 'Second question', inputs: {}, user }));
    const required = find(paused, 'human_input_required');
    const replay = await drain(cf.workflowEvents(required.workflow_run_id!, { user, include_state_snapshot: true }));
    const replace = find(replay, 'message_replace');
    assert.equal(replace.answer, answerOf(paused));
    assert.equal(replace.conversation_id, required.conversation_id);
    assert.equal(find(replay, 'workflow_started').message_id, required.message_id);
    assert.equal(replay.at(-1)!.event, 'workflow_paused');
  });
});

describe('Chatflow scenarios', () => {
  test('blocking mode answers the paused body', async () => {
    const body = (await cf.sendChatMessage({ query: 'Blocked?', inputs: {}, user: 'sol' })) as ChatPausedBlockingResponse;
    assert.equal(body.event, 'workflow_paused');
    assert.equal(body.status, 'paused');
    assert.equal(body.mode, 'advanced-chat');
    assert.deepEqual(body.paused_nodes, ['approve_reply']);
    assert.equal(body.reasons[0]!.TYPE, 'human_input_required');
    assert.match(body.answer, /^Here is a draft answer/);
    assert.ok(body.conversation_id && body.workflow_run_id && body.message_id);
  });

  test('chat answers at once; the conversation variables feed the answer', async () => {
    const body = await cf.sendChatMessage({ query: 'Quick one', inputs: { scenario: 'chat' }, user: 'sol' });
    assert.equal(body.event, 'message');
    // No LLM node ran: no usage (Dify's `LLMUsage.empty_usage()`), however long the query.
    assert.deepEqual([body.metadata.usage.prompt_tokens, body.metadata.usage.completion_tokens, body.metadata.usage.total_tokens], [0, 0, 0]);
    assert.equal(body.answer, 'You asked: “Quick one”. Ada Lovelace, your order left our warehouse yesterday.');
    // The conversation keeps its inputs; the next message runs the same scenario.
    const next = await cf.sendChatMessage({ query: 'Again', inputs: {}, user: 'sol', conversation_id: body.conversation_id });
    assert.equal(next.event, 'message');
    await rejects(cf.sendChatMessage({ query: 'x', inputs: { scenario: 'nope' }, user: 'sol' }), 400, 'invalid_param', "scenario in input form must be one of the following: ['review', 'full', 'chat']");
  });

  test('full: the form of every input type, the timeout branch, and two consecutive forms', async () => {
    const events = await drain(cf.streamChatMessage({ query: 'Refund please', inputs: { scenario: 'full' }, user: 'tia' }));
    const required = find(events, 'human_input_required');
    assert.equal(required.data.node_id, 'ticket');
    assert.deepEqual(required.data.inputs.map((i) => i.type), ['paragraph', 'paragraph', 'select', 'file', 'file', 'file-list']);
    assert.deepEqual(required.data.actions.map((a) => a.button_style), ['primary', 'default', 'accent', 'ghost']);
    const stream = await openEvents(cf, required.workflow_run_id!, { user: 'tia' });
    await h.raw('POST', `/_qa/forms/${required.data.form_token}/expire`, { key: null });
    const resumed = await drain(stream);
    assert.ok(outline(resumed).includes('human_input_form_timeout'));
    assert.equal(answerOf(resumed), 'Nobody filled in the ticket in time.');
    assert.equal(resumed.at(-1)!.event, 'workflow_finished');
  });

  test('stop ends a paused Chatflow with message_end and workflow_finished(stopped)', async () => {
    const events = await drain(cf.streamChatMessage({ query: 'Stop me', inputs: {}, user: 'uma' }));
    const required = find(events, 'human_input_required');
    const stream = await openEvents(cf, required.workflow_run_id!, { user: 'uma', continue_on_pause: true });
    await cf.stopChatMessage(required.task_id!, 'uma');
    const rest = await drain(stream);
    assert.deepEqual(outline(rest), ['workflow_finished', 'message_end']);
    assert.equal(find(rest, 'workflow_finished').data.status, 'stopped');
  });
});

describe('files sent with a message or a run', () => {
  const user = 'fenna';
  const png = () => new Blob([new Uint8Array([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a])], { type: 'image/png' });

  test('a Chatflow message keeps its files as the user’s message_files', async () => {
    const upload = await cf.uploadFile(png(), 'photo.png', user);
    const events = await drain(cf.streamChatMessage({ query: 'See attached', inputs: {}, user, files: [{ type: 'image', transfer_method: 'local_file', upload_file_id: upload.id }] }));
    const conversation = find(events, 'workflow_started').conversation_id!;
    const [message] = (await cf.listMessages({ conversation_id: conversation, user })).data;
    assert.equal(message!.message_files.length, 1);
    const file = message!.message_files[0]!;
    assert.deepEqual({ ...file, id: '', url: '' }, {
      id: '', filename: 'photo.png', type: 'image', url: '', mime_type: 'image/png', size: 8, transfer_method: 'local_file', belongs_to: 'user', upload_file_id: upload.id,
    });
    assert.equal((await fetch(file.url)).status, 200, 'the url is the upload’s signed preview');
  });

  test('refused files leave nothing behind; apps without file upload ignore them', async () => {
    const theirs = await cf.uploadFile(png(), 'theirs.png', 'someone-else');
    const audio = await cf.uploadFile(new Blob(['ID3'], { type: 'audio/mpeg' }), 'voice.mp3', user);
    const mine = await cf.uploadFile(png(), 'mine.png', user);
    const local = (id: string) => ({ type: 'image' as const, transfer_method: 'local_file' as const, upload_file_id: id });
    const send = (files: unknown) => cf.sendChatMessage({ query: 'x', inputs: {}, user, files: files as never });
    const before = (await cf.listConversations({ user, limit: 100 })).data.length;
    await rejects(send([local(theirs.id)]), 400, 'invalid_param', 'Invalid upload file');
    await rejects(send([{ type: 'audio', transfer_method: 'local_file', upload_file_id: audio.id }]), 400, 'invalid_param', 'File validation failed for file: voice.mp3');
    await rejects(send([local(mine.id), local(mine.id), local(mine.id), local(mine.id)]), 400, 'invalid_param', 'Number of files exceeds the maximum limit 3');
    await rejects(send('nope'), 400, 'invalid_param', /files\n {2}Input should be a valid list/);
    assert.equal((await cf.listConversations({ user, limit: 100 })).data.length, before, 'no conversation was started');

    const bot = h.client(KEYS.chatbot);
    const answer = await bot.sendChatMessage({ query: 'x', inputs: {}, user, files: [local(mine.id)] });
    const [message] = (await bot.listMessages({ conversation_id: answer.conversation_id, user })).data;
    assert.deepEqual(message!.message_files, []);
  });

  test('a workflow run checks its files the same way', async () => {
    const wf = h.client(KEYS.workflow);
    const mine = await wf.uploadFile(png(), 'mine.png', user);
    await rejects(wf.runWorkflow({ inputs: {}, user, files: [{ type: 'image', transfer_method: 'local_file', upload_file_id: '8c9a2f0e-0000-4000-8000-000000000000' }] }), 400, 'invalid_param', 'Invalid upload file');
    const body = await wf.runWorkflow({ inputs: {}, user, files: [{ type: 'image', transfer_method: 'local_file', upload_file_id: mine.id }] });
    assert.equal(body.data.status, 'paused');
  });
});

describe('a select whose options come from a conversation variable', () => {
  const user = 'ines';
  let live: Harness;
  let client: AppClient;
  before(async () => {
    live = await startApp((raw) => {
      const app = raw.apps.find((a: { key: string }) => a.key === KEYS.chatflow);
      const node = app.workflow.nodes.find((n: { id: string }) => n.id === 'approve_reply');
      node.inputs[0].option_source = { type: 'variable', selector: ['conversation', 'tags'], value: [] };
    });
    client = live.client(KEYS.chatflow);
  });
  after(() => live.close());

  test("the run's event carries the node's config; the form's GET reads the variable's values when asked", async () => {
    const events = await drain(client.streamChatMessage({ query: 'Where is my order?', inputs: {}, user }));
    const required = find(events, 'human_input_required');
    // As real Dify's: the event (and the paused body) carry the node's input config as it is.
    assert.deepEqual(required.data.inputs[0], { type: 'select', output_variable_name: 'tone', option_source: { type: 'variable', selector: ['conversation', 'tags'], value: [] } });
    const token = required.data.form_token!;
    const select = (await client.getForm(token)).inputs[0]!;
    assert.ok(select.type === 'select');
    assert.deepEqual(select.option_source.value, ['beta', 'priority']);

    // The variable changes while the form waits: the GET follows it.
    const conversationId = required.conversation_id!;
    const tags = (await client.listConversationVariables(conversationId, { user })).data.find((v) => v.name === 'tags')!;
    await client.updateConversationVariable(conversationId, tags.id, { value: ['gamma'], user });
    const again = (await client.getForm(token)).inputs[0]!;
    assert.ok(again.type === 'select');
    assert.deepEqual(again.option_source.value, ['gamma']);
    // Like the real service, a submission checks a select's value only against constant options.
    assert.deepEqual(await client.submitForm(token, { inputs: { tone: 'gamma', wording: 'Soon.' }, action: 'send', user }), {});
  });
});
