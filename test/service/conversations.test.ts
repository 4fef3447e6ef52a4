/**
 * Chat and completion messages, conversations, conversation variables, message history and the
 * feedback state table, through AppClient against the default fixture.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { AppClient } from '../../src/client/index.js';
import type { ChatBlockingResponse, RunEventOf } from '../../src/protocol/index.js';
import { assertError, drain, find, KEYS, live, outline, rejects, startApp, UUID, type Harness } from './app-helpers.js';

let h: Harness;
let bot: AppClient;
before(async () => {
  h = await startApp();
  bot = h.client(KEYS.chatbot);
});
after(() => h.close());

const ask = (client: AppClient, user: string, query: string, conversationId?: string) =>
  client.sendChatMessage({ query, inputs: {}, user, ...(conversationId ? { conversation_id: conversationId } : {}) }) as Promise<ChatBlockingResponse>;

describe('chat messages', () => {
  test('a Chatbot streams message chunks with the chat envelope, then message_end', async () => {
    const events = await drain(bot.streamChatMessage({ query: 'Are you open on Sunday?', inputs: {}, user: 'sam' }));
    assert.deepEqual(outline(events), ['message', 'message_end']);
    const first = find(events, 'message');
    assert.deepEqual(Object.keys(first), ['event', 'conversation_id', 'message_id', 'created_at', 'task_id', 'id', 'answer']);
    assert.match(first.conversation_id!, UUID);
    assert.equal(first.id, first.message_id);
    for (const e of live(events)) {
      assert.equal(e.conversation_id, first.conversation_id);
      assert.equal(e.message_id, first.message_id);
      assert.equal(e.task_id, first.task_id);
    }
    const answer = events.filter((e): e is RunEventOf<'message'> => e.event === 'message').map((e) => e.answer).join('');
    assert.equal(answer, 'Thanks, Ada Lovelace! You asked: “Are you open on Sunday?”. The store is open from 9 to 6, Monday to Saturday.');
    const end = find(events, 'message_end');
    assert.equal(end.id, first.message_id);
    assert.equal(end.metadata.usage.total_tokens, end.metadata.usage.prompt_tokens + end.metadata.usage.completion_tokens);
    assert.deepEqual(end.metadata.retriever_resources, []);
  });

  test('blocking mode answers the whole message; a follow-up joins the conversation', async () => {
    const first = await ask(bot, 'sam', 'Hello');
    assert.deepEqual(Object.keys(first), ['event', 'task_id', 'id', 'message_id', 'conversation_id', 'mode', 'answer', 'metadata', 'created_at']);
    assert.equal(first.event, 'message');
    assert.equal(first.mode, 'chat');
    assert.match(first.answer, /You asked: “Hello”/);
    const second = await ask(bot, 'sam', 'And on Saturday?', first.conversation_id);
    assert.equal(second.conversation_id, first.conversation_id);
    const { data } = await bot.listMessages({ conversation_id: first.conversation_id, user: 'sam' });
    assert.deepEqual(data.map((m) => m.query), ['Hello', 'And on Saturday?']);
    assert.equal(data[1]!.parent_message_id, data[0]!.id);
  });

  test('a conversation is the user’s own; bad ids and missing fields are refused', async () => {
    const mine = await ask(bot, 'sam', 'Mine');
    await rejects(ask(bot, 'other', 'Theirs?', mine.conversation_id), 404, 'not_found', 'Conversation Not Exists.');
    await rejects(ask(bot, 'sam', 'x', '8c9a2f0e-0000-4000-8000-000000000000'), 404, 'not_found', 'Conversation Not Exists.');
    assertError(await h.raw('POST', '/chat-messages', { key: KEYS.chatbot, json: { inputs: {}, user: 'sam', query: 'q', conversation_id: 'nope' } }), 400, 'invalid_param', /conversation_id\n {2}Input should be a valid UUID/);
    assertError(await h.raw('POST', '/chat-messages', { key: KEYS.chatbot, json: { inputs: {}, user: 'sam' } }), 400, 'invalid_param', /query\n {2}Field required/);
    // `inputs` is required on every message, not only on the first of a conversation.
    assertError(await h.raw('POST', '/chat-messages', { key: KEYS.chatbot, json: { user: 'sam', query: 'q', conversation_id: mine.conversation_id } }), 400, 'invalid_param', /inputs\n {2}Field required/);
    assertError(await h.raw('POST', '/chat-messages', { key: KEYS.chatbot, json: { inputs: {}, query: 'q' } }), 400, 'invalid_param', 'Arg user must be provided.');
    assertError(await h.raw('POST', '/chat-messages', { key: KEYS.chatbot, json: { inputs: {}, query: 'q', user: 'sam', response_mode: 'fast' } }), 400, 'invalid_param', /response_mode/);
  });

  test('agents report their tool calls as agent_thought and answer in agent_message; they only stream', async () => {
    for (const key of [KEYS.agent, KEYS.legacyAgent]) {
      const events = await drain(h.client(key).streamChatMessage({ query: 'Plan a weekend in Lisbon', inputs: {}, user: 'sam' }));
      const names = outline(events);
      assert.equal(names.at(-1), 'message_end');
      assert.ok(names.includes('agent_message'));
      const sent = events.filter((e): e is RunEventOf<'agent_thought'> => e.event === 'agent_thought');
      // The answering round's thought comes before its chunks and again, filled, after them, under one id.
      const first = names.indexOf('agent_message');
      const opening = events[first - 1] as RunEventOf<'agent_thought'>;
      assert.equal(opening.event, 'agent_thought');
      assert.deepEqual([opening.id, opening.thought], [sent.at(-1)!.id, '']);
      assert.ok(names.slice(first, -2).every((n) => n === 'agent_message'), names.join());
      // What Dify's web app does with them: a thought with a known id replaces it, chunks append to the latest thought.
      const shown: { id: string; thought: string }[] = [];
      for (const e of events) {
        if (e.event === 'agent_thought') {
          const at = shown.findIndex((t) => t.id === e.id);
          if (at < 0) shown.push({ id: e.id, thought: e.thought });
          else shown[at] = { id: e.id, thought: e.thought };
        } else if (e.event === 'agent_message') shown.at(-1)!.thought += e.answer;
      }
      const answer = events.filter((e): e is RunEventOf<'agent_message'> => e.event === 'agent_message').map((e) => e.answer).join('');
      assert.equal(shown.filter((t) => t.thought.includes(answer)).length, 1);
      const thoughts = [...new Map(sent.map((t) => [t.id, t])).values()];
      assert.ok(thoughts.length >= 2);
      assert.deepEqual(thoughts.map((t) => t.position), thoughts.map((_, i) => i + 1));
      const tool = thoughts[0]!;
      assert.ok(tool.tool && tool.observation);
      assert.equal(typeof JSON.parse(tool.tool_input), 'object');
      assert.equal(thoughts.at(-1)!.thought, answer);
      const { data } = await h.client(key).listMessages({ conversation_id: tool.conversation_id!, user: 'sam' });
      assert.equal(data[0]!.agent_thoughts.length, thoughts.length);
      assert.deepEqual(data[0]!.agent_thoughts.map((t) => (t as { tool_labels: unknown }).tool_labels), thoughts.map((t) => t.tool_labels));
    }
  });

  test('agent_thought tool_labels carry en_US and zh_Hans for every tool, zh_Hans falling back to the English text', async () => {
    const labelsOf = async (key: string) => {
      const events = await drain(h.client(key).streamChatMessage({ query: 'q', inputs: {}, user: 'sam' }));
      return events.filter((e): e is RunEventOf<'agent_thought'> => e.event === 'agent_thought').map((t) => t.tool_labels);
    };
    // A labelled tool, a tool with no label of its own (its name in both locales), the final answer (no tool).
    const agent = await labelsOf(KEYS.legacyAgent);
    assert.deepEqual(agent[0], { weather: { en_US: 'Weather', zh_Hans: '天气' } });
    assert.deepEqual(agent[1], { current_time: { en_US: 'current_time', zh_Hans: 'current_time' } });
    assert.deepEqual(agent.at(-1), {});
    // An English-only label: zh_Hans repeats it, as Dify's I18nObject does.
    assert.deepEqual((await labelsOf(KEYS.agent))[0], { order_lookup: { en_US: 'Order lookup', zh_Hans: 'Order lookup' } });
    await rejects(h.client(KEYS.agent).sendChatMessage({ query: 'q', inputs: {}, user: 'sam' }), 400, 'bad_request', 'Agent App only supports streaming response mode.');
    await rejects(h.client(KEYS.legacyAgent).sendChatMessage({ query: 'q', inputs: {}, user: 'sam' }), 400, 'bad_request', 'Agent App only supports streaming response mode.');
  });

  test('a Text Generator completes from its inputs, streaming without a conversation', async () => {
    const text = h.client(KEYS.textGenerator);
    const blocking = await text.createCompletion({ inputs: { product: 'the Night Owl lamp', tone: 'crisp' }, user: 'sam' });
    assert.equal(blocking.mode, 'completion');
    assert.ok(!('conversation_id' in blocking));
    assert.match(blocking.answer, /^Meet the Night Owl lamp: a crisp light/);
    const events = await drain(text.streamCompletion({ inputs: {}, user: 'sam' }));
    assert.deepEqual(outline(events), ['message', 'message_end']);
    assert.deepEqual(Object.keys(find(events, 'message')), ['event', 'message_id', 'created_at', 'task_id', 'id', 'answer']);
    assert.match(events.filter((e): e is RunEventOf<'message'> => e.event === 'message').map((e) => e.answer).join(''), /^Meet the Demo Lamp: a warm light/);
    await rejects(text.createCompletion({ inputs: { tone: 'grim' }, user: 'sam' }), 400, 'invalid_param', "tone in input form must be one of the following: ['warm', 'crisp', 'playful']");
    await rejects(text.createCompletion({ inputs: { product: 'x'.repeat(49) }, user: 'sam' }), 400, 'invalid_param', 'product in input form must be less than 48 characters');
  });

  test('stop ends a streaming answer early with message_end; other users cannot stop it', async () => {
    const slow = await startApp((raw) => {
      raw.apps.find((a: { key: string }) => a.key === KEYS.chatbot).reply.chunk_delay_ms = 40;
    });
    try {
      const client = slow.client(KEYS.chatbot);
      const stream = client.streamChatMessage({ query: 'Tell me everything', inputs: {}, user: 'sam' });
      const first = (await stream.next()).value as RunEventOf<'message'>;
      assert.equal(first.event, 'message');
      assert.deepEqual(await client.stopChatMessage(first.task_id!, 'mallory'), { result: 'success' });
      assert.deepEqual(await client.stopChatMessage(first.task_id!, 'sam'), { result: 'success' });
      const rest = await drain(stream);
      const end = find(rest, 'message_end');
      const said = [first, ...rest].filter((e): e is RunEventOf<'message'> => e.event === 'message').map((e) => e.answer).join('');
      assert.ok(said.length < 100, `stopped after ${said.length} characters`);
      const { data } = await client.listMessages({ conversation_id: end.conversation_id!, user: 'sam' });
      assert.equal(data[0]!.answer, said);
      assertError(await slow.raw('POST', `/chat-messages/${first.task_id}/stop`, { key: KEYS.chatbot, json: {} }), 400, 'invalid_param', 'Arg user must be provided.');
    } finally {
      await slow.close();
    }
  });
});

describe('conversations', () => {
  const user = 'lister';
  let ids: string[];
  before(async () => {
    ids = [];
    for (const q of ['First question', 'Second question', 'Third question']) ids.push((await ask(bot, user, q)).conversation_id);
  });

  test('newest activity first by default; limit, has_more and last_id page through', async () => {
    const all = await bot.listConversations({ user });
    assert.deepEqual(all.data.map((c) => c.id), [...ids].reverse());
    assert.equal(all.limit, 20);
    assert.equal(all.has_more, false);
    const c = all.data[0]!;
    assert.deepEqual(Object.keys(c).sort(), ['created_at', 'id', 'inputs', 'introduction', 'name', 'status', 'updated_at']);
    assert.equal(c.status, 'normal');
    assert.equal(c.name, 'Third question');
    assert.equal(c.introduction, 'Welcome to the store! How can I help?');

    const page1 = await bot.listConversations({ user, limit: 2 });
    assert.deepEqual([page1.data.length, page1.has_more, page1.limit], [2, true, 2]);
    const page2 = await bot.listConversations({ user, limit: 2, last_id: page1.data[1]!.id });
    assert.deepEqual(page2.data.map((x) => x.id), [ids[0]]);
    assert.equal(page2.has_more, false);

    const oldest = await bot.listConversations({ user, sort_by: 'created_at' });
    assert.deepEqual(oldest.data.map((x) => x.id), ids);
    // A new message makes the first conversation the most recently active.
    await ask(bot, user, 'Back again', ids[0]);
    assert.equal((await bot.listConversations({ user })).data[0]!.id, ids[0]);
    assert.equal((await bot.listConversations({ user, sort_by: '-created_at' })).data[0]!.id, ids[2]);
    assert.deepEqual((await bot.listConversations({ user: 'nobody' })).data, []);
  });

  test('bad paging arguments are refused', async () => {
    await rejects(bot.listConversations({ user, last_id: '8c9a2f0e-0000-4000-8000-000000000000' }), 404, 'not_found', 'Last Conversation Not Exists.');
    await rejects(bot.listConversations({ user, limit: 0 }), 400, 'invalid_param', /limit\n {2}Input should be greater than or equal to 1/);
    await rejects(bot.listConversations({ user, limit: 101 }), 400, 'invalid_param', /limit\n {2}Input should be less than or equal to 100/);
    assertError(await h.raw('GET', `/conversations?user=${user}&limit=ten`, { key: KEYS.chatbot }), 400, 'invalid_param', /valid integer/);
    assertError(await h.raw('GET', `/conversations?user=${user}&sort_by=name`, { key: KEYS.chatbot }), 400, 'invalid_param', /sort_by/);
    assertError(await h.raw('GET', `/conversations?user=${user}&last_id=nope`, { key: KEYS.chatbot }), 400, 'invalid_param', /last_id\n {2}Input should be a valid UUID/);
  });

  test('rename by name or from the first question; delete answers 204', async () => {
    const { conversation_id: id } = await ask(bot, 'renamer', 'What about gift cards for the holidays season?');
    const renamed = await bot.renameConversation(id, { name: 'Gift cards', user: 'renamer' });
    assert.equal(renamed.name, 'Gift cards');
    assert.equal(renamed.id, id);
    const generated = await bot.renameConversation(id, { auto_generate: true, user: 'renamer' });
    assert.equal(generated.name, 'What about gift cards for the…');
    await rejects(bot.renameConversation(id, { user: 'renamer' }), 400, 'invalid_param', /name is required when auto_generate is false/);
    await rejects(bot.renameConversation(id, { name: 'x', user: 'someone' }), 404, 'not_found', 'Conversation Not Exists.');

    await rejects(bot.deleteConversation(id, 'someone'), 404, 'not_found', 'Conversation Not Exists.');
    const answer = await h.raw('DELETE', `/conversations/${id}`, { key: KEYS.chatbot, json: { user: 'renamer' } });
    assert.equal(answer.status, 204);
    assert.equal(answer.body, undefined);
    await rejects(bot.deleteConversation(id, 'renamer'), 404, 'not_found', 'Conversation Not Exists.');
    assert.ok(!(await bot.listConversations({ user: 'renamer' })).data.some((c) => c.id === id));
    await rejects(bot.listMessages({ conversation_id: id, user: 'renamer' }), 404, 'not_found', 'Conversation Not Exists.');
    assertError(await h.raw('DELETE', '/conversations/not-a-uuid', { key: KEYS.chatbot }), 404, 'not_found', /requested URL was not found/);
  });

  test('an omitted user is the shared DEFAULT-USER', async () => {
    const answer = await ask(bot, 'DEFAULT-USER', 'Anonymous question');
    assert.ok((await bot.listConversations()).data.some((c) => c.id === answer.conversation_id));
  });
});

describe('conversation variables', () => {
  const user = 'vars';
  let conversation: string;
  before(async () => {
    conversation = (await ask(bot, user, 'Variables please')).conversation_id;
  });

  test('every value_type, with descriptions; values as text', async () => {
    const { data, has_more, limit } = await bot.listConversationVariables(conversation, { user, limit: 100 });
    assert.equal(has_more, false);
    assert.equal(limit, 100);
    assert.deepEqual(data.map((v) => v.value_type), ['string', 'number', 'object', 'secret', 'file', 'boolean', 'array[any]', 'array[string]', 'array[number]', 'array[object]', 'array[file]', 'array[boolean]']);
    for (const v of data) {
      assert.deepEqual(Object.keys(v).sort(), ['created_at', 'description', 'id', 'name', 'updated_at', 'value', 'value_type']);
      assert.ok(v.description, v.name);
      assert.equal(typeof v.value, 'string');
    }
    assert.equal(data[0]!.value, 'Ada Lovelace');
    assert.equal(data[1]!.value, '3');
    assert.deepEqual(JSON.parse(data[2]!.value as string), { language: 'en', newsletter: true });
    assert.equal(data[5]!.value, 'true');
  });

  test('paging with limit and last_id; filtering by name', async () => {
    const page1 = await bot.listConversationVariables(conversation, { user, limit: 5 });
    assert.deepEqual([page1.data.length, page1.has_more], [5, true]);
    const page2 = await bot.listConversationVariables(conversation, { user, limit: 5, last_id: page1.data[4]!.id });
    assert.equal(page2.data[0]!.name, 'is_vip');
    const page3 = await bot.listConversationVariables(conversation, { user, limit: 5, last_id: page2.data[4]!.id });
    assert.deepEqual([page3.data.length, page3.has_more], [2, false]);
    assert.deepEqual((await bot.listConversationVariables(conversation, { user, variable_name: 'customer_name' })).data.map((v) => v.name), ['customer_name']);
    await rejects(bot.listConversationVariables(conversation, { user, variable_name: 'bad name' }), 400, 'invalid_param', /can only contain letters, numbers/);
    await rejects(bot.listConversationVariables(conversation, { user, variable_name: 'sp_who' }), 400, 'invalid_param', /contains invalid characters: sp_/);
    await rejects(bot.listConversationVariables(conversation, { user, variable_name: 'x'.repeat(256) }), 400, 'invalid_param', /at most 255 characters/);
    await rejects(bot.listConversationVariables(conversation, { user, limit: 0 }), 400, 'invalid_param', /limit/);
    await rejects(bot.listConversationVariables(conversation, { user: 'stranger' }), 404, 'not_found', 'Conversation Not Exists.');
  });

  test('PUT checks the value against value_type', async () => {
    const { data } = await bot.listConversationVariables(conversation, { user, limit: 100 });
    const byName = Object.fromEntries(data.map((v) => [v.name, v]));
    const file = { transfer_method: 'remote_url', url: 'https://example.com/a.png', type: 'image' };
    const good: Record<string, unknown> = {
      customer_name: 'Grace', order_count: 4.5, preferences: { language: 'de' }, api_token: 'sk-new', last_upload: file, is_vip: false,
      history: [1, 'two'], tags: ['a'], scores: [1, 2], contacts: [{ name: 'x' }], documents: [file], consents: [false],
    };
    for (const [name, value] of Object.entries(good)) {
      const updated = await bot.updateConversationVariable(conversation, byName[name]!.id, { value, user });
      assert.equal(updated.value, typeof value === 'string' ? value : JSON.stringify(value), name);
      assert.equal(updated.value_type, byName[name]!.value_type);
    }
    const bad: [string, unknown, string][] = [
      ['customer_name', 42, 'number'], ['order_count', '5', 'string'], ['preferences', [1], 'array[number]'], ['api_token', true, 'boolean'],
      ['last_upload', { name: 'x' }, 'object'], ['is_vip', 'yes', 'string'], ['history', {}, 'object'], ['tags', [1, 2], 'array[number]'],
      ['scores', ['1'], 'array[string]'], ['contacts', [1], 'array[number]'], ['documents', [{ a: 1 }], 'array[object]'], ['consents', [1, true], 'array[any]'],
      ['customer_name', null, 'none'],
    ];
    for (const [name, value, got] of bad) {
      await rejects(
        bot.updateConversationVariable(conversation, byName[name]!.id, { value, user }),
        400,
        'bad_request',
        `Type mismatch: variable '${name}' expects ${byName[name]!.value_type}, but got ${got} type`,
      );
    }
    await rejects(bot.updateConversationVariable(conversation, '8c9a2f0e-0000-4000-8000-000000000000', { value: 'x', user }), 404, 'not_found', 'Conversation Variable Not Exists.');
    await rejects(bot.updateConversationVariable(conversation, byName.tags!.id, { value: ['x'], user: 'stranger' }), 404, 'not_found', 'Conversation Not Exists.');
    assertError(await h.raw('PUT', `/conversations/${conversation}/variables/${byName.tags!.id}`, { key: KEYS.chatbot, json: { user } }), 400, 'invalid_param', /value\n {2}Field required/);
    // The new value is what the next answer uses.
    const next = await ask(bot, user, 'Who am I?', conversation);
    assert.match(next.answer, /^Thanks, Grace!/);
  });

  test('each new conversation starts from the fixture values again', async () => {
    const fresh = (await ask(bot, user, 'Fresh start')).conversation_id;
    const { data } = await bot.listConversationVariables(fresh, { user, variable_name: 'customer_name' });
    assert.equal(data[0]!.value, 'Ada Lovelace');
  });
});

describe('message history and feedback', () => {
  const user = 'historian';
  let conversation: string;
  let messageIds: string[];
  before(async () => {
    messageIds = [];
    const first = await ask(bot, user, 'Q1');
    conversation = first.conversation_id;
    messageIds.push(first.id);
    for (const q of ['Q2', 'Q3', 'Q4', 'Q5']) messageIds.push((await ask(bot, user, q, conversation)).id);
  });

  test('the newest page first, in chronological order; first_id pages back', async () => {
    const page1 = await bot.listMessages({ conversation_id: conversation, user, limit: 2 });
    assert.deepEqual(page1.data.map((m) => m.query), ['Q4', 'Q5']);
    assert.equal(page1.has_more, true);
    const page2 = await bot.listMessages({ conversation_id: conversation, user, limit: 2, first_id: page1.data[0]!.id });
    assert.deepEqual(page2.data.map((m) => m.query), ['Q2', 'Q3']);
    const page3 = await bot.listMessages({ conversation_id: conversation, user, limit: 2, first_id: page2.data[0]!.id });
    assert.deepEqual(page3.data.map((m) => m.query), ['Q1']);
    assert.equal(page3.has_more, false);
    const m = page1.data[1]!;
    assert.deepEqual(Object.keys(m).sort(), [
      'agent_thoughts', 'answer', 'answer_tokens', 'conversation_id', 'created_at', 'currency', 'error', 'extra_contents', 'feedback', 'id', 'inputs',
      'message_files', 'message_tokens', 'parent_message_id', 'provider_response_latency', 'query', 'retriever_resources', 'status', 'total_price', 'total_tokens',
    ]);
    assert.equal(m.status, 'normal');
    assert.equal(m.feedback, null);
    assert.deepEqual(m.extra_contents, []);
    await rejects(bot.listMessages({ conversation_id: conversation, user, first_id: '8c9a2f0e-0000-4000-8000-000000000000' }), 404, 'not_found', 'First Message Not Exists.');
    assertError(await h.raw('GET', `/messages?user=${user}`, { key: KEYS.chatbot }), 400, 'invalid_param', /conversation_id\n {2}Field required/);
  });

  test('feedback: none → like → dislike → revoked (null); only the recipient may rate', async () => {
    const id = messageIds[0]!;
    const rating = async () => (await bot.listMessages({ conversation_id: conversation, user, limit: 100 })).data.find((m) => m.id === id)!.feedback;
    assert.equal(await rating(), null);
    await rejects(bot.submitFeedback(id, { rating: null, user }), 400, 'invalid_param', 'rating cannot be None when feedback not exists');
    assert.deepEqual(await bot.submitFeedback(id, { rating: 'like', user, content: 'Helpful' }), { result: 'success' });
    assert.deepEqual(await rating(), { rating: 'like' });
    await bot.submitFeedback(id, { rating: 'dislike', user });
    assert.deepEqual(await rating(), { rating: 'dislike' });
    await bot.submitFeedback(id, { rating: null, user });
    assert.equal(await rating(), null);

    await rejects(bot.submitFeedback(id, { rating: 'like', user: 'intruder' }), 404, 'not_found', 'Message Not Exists.');
    await rejects(bot.submitFeedback('8c9a2f0e-0000-4000-8000-000000000000', { rating: 'like', user }), 404, 'not_found', 'Message Not Exists.');
    assertError(await h.raw('POST', `/messages/${id}/feedbacks`, { key: KEYS.chatbot, json: { rating: 'like' } }), 400, 'invalid_param', 'Arg user must be provided.');
    assertError(await h.raw('POST', `/messages/${id}/feedbacks`, { key: KEYS.chatbot, json: { rating: 'love', user } }), 400, 'invalid_param', /rating/);
    assert.equal(await rating(), null);
  });

  test('Text Generator messages take feedback too', async () => {
    const text = h.client(KEYS.textGenerator);
    const { id } = await text.createCompletion({ inputs: {}, user });
    assert.deepEqual(await text.submitFeedback(id, { rating: 'like', user }), { result: 'success' });
    await rejects(text.submitFeedback(id, { rating: 'like', user: 'intruder' }), 404, 'not_found', 'Message Not Exists.');
  });
});
