/**
 * The companion-element operations through the relay against the real embedded service (a
 * Chatbot app): chat, conversations, messages, feedback, variables, rename, delete, upload, text
 * to audio, suggested questions and audio to text, each sent with a forged `user` and checked on
 * the service's side to belong to the session's user.
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { loadFixture, startService, type RunningService } from '../../src/service/index.js';
import { bearer, mountRelay, multipartBody, type MountedRelay } from './helpers.js';

const APP_KEY = 'app-demo-chatbot';

let service: RunningService;
let mounted: MountedRelay;
let token: string;

before(async () => {
  service = await startService({ fixture: await loadFixture(), port: 0 });
  mounted = await mountRelay(service.url, { apiKey: APP_KEY });
  token = (await mounted.relay.createSession({ user: 'alice' })).token;
});

after(async () => {
  await mounted?.close();
  await service?.close();
});

async function viaRelay(method: string, path: string, body?: unknown): Promise<{ status: number; json: any; headers: Headers }> {
  const response = await fetch(mounted.url + path, {
    method,
    headers: { ...bearer(token), ...(body === undefined ? {} : { 'Content-Type': 'application/json' }) },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await response.text();
  return { status: response.status, json: text ? JSON.parse(text) : undefined, headers: response.headers };
}

async function direct(path: string): Promise<any> {
  const response = await fetch(service.url + path, { headers: bearer(APP_KEY) });
  assert.equal(response.status, 200, path);
  return response.json();
}

test('chat, conversations, messages, feedback, variables, rename and delete belong to the session user', async () => {
  const chat = await viaRelay('POST', '/chat-messages', { query: 'Hello there', inputs: {}, response_mode: 'blocking', user: 'mallory' });
  assert.equal(chat.status, 200, JSON.stringify(chat.json));
  const conversationId: string = chat.json.conversation_id;
  const messageId: string = chat.json.message_id ?? chat.json.id;
  assert.ok(conversationId && messageId);

  const listed = await viaRelay('GET', '/conversations?user=mallory');
  assert.equal(listed.status, 200);
  assert.deepEqual(listed.json.data.map((c: { id: string }) => c.id), [conversationId]);
  assert.deepEqual((await direct('/conversations?user=alice')).data.map((c: { id: string }) => c.id), [conversationId]);
  assert.deepEqual((await direct('/conversations?user=mallory')).data, []);

  const messages = await viaRelay('GET', `/messages?conversation_id=${conversationId}&user=mallory`);
  assert.equal(messages.status, 200);
  assert.equal(messages.json.data[0].query, 'Hello there');

  const feedback = await viaRelay('POST', `/messages/${messageId}/feedbacks`, { rating: 'like', user: 'mallory' });
  assert.deepEqual(feedback.json, { result: 'success' });
  assert.equal((await direct(`/messages?conversation_id=${conversationId}&user=alice`)).data[0].feedback?.rating, 'like');

  const variables = await viaRelay('GET', `/conversations/${conversationId}/variables`);
  assert.equal(variables.status, 200, JSON.stringify(variables.json));
  assert.ok(Array.isArray(variables.json.data));

  const renamed = await viaRelay('POST', `/conversations/${conversationId}/name`, { name: 'Renamed by relay', user: 'mallory' });
  assert.equal(renamed.status, 200, JSON.stringify(renamed.json));
  assert.equal(renamed.json.name, 'Renamed by relay');

  // Upstream errors come back as they are.
  const missing = await viaRelay('DELETE', `/conversations/00000000-0000-4000-8000-000000000000`);
  assert.equal(missing.status, 404);
  assert.deepEqual(Object.keys(missing.json).sort(), ['code', 'message', 'status']);

  const deleted = await viaRelay('DELETE', `/conversations/${conversationId}`);
  assert.equal(deleted.status, 204);
  assert.deepEqual((await direct('/conversations?user=alice')).data, []);

  const parameters = await viaRelay('GET', '/parameters');
  assert.equal(parameters.status, 200);
  assert.ok('system_parameters' in parameters.json);
});

test('an upload through the relay is owned by the session user, whatever user part the browser sent', async () => {
  const boundary = 'relayuploadtest';
  const upload = async (url: string, headers: Record<string, string>, user: string) => {
    const response = await fetch(url, {
      method: 'POST',
      headers: { ...headers, 'Content-Type': `multipart/form-data; boundary=${boundary}` },
      body: multipartBody(boundary, [
        { headers: 'Content-Disposition: form-data; name="user"', body: user },
        { headers: 'Content-Disposition: form-data; name="file"; filename="notes.txt"\r\nContent-Type: text/plain', body: 'release notes' },
      ]),
    });
    assert.equal(response.status, 201, await response.clone().text());
    return (await response.json()) as { id: string; name: string; size: number; created_by: string };
  };
  const relayed = await upload(`${mounted.url}/files/upload`, bearer(token), 'mallory');
  assert.equal(relayed.name, 'notes.txt');
  assert.equal(relayed.size, 'release notes'.length);
  const asAlice = await upload(`${service.url}/files/upload`, bearer(APP_KEY), 'alice');
  const asMallory = await upload(`${service.url}/files/upload`, bearer(APP_KEY), 'mallory');
  assert.equal(relayed.created_by, asAlice.created_by);
  assert.notEqual(relayed.created_by, asMallory.created_by);
});

test('text to audio streams real audio through the relay', async () => {
  const response = await fetch(`${mounted.url}/text-to-audio`, {
    method: 'POST',
    headers: { ...bearer(token), 'Content-Type': 'application/json' },
    body: JSON.stringify({ text: 'Hello from the relay.', user: 'mallory' }),
  });
  assert.equal(response.status, 200, await response.clone().text());
  assert.match(response.headers.get('content-type') ?? '', /^audio\//);
  const bytes = new Uint8Array(await response.arrayBuffer());
  assert.ok(bytes.length > 1000, `${bytes.length} bytes of audio`);
});

test('suggested questions of the session user’s own message; the forged user’s would be 404', async () => {
  const chat = await viaRelay('POST', '/chat-messages', { query: 'Do you ship abroad?', inputs: {}, response_mode: 'blocking', user: 'mallory' });
  const messageId: string = chat.json.id;
  const suggested = await viaRelay('GET', `/messages/${messageId}/suggested?user=mallory`);
  assert.equal(suggested.status, 200, JSON.stringify(suggested.json));
  assert.equal(suggested.json.result, 'success');
  assert.equal(suggested.json.data.length, 3);
  const asMallory = await fetch(`${service.url}/messages/${messageId}/suggested?user=mallory`, { headers: bearer(APP_KEY) });
  assert.equal(asMallory.status, 404);
  await asMallory.body?.cancel();
});

test('the service’s own speech, fetched and sent back through the relay, is transcribed to its text', async () => {
  const text = 'Your order ships on Monday.';
  const speech = await fetch(`${mounted.url}/text-to-audio`, {
    method: 'POST',
    headers: { ...bearer(token), 'Content-Type': 'application/json' },
    body: JSON.stringify({ text, voice: 'fable', user: 'mallory' }),
  });
  assert.equal(speech.headers.get('content-type'), 'audio/wav');
  const form = new FormData();
  form.append('file', new Blob([await speech.arrayBuffer()], { type: 'audio/wav' }), 'reply.wav');
  form.append('user', 'mallory');
  const answer = await fetch(`${mounted.url}/audio-to-text`, { method: 'POST', headers: bearer(token), body: form });
  assert.equal(answer.status, 200, await answer.clone().text());
  assert.deepEqual(await answer.json(), { text });
});
