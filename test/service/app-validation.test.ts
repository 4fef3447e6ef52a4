/**
 * The app routes' checks run by their wrapper (`src/service/routes/app-route.ts`) and their zod
 * payloads answer exactly as the hand-written checks did, in the same order: a UUID path id before
 * the key, the key before the body, `user` before the app mode, the mode before the payload.
 */
import { after, before, describe, test } from 'node:test';
import { assertError, KEYS, startApp, type Harness } from './app-helpers.js';

const ID = '3f2b8c1e-9a4d-4e7b-8c2a-1d5e6f7a8b9c';
let h: Harness;

before(async () => {
  h = await startApp();
});
after(async () => h?.close());

describe('app route checks', () => {
  test('in order: UUID path id (404), key (401), user (400), mode (400 not_chat_app)', async () => {
    assertError(await h.raw('POST', '/messages/not-a-uuid/feedbacks', { key: null, json: {} }), 404, 'not_found');
    assertError(await h.raw('POST', `/messages/${ID}/feedbacks`, { key: null, json: {} }), 401, 'unauthorized');
    assertError(await h.raw('POST', `/messages/${ID}/feedbacks`, { key: KEYS.workflow, json: { rating: 'bad' } }), 400, 'invalid_param', 'Arg user must be provided.');
    assertError(await h.raw('POST', `/messages/${ID}/feedbacks`, { key: KEYS.workflow, json: { rating: 'bad', user: 'u' } }), 400, 'not_chat_app');
    assertError(await h.raw('GET', `/workflow/${ID}/events`, { key: KEYS.chatbot }), 400, 'invalid_param', 'Arg user must be provided.');
    assertError(await h.raw('GET', `/workflow/${ID}/events?user=u`, { key: KEYS.chatbot }), 400, 'not_workflow_app');
    // The completion routes refuse another mode's app as app_unavailable (`CompletionApi`).
    assertError(await h.raw('POST', '/completion-messages', { key: KEYS.chatbot, json: { inputs: {}, user: 'u' } }), 400, 'app_unavailable', 'App unavailable, please check your app configurations.');
  });

  test('feedback payload: pydantic\'s words for a bad rating or content', async () => {
    const send = (json: unknown) => h.raw('POST', `/messages/${ID}/feedbacks`, { key: KEYS.chatbot, json });
    assertError(await send({ rating: 'great', user: 'u' }), 400, 'invalid_param', "1 validation error for MessageFeedbackPayload\nrating\n  Input should be 'like' or 'dislike'");
    assertError(await send({ rating: 'like', content: 5, user: 'u' }), 400, 'invalid_param', '1 validation error for MessageFeedbackPayload\ncontent\n  Input should be a valid string');
    // A valid payload reaches the message lookup.
    assertError(await send({ rating: 'like', user: 'u' }), 404, 'not_found', 'Message Not Exists.');
  });

  test('chat payload: the query is required and a string; the response mode one of two', async () => {
    const send = (json: unknown) => h.raw('POST', '/chat-messages', { key: KEYS.chatbot, json });
    assertError(await send({ inputs: {}, user: 'u' }), 400, 'invalid_param', '1 validation error for ChatRequestPayload\nquery\n  Field required');
    assertError(await send({ query: 3, inputs: {}, user: 'u' }), 400, 'invalid_param', '1 validation error for ChatRequestPayload\nquery\n  Input should be a valid string');
    assertError(await send({ query: 'q', response_mode: 'fast', inputs: {}, user: 'u' }), 400, 'invalid_param', "1 validation error for ChatRequestPayload\nresponse_mode\n  Input should be 'blocking' or 'streaming'");
    const completion = await h.raw('POST', '/completion-messages', { key: KEYS.textGenerator, json: { inputs: {}, user: 'u', response_mode: 'fast' } });
    assertError(completion, 400, 'invalid_param', "1 validation error for CompletionRequestPayload\nresponse_mode\n  Input should be 'blocking' or 'streaming'");
  });

  test('rename payload: a lax boolean, a string name, and a name unless generated', async () => {
    const send = (json: unknown) => h.raw('POST', `/conversations/${ID}/name`, { key: KEYS.chatbot, json });
    assertError(await send({ auto_generate: 'maybe', name: 'n' }), 400, 'invalid_param', '1 validation error for ConversationRenamePayload\nauto_generate\n  Input should be a valid boolean, unable to interpret input');
    assertError(await send({ name: 4 }), 400, 'invalid_param', '1 validation error for ConversationRenamePayload\nname\n  Input should be a valid string');
    assertError(await send({ name: '  ' }), 400, 'invalid_param', '1 validation error for ConversationRenamePayload\n  Value error, name is required when auto_generate is false');
    assertError(await send({ auto_generate: 'off', name: '' }), 400, 'invalid_param', '1 validation error for ConversationRenamePayload\n  Value error, name is required when auto_generate is false');
    // Valid: the conversation lookup answers.
    assertError(await send({ auto_generate: 'yes' }), 404, 'not_found', 'Conversation Not Exists.');
  });

  test('text-to-audio payload: text, message id and voice are strings (after TTS is found enabled)', async () => {
    const send = (json: unknown) => h.raw('POST', '/text-to-audio', { key: KEYS.chatbot, json });
    assertError(await send({ text: 5 }), 400, 'invalid_param', '1 validation error for TextToAudioPayload\ntext\n  Input should be a valid string');
    assertError(await send({ voice: ['x'], text: 'hi' }), 400, 'invalid_param', '1 validation error for TextToAudioPayload\nvoice\n  Input should be a valid string');
    assertError(await send({ message_id: 'nope' }), 404, 'not_found', 'Message Not Exists.');
    assertError(await send({}), 400, 'invalid_param', 'Text is required');
    const off = await startApp((raw) => {
      raw.apps.find((a: { key: string }) => a.key === KEYS.chatbot).parameters.text_to_speech = { enabled: false };
    });
    try {
      assertError(await off.raw('POST', '/text-to-audio', { key: KEYS.chatbot, json: { text: 5 } }), 400, 'invalid_param', 'TTS is not enabled');
    } finally {
      await off.close();
    }
  });
});
