/**
 * Inputs an independent audit found holding, growing or ending the service, each within what the
 * service's own checks accepted: a `top_k` of 2^32 - 1, an overlap just under the chunk size, a
 * chunked upload of gigabytes, a sentence with no full stop, keys that name `Object.prototype`'s
 * members, and a chunk updated with empty content.
 */
import assert from 'node:assert/strict';
import { connect } from 'node:net';
import { after, before, describe, test } from 'node:test';
import { splitSentences } from '../../src/service/audio/speech.js';
import { DOCUMENT_FILE_LIMIT_MB } from '../../src/service/knowledge/document-files.js';
import { EMBEDDING, HANDBOOK_ID, startKnowledge, uniqueName, type KnowledgeHarness } from './knowledge-helpers.js';

let h: KnowledgeHarness;

before(async () => {
  h = await startKnowledge();
});
after(() => h.close());

const MB = 1024 * 1024;

function call(path: string, init: RequestInit & { json?: unknown } = {}): Promise<Response> {
  const { json, ...rest } = init;
  return fetch(h.url + path, {
    ...rest,
    headers: { Authorization: 'Bearer dataset-demo', ...(json === undefined ? {} : { 'Content-Type': 'application/json' }), ...(rest.headers as Record<string, string>) },
    body: json === undefined ? rest.body : JSON.stringify(json),
  });
}

describe('inputs that held, grew or ended the service', () => {
  test('a top_k of 2^32 - 1 answers at once (the index allocated a result array of it and ran out of memory)', async () => {
    for (const search_method of ['semantic_search', 'keyword_search', 'full_text_search']) {
      const started = performance.now();
      const response = await call(`/datasets/${HANDBOOK_ID}/retrieve`, {
        method: 'POST',
        json: { query: 'review', retrieval_model: { search_method, reranking_enable: false, top_k: 4294967295, score_threshold_enabled: false } },
      });
      assert.equal(response.status, 200, search_method);
      assert.ok(((await response.json()) as { records: unknown[] }).records.length > 0, search_method);
      assert.ok(performance.now() - started < 2000, `${search_method}: ${Math.round(performance.now() - started)} ms`);
    }
    // Saved on the knowledge base, it is what every retrieval without a model of its own uses.
    const created = await h.kc.createDataset({ name: uniqueName('TopK'), indexing_technique: 'high_quality', ...EMBEDDING });
    const patched = await call(`/datasets/${created.id}`, { method: 'PATCH', json: { retrieval_model: { search_method: 'semantic_search', reranking_enable: false, top_k: 4294967296, score_threshold_enabled: false } } });
    assert.equal(patched.status, 200);
    assert.equal((await call(`/datasets/${created.id}/retrieve`, { method: 'POST', json: { query: 'review' } })).status, 200);
  });

  test('an overlap just under the chunk size fails the document, and the service goes on answering', async () => {
    const created = await h.kc.createDataset({ name: uniqueName('Overlap'), indexing_technique: 'high_quality', ...EMBEDDING });
    const { batch } = await h.kc.createDocumentByText(created.id, {
      name: 'overlap.txt',
      text: 'ab '.repeat(100_000),
      indexing_technique: 'high_quality',
      process_rule: { mode: 'custom', rules: { pre_processing_rules: [], segmentation: { separator: '###', max_tokens: 4000, chunk_overlap: 3999 } } },
    });
    const started = performance.now();
    const [status] = await h.kc.waitForIndexing(created.id, batch, { intervalMs: 20, timeoutMs: 10_000 });
    // It made 588 MB of chunks over half a minute, the service answering nothing meanwhile.
    assert.ok(performance.now() - started < 5000, `${Math.round(performance.now() - started)} ms`);
    assert.equal(status?.indexing_status, 'error');
    assert.match(status?.error ?? '', /chunk overlap is too close to the chunk size/);
  });

  test('a chunked document upload past the limit is refused while it arrives, not once all of it is held', async () => {
    const created = await h.kc.createDataset({ name: uniqueName('Upload'), indexing_technique: 'high_quality', ...EMBEDDING });
    const boundary = 'hostile-boundary';
    const head = new TextEncoder().encode(`--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="big.txt"\r\nContent-Type: text/plain\r\n\r\n`);
    const block = new Uint8Array(MB).fill(97);
    let sent = 0;
    // Up to 40 times the limit, with no Content-Length: the answer must come long before the end.
    const body = new ReadableStream<Uint8Array>({
      start: (controller) => controller.enqueue(head),
      pull: (controller) => {
        if (sent >= 40 * DOCUMENT_FILE_LIMIT_MB * MB) return controller.close();
        sent += block.length;
        controller.enqueue(block);
      },
    });
    const response = await call(`/datasets/${created.id}/document/create-by-file`, { method: 'POST', body, headers: { 'Content-Type': `multipart/form-data; boundary=${boundary}` }, duplex: 'half' } as RequestInit);
    assert.equal(response.status, 413);
    assert.equal(((await response.json()) as { code: string }).code, 'file_too_large');
    assert.ok(sent < 10 * DOCUMENT_FILE_LIMIT_MB * MB, `${sent / MB} MB sent before the answer`);
  });

  test('a long sentence with no full stop is spoken in pieces of at most 200 characters', () => {
    const pieces = splitSentences('word '.repeat(999));
    assert.ok(pieces.length >= 25, `${pieces.length} pieces`);
    assert.ok(pieces.every((p) => p.length <= 200));
    assert.equal(pieces.join(' '), 'word '.repeat(999).trim());
    assert.deepEqual(splitSentences('x'.repeat(450)), ['x'.repeat(200), 'x'.repeat(200), 'x'.repeat(50)]);
  });

  test('names of Object.prototype members are names like any other (a QA setting, a metadata field)', async () => {
    const origin = new URL(h.url).origin;
    for (const key of ['__proto__', 'constructor', 'toString']) {
      const response = await fetch(`${origin}/_qa/settings`, { method: 'PATCH', headers: { 'Content-Type': 'application/json' }, body: `{${JSON.stringify(key)}:{"latencyMs":5}}` });
      assert.equal(response.status, 400, key);
      assert.match(((await response.json()) as { message: string }).message, /Unknown setting/, key);
    }
    const created = await h.kc.createDataset({ name: uniqueName('Meta'), indexing_technique: 'high_quality', ...EMBEDDING });
    for (const name of ['toString', 'constructor', 'hasOwnProperty']) {
      assert.equal((await h.kc.createMetadataField(created.id, { type: 'string', name })).name, name);
    }
  });

  test('a chunk updated with empty content keeps its content, as Dify does', async () => {
    const created = await h.kc.createDataset({ name: uniqueName('Segment'), indexing_technique: 'high_quality', ...EMBEDDING });
    const { document, batch } = await h.kc.createDocumentByText(created.id, { name: 'one.txt', text: 'One chunk of text.', indexing_technique: 'high_quality', process_rule: { mode: 'automatic' } });
    await h.kc.waitForIndexing(created.id, batch, { intervalMs: 5, timeoutMs: 5000 });
    const [segment] = (await h.kc.listSegments(created.id, document.id)).data;
    const updated = await h.kc.updateSegment(created.id, document.id, segment!.id, { segment: { content: '', enabled: true } });
    assert.equal(updated.data.content, 'One chunk of text.');
  });

  test('app-side ids in upper case or without hyphens find their record, as the real service reads them', async () => {
    const app = (path: string, init: RequestInit & { json?: unknown } = {}) => call(path, { ...init, headers: { Authorization: 'Bearer app-demo-chatbot' } });
    const first = await app('/chat-messages', { method: 'POST', json: { inputs: {}, query: 'hello', user: 'alice', response_mode: 'blocking' } });
    assert.equal(first.status, 200);
    const { conversation_id: conversation, message_id: message } = (await first.json()) as { conversation_id: string; message_id: string };
    const upper = conversation.toUpperCase();
    const bare = message.replaceAll('-', '');
    assert.equal((await app(`/conversations/${upper}/variables?user=alice`)).status, 200);
    const messages = (await (await app(`/messages?conversation_id=${upper}&user=alice`)).json()) as { data: { id: string }[] };
    assert.deepEqual(messages.data.map((m) => m.id), [message]);
    assert.equal((await app(`/messages/${bare}/feedbacks`, { method: 'POST', json: { rating: 'like', user: 'alice' } })).status, 200);
    const next = await app('/chat-messages', { method: 'POST', json: { inputs: {}, query: 'again', user: 'alice', response_mode: 'blocking', conversation_id: upper } });
    assert.equal(((await next.json()) as { conversation_id: string }).conversation_id, conversation);
  });

  test('a request line no Request can be made of, and a page past 2^53, answer in the API\'s shape', async () => {
    const { hostname, port } = new URL(h.url);
    for (const line of ['GET * HTTP/1.1', 'GET /v1/site\\..\\datasets HTTP/1.1']) {
      const answer = await new Promise<string>((resolve) => {
        const socket = connect(Number(port), hostname, () => socket.end(`${line}\r\nHost: x\r\nConnection: close\r\n\r\n`));
        let text = '';
        socket.on('data', (d) => (text += d.toString('latin1')));
        socket.on('close', () => resolve(text));
      });
      assert.match(answer, /^HTTP\/1\.1 400 /, line);
      assert.deepEqual(JSON.parse(answer.slice(answer.indexOf('\r\n\r\n') + 4)), { code: 'bad_request', message: 'The request line or its Host header is malformed.', status: 400 }, line);
    }
    const page = await call(`/datasets?page=${'9'.repeat(400)}`);
    assert.equal(page.status, 400);
    assert.match(((await page.json()) as { message: string }).message, /less than or equal to 9007199254740991/);
  });
});
