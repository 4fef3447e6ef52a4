/**
 * App metadata (`/site`, `/info`, `/parameters`), app-key authentication on every app route, and
 * the seed's availability table: which app modes each operation serves (others: 400 not_chat_app).
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { assertError, KEYS, startApp, type Harness } from './app-helpers.js';

let h: Harness;
before(async () => {
  h = await startApp();
});
after(() => h.close());

const MODES: Record<string, string> = {
  [KEYS.chatflow]: 'advanced-chat',
  [KEYS.workflow]: 'workflow',
  [KEYS.agent]: 'agent',
  [KEYS.chatbot]: 'chat',
  [KEYS.legacyAgent]: 'agent-chat',
  [KEYS.textGenerator]: 'completion',
};

describe('app metadata', () => {
  test('GET /info names each app and its mode', async () => {
    for (const [key, mode] of Object.entries(MODES)) {
      const info = await h.client(key).getInfo();
      assert.deepEqual(Object.keys(info).sort(), ['author_name', 'description', 'mode', 'name', 'tags']);
      assert.equal(info.mode, mode);
      assert.ok(info.name);
    }
  });

  test('GET /site answers every web app setting of the seed', async () => {
    const fields = ['chat_color_theme', 'chat_color_theme_inverted', 'copyright', 'custom_disclaimer', 'default_language', 'description', 'icon', 'icon_background', 'icon_type', 'icon_url', 'input_placeholder', 'privacy_policy', 'show_workflow_steps', 'title', 'use_icon_as_answer_icon'];
    for (const key of Object.values(KEYS)) {
      const site = await h.client(key).getSite();
      assert.deepEqual(Object.keys(site).sort(), fields, key);
      assert.ok(site.title);
      assert.ok(site.icon_type === 'emoji' || site.icon_type === 'image');
    }
    assert.equal((await h.client(KEYS.chatbot).getSite()).input_placeholder, 'Ask the store…');
    assert.equal((await h.client(KEYS.workflow).getSite()).input_placeholder, null);
  });

  test('GET /parameters: features, the input form from the start node or the app, upload limits', async () => {
    const wf = await h.client(KEYS.workflow).getParameters();
    assert.deepEqual(Object.keys(wf).sort(), [
      'annotation_reply', 'file_upload', 'more_like_this', 'opening_statement', 'retriever_resource', 'sensitive_word_avoidance',
      'speech_to_text', 'suggested_questions', 'suggested_questions_after_answer', 'system_parameters', 'text_to_speech', 'user_input_form',
    ]);
    assert.deepEqual(wf.user_input_form, [
      { 'text-input': { label: 'Version', variable: 'version', required: false, default: '2.4.0' } },
      { select: { label: 'Scenario', variable: 'scenario', required: false, default: 'review', options: ['review', 'full', 'email'] } },
      { paragraph: { label: 'Topic', variable: 'topic', required: false, default: 'the spring launch' } },
    ]);
    assert.deepEqual(wf.text_to_speech, { enabled: true, voice: 'alloy', language: 'en-US', autoPlay: 'disabled' });
    assert.deepEqual(wf.system_parameters, { file_size_limit: 15, image_file_size_limit: 10, audio_file_size_limit: 50, video_file_size_limit: 100, workflow_file_upload_limit: 10 });

    const chatbot = await h.client(KEYS.chatbot).getParameters();
    assert.equal(chatbot.opening_statement, 'Welcome to the store! How can I help?');
    assert.deepEqual(chatbot.suggested_questions, ['What are your opening hours?', 'Do you ship abroad?']);
    assert.deepEqual(chatbot.suggested_questions_after_answer, { enabled: true });
    assert.deepEqual(chatbot.user_input_form, []);

    const text = await h.client(KEYS.textGenerator).getParameters();
    assert.deepEqual(text.user_input_form[0], { 'text-input': { label: 'Product', variable: 'product', required: false, default: 'the Demo Lamp', max_length: 48 } });
    assert.deepEqual(text.more_like_this, { enabled: true });
  });
});

describe('authentication', () => {
  const routes: [string, string][] = [
    ['GET', '/info'], ['GET', '/parameters'], ['GET', '/meta'], ['POST', '/chat-messages'], ['POST', '/completion-messages'],
    ['GET', '/conversations'], ['GET', '/messages?conversation_id=00000000-0000-0000-0000-000000000000'],
    ['POST', '/messages/00000000-0000-0000-0000-000000000000/feedbacks'], ['POST', '/text-to-audio'], ['POST', '/files/upload'],
    ['POST', '/workflows/tasks/abc/stop'], ['POST', '/chat-messages/abc/stop'],
    ['DELETE', '/conversations/00000000-0000-0000-0000-000000000000'],
    ['GET', '/conversations/00000000-0000-0000-0000-000000000000/variables'],
  ];

  test('GET /meta: an agent’s tool icons, a built-in provider’s as a console URL, a custom one’s own emoji', async () => {
    const meta = async (key: string) => (await h.raw('GET', '/meta', { key })).body;
    assert.deepEqual(await meta(KEYS.legacyAgent), {
      tool_icons: {
        weather: '/console/api/workspaces/current/tool-provider/builtin/openweather/icon',
        current_time: '/console/api/workspaces/current/tool-provider/builtin/time/icon',
      },
    });
    assert.deepEqual(await meta(KEYS.agent), { tool_icons: { order_lookup: { background: '#FFEAD5', content: '📦' } } });
    assert.deepEqual(await meta(KEYS.chatbot), { tool_icons: {} });
  });

  test('a missing, malformed or unknown key gets 401 with the real messages on every app route', async () => {
    for (const [method, path] of routes) {
      assertError(await h.raw(method, path, { key: null }), 401, 'unauthorized', "Authorization header must be provided and start with 'Bearer'");
      assertError(await h.raw(method, path, { key: 'app-nope' }), 401, 'unauthorized', 'Access token is invalid');
      // Everything after the scheme is the key, as in the real service: a valid key with a suffix is not valid.
      assertError(await h.raw(method, path, { key: `${KEYS.chatbot} extra` }), 401, 'unauthorized', 'Access token is invalid');
      const basic = await h.raw(method, path, { key: null, headers: { Authorization: 'Basic abc' } });
      assertError(basic, 401, 'unauthorized', "Authorization scheme must be 'Bearer'");
      assert.equal(basic.headers.get('www-authenticate'), 'Bearer realm="api"');
    }
  });

  test('knowledge keys open no app route', async () => {
    assertError(await h.raw('GET', '/site', { key: 'dataset-demo' }), 401, 'unauthorized', 'Access token is invalid');
    assertError(await h.raw('GET', '/info', { key: 'dataset-demo' }), 401, 'unauthorized', 'Access token is invalid');
  });
});

describe("the seed's availability table", () => {
  const uuid = '00000000-0000-0000-0000-000000000000';
  /** Calls the operation; true when the mode is served (any answer but 400 not_chat_app). */
  const served = async (key: string, operation: string): Promise<boolean> => {
    const user = 'table-user';
    const calls: Record<string, () => ReturnType<Harness['raw']>> = {
      feedback: () => h.raw('POST', `/messages/${uuid}/feedbacks`, { key, json: { rating: 'like', user } }),
      variables: () => h.raw('GET', `/conversations/${uuid}/variables?user=${user}`, { key }),
      updateVariable: () => h.raw('PUT', `/conversations/${uuid}/variables/${uuid}`, { key, json: { value: 1, user } }),
      conversations: () => h.raw('GET', `/conversations?user=${user}`, { key }),
      tts: () => h.raw('POST', '/text-to-audio', { key, json: { text: 'Hi.', user } }),
      site: () => h.raw('GET', '/site', { key }),
    };
    const answer = await calls[operation]!();
    if (answer.status === 400 && (answer.body as { code: string }).code === 'not_chat_app') {
      assert.equal((answer.body as { message: string }).message, 'Please check if your app mode matches the right API route.');
      return false;
    }
    return true;
  };
  const table: Record<string, string[]> = {
    feedback: [KEYS.chatflow, KEYS.chatbot, KEYS.legacyAgent, KEYS.textGenerator],
    variables: [KEYS.chatflow, KEYS.chatbot, KEYS.legacyAgent],
    updateVariable: [KEYS.chatflow, KEYS.chatbot, KEYS.legacyAgent],
    conversations: [KEYS.chatflow, KEYS.agent, KEYS.chatbot, KEYS.legacyAgent],
    tts: Object.values(KEYS),
    site: Object.values(KEYS),
  };
  for (const [operation, modes] of Object.entries(table)) {
    test(`${operation}: ${modes.map((k) => MODES[k]).join(', ')}`, async () => {
      for (const key of Object.values(KEYS)) {
        assert.equal(await served(key, operation), modes.includes(key), `${operation} on ${MODES[key]}`);
      }
    });
  }

  test('runs and messages go to their own modes', async () => {
    const mismatch = 'Please check if your app mode matches the right API route.';
    assertError(await h.raw('POST', '/workflows/run', { key: KEYS.chatbot, json: { inputs: {}, user: 'u' } }), 400, 'not_workflow_app', mismatch);
    assertError(await h.raw('POST', '/chat-messages', { key: KEYS.workflow, json: { inputs: {}, query: 'q', user: 'u' } }), 400, 'not_chat_app', mismatch);
    assertError(await h.raw('POST', '/completion-messages', { key: KEYS.chatbot, json: { inputs: {}, user: 'u' } }), 400, 'app_unavailable', 'App unavailable, please check your app configurations.');
    assertError(await h.raw('POST', '/completion-messages/t/stop', { key: KEYS.chatbot, json: { user: 'u' } }), 400, 'app_unavailable');
    assertError(await h.raw('GET', `/workflow/${uuid}/events?user=u`, { key: KEYS.chatbot }), 400, 'not_workflow_app', mismatch);
    assertError(await h.raw('POST', '/workflows/tasks/t/stop', { key: KEYS.chatflow, json: { user: 'u' } }), 400, 'not_workflow_app', mismatch);
    assertError(await h.raw('POST', '/chat-messages/t/stop', { key: KEYS.workflow, json: { user: 'u' } }), 400, 'not_chat_app', mismatch);
    assertError(await h.raw('GET', `/messages?conversation_id=${uuid}`, { key: KEYS.textGenerator }), 400, 'not_chat_app', mismatch);
  });
});

describe('pinned workflow versions', () => {
  test('POST /workflows/{workflow_id}/run runs the app’s own workflow only', async () => {
    const wf = h.client(KEYS.workflow);
    const id = '7c2d1e0f-9b8a-4c3d-8e7f-6a5b4c3d2e1f';
    const body = await wf.runWorkflow({ inputs: {}, user: 'pinned' }, undefined, id);
    assert.equal(body.data.workflow_id, id);
    assert.equal(body.data.status, 'paused');
    await assert.rejects(wf.runWorkflow({ inputs: {}, user: 'pinned' }, undefined, '8c9a2f0e-0000-4000-8000-000000000000'), { code: 'not_found', message: 'Workflow not found', status: 404 });
    await assert.rejects(wf.runWorkflow({ inputs: {}, user: 'pinned' }, undefined, 'draft'), { code: 'bad_request', message: 'Invalid workflow_id format', status: 400 });
  });
});
