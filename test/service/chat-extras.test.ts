/**
 * `GET /messages/{message_id}/suggested` (three questions from the conversation; Dify's checks and
 * their order), `POST /audio-to-text` (Dify's checks; the service's own speech read back, QA's
 * scripted transcript, `""` for untagged audio) and `GET /app/feedbacks` (every rating of the
 * key's app, newest first, paged).
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { transcriptChunk, transcriptTag, taggedTranscript } from '../../src/service/audio/transcript.js';
import { suggestQuestions } from '../../src/service/conversations/suggestions.js';
import { assertError, defaultFixture, KEYS, rejects, startApp, UUID, type Harness } from './app-helpers.js';

let h: Harness;
before(async () => {
  h = await startApp((raw) => {
    // The workflow transcribes too (audio to text serves every mode); the agent has both features off.
    raw.apps.find((a: { key: string }) => a.key === KEYS.workflow).parameters.speech_to_text = { enabled: true };
  });
});
after(() => h.close());

const NO_SUCH = '8c9a2f0e-0000-4000-8000-000000000000';
const chat = (query: string, user: string, key: string = KEYS.chatbot) => h.client(key).sendChatMessage({ query, inputs: {}, user });

describe('GET /messages/{message_id}/suggested', () => {
  test('three questions from the exchange, the same every time', async () => {
    const message = await chat('Do you ship abroad to Norway?', 'sq-wren');
    const first = await h.client(KEYS.chatbot).getSuggestedQuestions(message.id, 'sq-wren');
    assert.deepEqual(Object.keys(first), ['result', 'data']);
    assert.equal(first.result, 'success');
    assert.equal(first.data.length, 3);
    for (const question of first.data) assert.match(question, /\?$/);
    assert.deepEqual(await h.client(KEYS.chatbot).getSuggestedQuestions(message.id, 'sq-wren'), first);
    // A Chatflow's message too.
    const flow = await h.client(KEYS.chatflow).sendChatMessage({ query: 'Summarise the shipping policy', inputs: { scenario: 'chat' }, user: 'sq-wren' });
    assert.equal((await h.client(KEYS.chatflow).getSuggestedQuestions(flow.id, 'sq-wren')).data.length, 3);
  });

  test('the questions come from the conversation’s words, the latest answer first', () => {
    const questions = suggestQuestions([
      { query: 'Tell me about rockets', answer: 'Rockets burn fuel.' },
      { query: 'And satellites?', answer: 'Satellites orbit the planet; satellites relay signals.' },
    ]);
    assert.deepEqual(questions, ['What is Satellites?', 'Why orbit?', 'More on planet?']);
    assert.deepEqual(suggestQuestions([{ query: 'hi', answer: 'ok' }]), ['Can you explain?', 'An example?', 'What next?']);
    // Words of any script count; numbers and over-long words do not.
    assert.equal(suggestQuestions([{ query: '', answer: 'Öffnungszeiten 2024 supercalifragilistic' }])[0], 'What is Öffnungszeiten?');
  });

  test('refusals, in Dify’s order: user, mode, message (the user’s own), then the feature', async () => {
    const message = await chat('Open today?', 'sq-finch');
    const path = (id: string, user?: string) => `/messages/${id}/suggested${user === undefined ? '' : `?user=${encodeURIComponent(user)}`}`;
    assertError(await h.raw('GET', path(message.id), { key: KEYS.chatbot }), 400, 'invalid_param', 'Arg user must be provided.');
    assertError(await h.raw('GET', path(message.id, ''), { key: KEYS.chatbot }), 400, 'invalid_param', 'Arg user must be provided.');
    assertError(await h.raw('GET', path(message.id, 'sq-finch'), { key: KEYS.workflow }), 400, 'not_chat_app', 'Please check if your app mode matches the right API route.');
    assertError(await h.raw('GET', path(message.id, 'sq-finch'), { key: KEYS.textGenerator }), 400, 'not_chat_app');
    assertError(await h.raw('GET', path(NO_SUCH, 'sq-finch'), { key: KEYS.chatbot }), 404, 'not_found', 'Message Not Exists.');
    assertError(await h.raw('GET', path(message.id, 'sq-someone-else'), { key: KEYS.chatbot }), 404, 'not_found', 'Message Not Exists.');
    assertError(await h.raw('GET', path('not-a-uuid', 'sq-finch'), { key: KEYS.chatbot }), 404, 'not_found', /^The requested URL was not found/);
    assertError(await h.raw('GET', path(message.id, 'sq-finch'), { key: null }), 401, 'unauthorized');
    // The agent has the feature off: its own message is found first, then refused.
    const events = h.client(KEYS.agent).streamChatMessage({ query: 'Weather?', inputs: {}, user: 'sq-finch' });
    let agentMessage = '';
    for await (const event of events) if (event.event === 'message_end') agentMessage = event.id;
    assertError(await h.raw('GET', path(NO_SUCH, 'sq-finch'), { key: KEYS.agent }), 404, 'not_found', 'Message Not Exists.');
    assertError(await h.raw('GET', path(agentMessage, 'sq-finch'), { key: KEYS.agent }), 403, 'app_suggested_questions_after_answer_disabled', "The 'Suggested Questions After Answer' feature is disabled. Please refresh your page.");
    // A deleted conversation's messages are gone.
    await h.client(KEYS.chatbot).deleteConversation((await h.client(KEYS.chatbot).listConversations({ user: 'sq-finch' })).data[0]!.id, 'sq-finch');
    await rejects(h.client(KEYS.chatbot).getSuggestedQuestions(message.id, 'sq-finch'), 404, 'not_found', 'Message Not Exists.');
  });
});

describe('POST /audio-to-text', () => {
  const speech = async (text: string, voice: string) => new Uint8Array(await (await h.client(KEYS.chatbot).textToAudio({ text, voice, user: 'stt' })).arrayBuffer());
  const transcribe = (bytes: Uint8Array | string, type: string | undefined, key: string | null = KEYS.chatbot, filename = 'speech.mp3') => {
    const body = new FormData();
    body.append('file', new Blob([bytes], type === undefined ? {} : { type }), filename);
    body.append('user', 'stt');
    return h.raw('POST', '/audio-to-text', { key, body });
  };

  test('the service’s own speech, MP3 or WAV, comes back as the text it spoke', async () => {
    const text = 'Your parcel left Zürich this morning — “tracking” 42.';
    const mp3 = await speech(`  ${text} `, 'alloy');
    assert.equal(taggedTranscript(mp3), text);
    assert.deepEqual(await h.client(KEYS.chatbot).audioToText(new Blob([mp3], { type: 'audio/mp3' }), 'speech.mp3', 'stt'), { text });
    const wav = await speech(text, 'fable');
    assert.deepEqual((await transcribe(wav, 'audio/wav', KEYS.workflow)).body, { text });
    // `audio/mpga` and, for M4A, `audio/x-m4a` are accepted as well.
    assert.deepEqual((await transcribe(mp3, 'audio/mpga')).body, { text });
    assert.deepEqual((await transcribe(mp3, 'Audio/MP3; codecs=mp3')).body, { text });
  });

  test('audio without a transcript tag: "" (no speech), or the transcript QA scripted', async () => {
    const m4a = new Uint8Array([0, 0, 0, 0x20, ...Buffer.from('ftypM4A '), ...new Uint8Array(24)]);
    assert.deepEqual((await transcribe(m4a, 'audio/x-m4a', KEYS.chatbot, 'memo.m4a')).body, { text: '' });
    assert.deepEqual((await transcribe(Buffer.from('#!AMR\n\x3c'), 'audio/amr')).body, { text: '' });
    const scripted = await h.raw('PATCH', '/_qa/settings', { json: { transcript: 'Where is my order?' } });
    assert.equal((scripted.body as { transcript: string }).transcript, 'Where is my order?');
    try {
      assert.deepEqual((await transcribe(m4a, 'audio/m4a')).body, { text: 'Where is my order?' });
      // A tagged recording still says what it says.
      assert.deepEqual((await transcribe(await speech('Hello there.', 'alloy'), 'audio/mp3')).body, { text: 'Hello there.' });
      assertError(await h.raw('PATCH', '/_qa/settings', { json: { transcript: 42 } }), 400, 'invalid_param', 'transcript must be null or a string of at most 100000 characters');
    } finally {
      await h.raw('PATCH', '/_qa/settings', { json: { transcript: null } });
    }
  });

  test('refusals, in Dify’s order: the feature, then no audio, its declared type, its size, undecodable bytes', async () => {
    const mp3 = await speech('Hi.', 'alloy');
    assertError(await transcribe(mp3, 'audio/mp3', KEYS.agent), 400, 'speech_to_text_disabled', 'Speech to text is disabled.');
    const form = (parts: [string, string | Blob, string?][]) => {
      const body = new FormData();
      for (const [name, value, filename] of parts) (value instanceof Blob ? body.append(name, value, filename!) : body.append(name, value));
      return body;
    };
    const send = (body: FormData | string, headers?: Record<string, string>) => h.raw('POST', '/audio-to-text', { key: KEYS.chatbot, body, headers });
    assertError(await send(form([['user', 'stt']])), 400, 'no_audio_uploaded', 'Please upload your audio.');
    assertError(await send(form([['file', 'not a file part']])), 400, 'no_audio_uploaded', 'Please upload your audio.');
    assertError(await send('{"file": "x"}', { 'Content-Type': 'application/json' }), 400, 'no_audio_uploaded', 'Please upload your audio.');
    // Dify goes by the declared type only: `audio/mpeg` (what browsers call MP3), Ogg and WebM are refused; so is a part without a type.
    for (const type of ['audio/mpeg', 'audio/ogg', 'audio/webm', 'video/mp4', 'text/plain']) {
      assertError(await transcribe(mp3, type), 415, 'unsupported_audio_type', 'Audio type not allowed.');
    }
    const untyped = ['--b0undary', 'Content-Disposition: form-data; name="file"; filename="a.mp3"', '', 'ID3', '--b0undary--', ''].join('\r\n');
    assertError(await send(untyped, { 'Content-Type': 'multipart/form-data; boundary=b0undary' }), 415, 'unsupported_audio_type');
    assertError(await transcribe(new Uint8Array(30 * 1024 * 1024 + 1), 'text/plain'), 415, 'unsupported_audio_type');
    assertError(await transcribe(new Uint8Array(30 * 1024 * 1024 + 1), 'audio/wav'), 413, 'audio_too_large', 'Audio size larger than 30 mb');
    assertError(await transcribe('just some text', 'audio/mp3'), 400, 'completion_request_error', /^Completion request failed\. The audio could not be decoded/);
    assertError(await transcribe(new Uint8Array(), 'audio/wav'), 400, 'completion_request_error');
    assertError(await transcribe(mp3, 'audio/mp3', null), 401, 'unauthorized');
  });

  test('the tag: ID3v2.4 TXXX "transcript" at an MP3’s head or in a WAV’s `id3 ` chunk; v2.3 UTF-16 as ffmpeg writes it', () => {
    const tag = transcriptTag('héllo');
    assert.equal(Buffer.from(tag.subarray(0, 4)).toString('latin1'), 'ID3\x04');
    assert.equal(taggedTranscript(Buffer.concat([tag, Buffer.from([0xff, 0xfb, 0x90, 0x64])])), 'héllo');
    const chunk = transcriptChunk('odd');
    assert.equal(chunk.length % 2, 0);
    const riff = (...chunks: Uint8Array[]) => {
      const body = Buffer.concat([Buffer.from('WAVE'), ...chunks]);
      const head = Buffer.alloc(8);
      head.write('RIFF');
      head.writeUInt32LE(body.length, 4);
      return Buffer.concat([head, body]);
    };
    const data = Buffer.concat([Buffer.from('data'), Buffer.from([4, 0, 0, 0, 1, 2, 3, 4])]);
    assert.equal(taggedTranscript(riff(data, chunk)), 'odd');
    assert.equal(taggedTranscript(riff(data)), undefined);
    // ID3v2.3, UTF-16 with a BOM, plain frame sizes; another TXXX first.
    const utf16 = (s: string) => Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from(s, 'utf16le')]);
    const txxx = (description: string, value: string) => {
      const body = Buffer.concat([Buffer.from([1]), utf16(description), Buffer.from([0, 0]), utf16(value), Buffer.from([0, 0])]);
      const head = Buffer.alloc(10);
      head.write('TXXX');
      head.writeUInt32BE(body.length, 4);
      return Buffer.concat([head, body]);
    };
    const frames = Buffer.concat([txxx('encoder', 'x'), txxx('TRANSCRIPT', 'Guten Tag'), Buffer.alloc(16)]);
    const v23 = Buffer.concat([Buffer.from('ID3'), Buffer.from([3, 0, 0, 0, 0, (frames.length >> 7) & 0x7f, frames.length & 0x7f]), frames]);
    assert.equal(taggedTranscript(v23), 'Guten Tag');
    assert.equal(taggedTranscript(Buffer.from('ID3')), undefined);
    assert.equal(taggedTranscript(Buffer.from('OggS\0\0\0\0')), undefined);
  });
});

describe('GET /app/feedbacks', () => {
  const feedbacks = async (key: string, query = '') => {
    const answer = await h.raw('GET', `/app/feedbacks${query}`, { key });
    assert.equal(answer.status, 200, JSON.stringify(answer.body));
    return (answer.body as { data: Record<string, unknown>[] }).data;
  };
  const ISO = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d{6})?$/;

  test('every rating of the key’s app, whoever gave it, newest first, in MessageFeedback.to_dict’s shape', async () => {
    const appId = defaultFixture().apps.find((a: { key: string }) => a.key === KEYS.legacyAgent).id;
    assert.deepEqual(await feedbacks(KEYS.legacyAgent), []);
    const bot = h.client(KEYS.legacyAgent);
    const asked = async (user: string) => {
      for await (const event of bot.streamChatMessage({ query: 'Weather in Oslo?', inputs: {}, user })) if (event.event === 'message_end') return event;
      throw new Error('no message_end');
    };
    const first = await asked('fb-ada');
    const second = await asked('fb-bo');
    await bot.submitFeedback(first.id, { rating: 'like', user: 'fb-ada' });
    await bot.submitFeedback(second.id, { rating: 'dislike', content: 'Too vague', user: 'fb-bo' });
    const listed = await feedbacks(KEYS.legacyAgent);
    assert.deepEqual(listed.map((f) => [f.message_id, f.rating, f.content]), [[second.id, 'dislike', 'Too vague'], [first.id, 'like', null]]);
    const [newest, oldest] = listed as [Record<string, unknown>, Record<string, unknown>];
    assert.deepEqual(Object.keys(newest), ['id', 'app_id', 'conversation_id', 'message_id', 'rating', 'content', 'from_source', 'from_end_user_id', 'from_account_id', 'created_at', 'updated_at']);
    assert.match(String(newest.id), UUID);
    assert.deepEqual([newest.app_id, newest.conversation_id, newest.from_source, newest.from_account_id], [appId, second.conversation_id, 'user', null]);
    assert.match(String(newest.from_end_user_id), UUID);
    assert.notEqual(newest.from_end_user_id, oldest.from_end_user_id);
    assert.match(String(newest.created_at), ISO);
    assert.equal(newest.updated_at, newest.created_at);
    // The client gives the same.
    assert.deepEqual((await bot.listAppFeedbacks()).data, listed);

    // A changed rating is the same row (id and times kept); a revoked one is gone; rating again makes a new, newest one.
    await bot.submitFeedback(first.id, { rating: 'dislike', content: 'Wrong city', user: 'fb-ada' });
    const changed = (await feedbacks(KEYS.legacyAgent))[1]!;
    assert.deepEqual([changed.id, changed.created_at, changed.rating, changed.content], [oldest.id, oldest.created_at, 'dislike', 'Wrong city']);
    await bot.submitFeedback(first.id, { rating: null, user: 'fb-ada' });
    assert.deepEqual((await feedbacks(KEYS.legacyAgent)).map((f) => f.message_id), [second.id]);
    await bot.submitFeedback(first.id, { rating: 'like', user: 'fb-ada' });
    const again = await feedbacks(KEYS.legacyAgent);
    assert.deepEqual(again.map((f) => f.message_id), [first.id, second.id]);
    assert.notEqual(again[0]!.id, oldest.id);

    // Paging: `page` from 1, `limit` up to 101.
    assert.deepEqual((await feedbacks(KEYS.legacyAgent, '?page=2&limit=1')).map((f) => f.message_id), [second.id]);
    assert.deepEqual(await feedbacks(KEYS.legacyAgent, '?page=3&limit=1'), []);
    assert.equal((await feedbacks(KEYS.legacyAgent, '?limit=101')).length, 2);
    // Other apps' ratings are not listed; a deleted conversation's are gone.
    assert.ok((await feedbacks(KEYS.chatbot)).every((f) => f.app_id !== appId));
    await bot.deleteConversation(second.conversation_id!, 'fb-bo');
    assert.deepEqual((await feedbacks(KEYS.legacyAgent)).map((f) => f.message_id), [first.id]);
  });

  test('a Text Generator’s ratings are listed too', async () => {
    const generator = h.client(KEYS.textGenerator);
    const text = await generator.createCompletion({ inputs: { product: 'Kettle', tone: 'warm' }, user: 'fb-cy' });
    await generator.submitFeedback(text.id, { rating: 'like', user: 'fb-cy' });
    const listed = await feedbacks(KEYS.textGenerator);
    assert.deepEqual(listed.map((f) => f.message_id), [text.id]);
  });

  test('query checks as pydantic’s FeedbackListQuery; no user needed, only the key', async () => {
    assertError(await h.raw('GET', '/app/feedbacks?limit=102', { key: KEYS.chatbot }), 400, 'invalid_param', /FeedbackListQuery\nlimit\n {2}Input should be less than or equal to 101/);
    assertError(await h.raw('GET', '/app/feedbacks?page=0', { key: KEYS.chatbot }), 400, 'invalid_param', /page\n {2}Input should be greater than or equal to 1/);
    assertError(await h.raw('GET', '/app/feedbacks?limit=abc', { key: KEYS.chatbot }), 400, 'invalid_param', /limit\n {2}Input should be a valid integer/);
    assertError(await h.raw('GET', '/app/feedbacks', { key: null }), 401, 'unauthorized');
    assert.deepEqual(await feedbacks(KEYS.workflow), []);
  });
});
