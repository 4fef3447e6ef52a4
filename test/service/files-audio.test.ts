/**
 * `POST /files/upload` (checks in the real order, size limits per kind, the 201 shape, the signed
 * preview link) and `POST /text-to-audio` (real speech in MP3, WAV and Ogg, sniffed content type,
 * chunked transfer, `message_id` over `text`).
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { audioContentType, sniffAudioType } from '../../src/service/audio/sniff.js';
import { assertError, KEYS, rejects, startApp, UUID, type Harness } from './app-helpers.js';

let h: Harness;
before(async () => {
  h = await startApp((raw) => {
    for (const app of raw.apps) app.parameters = { ...app.parameters, system_parameters: { file_size_limit: 2, image_file_size_limit: 1 } };
    raw.apps.find((a: { key: string }) => a.key === KEYS.agent).parameters.text_to_speech = { enabled: false };
  });
});
after(() => h.close());

const MB = 1024 * 1024;

function form(parts: { name: string; filename?: string; type?: string; body: string | Uint8Array }[]): FormData {
  const data = new FormData();
  for (const part of parts) {
    if (part.filename === undefined) data.append(part.name, part.body as string);
    else data.append(part.name, new Blob([part.body], part.type ? { type: part.type } : {}), part.filename);
  }
  return data;
}

describe('POST /files/upload', () => {
  test('answers 201 with the real shape; the file belongs to the uploading user', async () => {
    const answer = await h.raw('POST', '/files/upload', { body: form([{ name: 'file', filename: 'notes.md', body: '# Notes' }, { name: 'user', body: 'wren' }]) });
    assert.equal(answer.status, 201);
    const file = answer.body as Record<string, unknown>;
    assert.deepEqual(Object.keys(file), ['id', 'reference', 'name', 'size', 'extension', 'mime_type', 'created_by', 'created_at', 'preview_url', 'source_url', 'original_url', 'user_id', 'tenant_id', 'conversation_id', 'file_key']);
    assert.match(String(file.id), UUID);
    assert.deepEqual([file.name, file.size, file.extension, file.mime_type], ['notes.md', 7, 'md', 'text/markdown']);
    assert.match(String(file.created_by), UUID);
    assert.equal(file.tenant_id, '5b6f4c1e-2d0a-4c55-9a43-6f0de2d7c1a1');

    const again = await h.client(KEYS.workflow).uploadFile(new Blob(['x']), 'b.txt', 'wren');
    assert.equal(again.created_by, file.created_by);
    const other = await h.client(KEYS.workflow).uploadFile(new Blob(['x']), 'b.txt', 'finch');
    assert.notEqual(other.created_by, file.created_by);

    const preview = await fetch(String(file.source_url));
    assert.equal(preview.status, 200);
    assert.equal(preview.headers.get('content-type'), 'text/markdown');
    assert.equal(await preview.text(), '# Notes');
    const forged = String(file.source_url).replace(/sign=[^&]+/, 'sign=forged');
    assertError(await h.raw('GET', new URL(forged).pathname + new URL(forged).search, { key: null }), 404, 'not_found');
  });

  test('a name in UTF-8 is that name (werkzeug decodes part headers as UTF-8), and one over 200 characters is shortened as FileService.upload_file does: before the first dot, cut to 200, and the extension', async () => {
    const client = h.client(KEYS.workflow);
    assert.equal((await client.uploadFile(new Blob(['x']), '報告書 é.pdf', 'wren')).name, '報告書 é.pdf');
    const long = await client.uploadFile(new Blob(['x']), `${'😀'.repeat(201)}.tar.GZ`, 'wren');
    assert.deepEqual([long.name, long.extension], [`${'😀'.repeat(200)}.gz`, 'gz']);
    // 200 characters exactly (in code points, not UTF-16 units) is kept as it is.
    const exact = `${'😀'.repeat(196)}.txt`;
    assert.equal((await client.uploadFile(new Blob(['x']), exact, 'wren')).name, exact);
  });

  test('checks in the real order, with the real codes', async () => {
    const upload = (body: FormData | string, headers?: Record<string, string>) => h.raw('POST', '/files/upload', { body, headers });
    assertError(await upload(form([{ name: 'user', body: 'wren' }])), 400, 'no_file_uploaded', 'Please upload your file.');
    assertError(await upload('file=x', { 'Content-Type': 'application/x-www-form-urlencoded' }), 400, 'no_file_uploaded', 'Please upload your file.');
    assertError(await upload(form([{ name: 'file', filename: 'a.txt', body: 'a' }, { name: 'file', filename: 'b.txt', body: 'b' }])), 400, 'too_many_files', 'Only one file is allowed.');
    assertError(await upload(form([{ name: 'file', body: 'no filename' }])), 400, 'filename_not_exists_error', 'The specified filename does not exist.');
    assertError(await upload(form([{ name: 'file', filename: 'a:b.txt', body: 'a' }])), 400, 'invalid_param', 'Filename contains invalid characters');
    assertError(await upload(form([{ name: 'file', filename: 'big.png', body: new Uint8Array(1.5 * MB) }])), 413, 'file_too_large', /^File size exceeded\. \d+ > 1048576$/);
    assertError(await upload(form([{ name: 'file', filename: 'huge.txt', body: new Uint8Array(2 * MB + 1) }])), 413, 'file_too_large', /> 2097152$/);
    assertError(await upload(form([{ name: 'file', filename: 'tool.exe', body: 'MZ' }])), 400, 'invalid_param', "File extension '.exe' is not allowed for security reasons");
    // A file part with no Content-Type at all: the real service leaves its MIME type empty and refuses it.
    const raw = (typed: boolean) =>
      ['--b0undary', 'Content-Disposition: form-data; name="user"', '', 'wren', '--b0undary', 'Content-Disposition: form-data; name="file"; filename="a.txt"',
        ...(typed ? ['Content-Type: text/plain'] : []), '', 'hello', '--b0undary--', ''].join('\r\n');
    const multipart = { 'Content-Type': 'multipart/form-data; boundary=b0undary' };
    assertError(await upload(raw(false), multipart), 415, 'unsupported_file_type', 'File type not allowed.');
    assert.equal((await upload(raw(true), multipart)).status, 201);
    // Headers split across the smallest chunks are still read.
    const trickle = (text: string) => {
      const bytes = new TextEncoder().encode(text);
      let at = 0;
      return new ReadableStream<Uint8Array>({ pull: (c) => (at < bytes.length ? c.enqueue(bytes.subarray(at, ++at)) : c.close()) });
    };
    const slow = (typed: boolean) => fetch(`${h.svc.url}/files/upload`, { method: 'POST', body: trickle(raw(typed)), duplex: 'half', headers: { ...multipart, Authorization: `Bearer ${KEYS.workflow}` } } as RequestInit);
    assert.equal((await slow(false)).status, 415);
    assert.equal((await slow(true)).status, 201);
    // The size limit is per kind: a document may be larger than an image.
    const doc = await h.client(KEYS.workflow).uploadFile(new Blob([new Uint8Array(1.5 * MB)]), 'big.txt', 'wren');
    assert.equal(doc.size, 1.5 * MB);
  });
});

describe('POST /text-to-audio', () => {
  const speak = (body: Record<string, unknown>, key: string = KEYS.chatbot) => h.client(key).textToAudio({ user: 'wren', ...body });

  test('speaks the text in the voice’s container, labelled from the bytes, chunked', async () => {
    const expected: [string, string, (b: Uint8Array) => boolean][] = [
      // MP3 leads with its transcript tag (ID3v2), then the frames.
      ['alloy', 'audio/mpeg', (b) => Buffer.from(b.subarray(0, 3)).toString() === 'ID3'],
      ['fable', 'audio/wav', (b) => Buffer.from(b.subarray(0, 4)).toString() === 'RIFF'],
      ['nova', 'audio/ogg', (b) => Buffer.from(b.subarray(0, 4)).toString() === 'OggS'],
    ];
    for (const [voice, type, magic] of expected) {
      const response = await speak({ text: 'Your order has shipped.', voice });
      assert.equal(response.headers.get('content-type'), type, voice);
      assert.equal(response.headers.get('transfer-encoding'), 'chunked');
      assert.equal(response.headers.get('content-length'), null);
      const bytes = new Uint8Array(await response.arrayBuffer());
      assert.ok(magic(bytes), `${voice} starts with its container's signature`);
      assert.ok(bytes.length > 1000);
    }
    // No voice (or an unknown one): the app's configured voice, MP3.
    assert.equal((await speak({ text: 'Hello.' })).headers.get('content-type'), 'audio/mpeg');
    assert.equal((await speak({ text: 'Hello.', voice: 'no-such-voice' })).headers.get('content-type'), 'audio/mpeg');
  });

  test('the audio is speech: audible, and as long as the text', async () => {
    const pcm = async (text: string) => {
      const bytes = new Uint8Array(await (await speak({ text, voice: 'fable' })).arrayBuffer());
      return new Int16Array(bytes.buffer.slice(44));
    };
    const short = await pcm('Hello.');
    const long = await pcm('Hello. Your order left our warehouse yesterday and will arrive within two days, weather permitting.');
    assert.ok(long.length > short.length * 4, `${long.length} vs ${short.length} samples`);
    const rms = Math.sqrt(long.reduce((sum, s) => sum + s * s, 0) / long.length);
    assert.ok(rms > 500, `rms ${rms}`);
  });

  test('message_id wins over text', async () => {
    const bot = h.client(KEYS.chatbot);
    const message = await bot.sendChatMessage({ query: 'Open today?', inputs: {}, user: 'wren' });
    const fromMessage = new Uint8Array(await (await speak({ message_id: message.id, text: 'Something else entirely.', voice: 'fable' })).arrayBuffer());
    const fromAnswer = new Uint8Array(await (await speak({ text: message.answer, voice: 'fable' })).arrayBuffer());
    assert.deepEqual(fromMessage, fromAnswer);
  });

  test('refusals', async () => {
    await rejects(speak({}), 400, 'invalid_param', 'Text is required');
    await rejects(speak({ message_id: '8c9a2f0e-0000-4000-8000-000000000000', text: 'x' }), 404, 'not_found', 'Message Not Exists.');
    await rejects(speak({ text: 'x'.repeat(5001) }), 400, 'invalid_param', /Text is too long/);
    await rejects(speak({ text: 'Hi.' }, KEYS.agent), 400, 'invalid_param', 'TTS is not enabled');
    await rejects(speak({ text: 42 }), 400, 'invalid_param', /text\n {2}Input should be a valid string/);
  });
});

describe('audio content types from bytes', () => {
  const bytes = (...values: (number | string)[]) =>
    new Uint8Array(values.flatMap((v) => (typeof v === 'string' ? [...v].map((c) => c.charCodeAt(0)) : [v])));
  test('AAC, FLAC, MP4, MP3, Ogg, WAV, WebM; else the declared type; else audio/mpeg', () => {
    assert.equal(sniffAudioType(bytes(0xff, 0xf1, 0x50, 0x80)), 'audio/aac');
    assert.equal(sniffAudioType(bytes('fLaC', 0, 0)), 'audio/flac');
    assert.equal(sniffAudioType(bytes(0, 0, 0, 0x20, 'ftypM4A ')), 'audio/mp4');
    assert.equal(sniffAudioType(bytes('ID3', 4, 0)), 'audio/mpeg');
    assert.equal(sniffAudioType(bytes(0xff, 0xfb, 0x90, 0x64)), 'audio/mpeg');
    assert.equal(sniffAudioType(bytes('OggS', 0)), 'audio/ogg');
    assert.equal(sniffAudioType(bytes('RIFF', 0, 0, 0, 0, 'WAVE')), 'audio/wav');
    assert.equal(sniffAudioType(bytes(0x1a, 0x45, 0xdf, 0xa3)), 'audio/webm');
    assert.equal(sniffAudioType(bytes('hello')), undefined);
    assert.equal(audioContentType(bytes('hello'), 'audio/x-custom'), 'audio/x-custom');
    assert.equal(audioContentType(bytes('hello')), 'audio/mpeg');
  });
});
