/**
 * Documents' original files over real HTTP: the signed download link (`DocumentDownloadApi`), the
 * ZIP of several (`DocumentBatchDownloadZipApi`, `FileService.build_upload_files_zip_tempfile`)
 * and older builds' upload-file detail (`UploadFileApi`); the links are fetched and the archive
 * unzipped, and the bytes compared with what was uploaded.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { unzipSync } from 'fflate';
import type { Dataset } from '../../src/protocol/index.js';
import { HANDBOOK_ID, rejects, startKnowledge, uniqueName, VENDOR_ID, type KnowledgeHarness } from './knowledge-helpers.js';

let h: KnowledgeHarness;

before(async () => {
  h = await startKnowledge();
});
after(() => h.close());

const SIGNED = /^http:\/\/127\.0\.0\.1:\d+\/files\/([0-9a-f-]{36})\/file-preview\?timestamp=\d+&nonce=[0-9a-f]{32}&sign=[\w-]+$/;
/** Not UTF-8 (0xE9 alone), and HTML whose indexed text differs from the file: the bytes served must be the file's. */
const LATIN1 = Uint8Array.from([0x63, 0x61, 0x66, 0xe9, 0x0a]);
const PAGE = '<html><body><h1>Returns</h1><script>x()</script><p>Within 30 days.</p></body></html>';

async function dataset(): Promise<Dataset> {
  return h.kc.createDataset({ name: uniqueName('Files'), indexing_technique: 'economy' });
}

/** A document from a file, indexed. */
async function byFile(datasetId: string, bytes: Uint8Array | string, name: string): Promise<string> {
  const { document, batch } = await h.kc.createDocumentByFile(datasetId, new Blob([bytes]), name, { process_rule: { mode: 'automatic' } });
  await h.kc.waitForIndexing(datasetId, batch);
  return document.id;
}

const bytesOf = async (response: Response) => new Uint8Array(await response.arrayBuffer());

async function raw(method: string, path: string, body?: unknown): Promise<Response> {
  return fetch(`${h.url}${path}`, {
    method,
    headers: { Authorization: 'Bearer dataset-demo', ...(body === undefined ? {} : { 'Content-Type': 'application/json' }) },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
}

describe('GET /datasets/{id}/documents/{document_id}/download', () => {
  test("answers {url}: a signed link that downloads the document's original bytes", async () => {
    const ds = await dataset();
    const latin = await byFile(ds.id, LATIN1, 'café.txt');
    const page = await byFile(ds.id, PAGE, 'returns.html');
    const { document: text } = await h.kc.createDocumentByText(ds.id, { name: 'note', text: 'Plain text é.', process_rule: { mode: 'automatic' } });

    const answer = await h.kc.getDocumentDownloadUrl(ds.id, latin);
    assert.deepEqual(Object.keys(answer), ['url']);
    assert.ok(answer.url.endsWith('&as_attachment=true'), 'as_attachment=true ends the link, outside the signature');
    const link = answer.url.slice(0, -'&as_attachment=true'.length);
    const detail = await h.kc.getDocument(ds.id, latin);
    assert.equal(SIGNED.exec(link)?.[1], (detail.data_source_info as { upload_file: { id: string } }).upload_file.id);

    const download = await fetch(answer.url);
    assert.equal(download.status, 200);
    assert.equal(download.headers.get('content-type'), 'application/octet-stream');
    assert.equal(download.headers.get('content-disposition'), "attachment; filename*=UTF-8''caf%C3%A9.txt");
    assert.deepEqual(await bytesOf(download), LATIN1);
    // Without `as_attachment` the same signature previews the file under its own type.
    const preview = await fetch(link);
    assert.equal(preview.headers.get('content-type'), 'text/plain');
    assert.deepEqual(await bytesOf(preview), LATIN1);

    assert.equal(await (await fetch((await h.kc.getDocumentDownloadUrl(ds.id, page)).url)).text(), PAGE, 'the HTML file, not its text');
    assert.equal(await (await fetch((await h.kc.getDocumentDownloadUrl(ds.id, text.id)).url)).text(), 'Plain text é.', 'by text: the text file');
    const fixtureDoc = (await h.kc.listDocuments(HANDBOOK_ID)).data[0]!;
    const fixtureFile = await fetch((await h.kc.getDocumentDownloadUrl(HANDBOOK_ID, fixtureDoc.id)).url);
    assert.equal(fixtureFile.status, 200);
    assert.ok((await fixtureFile.text()).length > 0);
  });

  test('a tampered or stale link is refused as the app-side preview refuses it', async () => {
    const ds = await dataset();
    const id = await byFile(ds.id, 'secret', 'a.txt');
    const { url } = await h.kc.getDocumentDownloadUrl(ds.id, id);
    for (const forged of [url.replace(/sign=[^&]+/, 'sign=forged'), url.replace(/timestamp=\d+/, 'timestamp=1'), url.replace(/nonce=\w+/, 'nonce=00')]) {
      const res = await fetch(forged);
      assert.equal(res.status, 404, forged);
      assert.deepEqual(await res.json(), { code: 'not_found', message: 'File not found or signature is invalid.', status: 404 });
    }
    // The file goes with its document.
    await h.kc.deleteDocument(ds.id, id);
    assert.equal((await fetch(url)).status, 404);
  });

  test('errors in the real order: dataset, document, key scope', async () => {
    const ds = await dataset();
    const id = await byFile(ds.id, 'x', 'a.txt');
    const unknown = '00000000-0000-4000-8000-000000000000';
    await rejects(h.kc.getDocumentDownloadUrl(unknown, id), { status: 404, code: 'not_found', message: 'Dataset not found.' });
    await rejects(h.kc.getDocumentDownloadUrl(ds.id, unknown), { status: 404, code: 'not_found', message: 'Document not found.' });
    // A document of another knowledge base is not found in this one.
    await rejects(h.kc.getDocumentDownloadUrl(HANDBOOK_ID, id), { status: 404, code: 'not_found', message: 'Document not found.' });
    await rejects(h.kc.getDocumentDownloadUrl(ds.id, 'not-a-uuid'), { status: 404, code: 'not_found' });
    await rejects(h.scoped.getDocumentDownloadUrl(ds.id, id), { status: 403, code: 'forbidden' });
  });

  test('counts against the subscription rate limit, unlike other reads (Dify decorates it)', async () => {
    const limited = await startKnowledge((raw) => {
      raw.knowledge.subscription.knowledge_rate_limit = { enabled: true, limit: 1, window_seconds: 60 };
    });
    try {
      const doc = (await limited.kc.listDocuments(HANDBOOK_ID)).data[0]!;
      await limited.kc.getDocumentUploadFile(HANDBOOK_ID, doc.id);
      await limited.kc.getDocumentDownloadUrl(HANDBOOK_ID, doc.id);
      await rejects(limited.kc.getDocumentDownloadUrl(HANDBOOK_ID, doc.id), { status: 403, code: 'forbidden', message: /rate limit/ });
    } finally {
      await limited.close();
    }
  });
});

describe('POST /datasets/{id}/documents/download-zip', () => {
  test("a ZIP of the documents' files in the order asked; repeated names get ' (n)' before the extension", async () => {
    const ds = await dataset();
    const first = await byFile(ds.id, LATIN1, 'notes.txt');
    const second = await byFile(ds.id, 'second file', 'notes.txt');
    const page = await byFile(ds.id, PAGE, 'returns.html');
    const { document: text } = await h.kc.createDocumentByText(ds.id, { name: 'notes.txt', text: 'by text', process_rule: { mode: 'automatic' } });

    const res = await h.kc.downloadDocumentsZip(ds.id, [page, first, second, text.id, first.toUpperCase()]);
    assert.equal(res.status, 200);
    assert.equal(res.headers.get('content-type'), 'application/zip');
    assert.match(res.headers.get('content-disposition') ?? '', /^attachment; filename=[0-9a-f]{32}\.zip$/);
    const zip = await bytesOf(res);
    assert.equal(Number(res.headers.get('content-length')), zip.byteLength);
    const entries = unzipSync(zip);
    assert.deepEqual(Object.keys(entries), ['returns.html', 'notes.txt', 'notes (1).txt', 'notes (2).txt', 'notes (3).txt']);
    const text8 = (b: Uint8Array) => new TextDecoder().decode(b);
    assert.equal(text8(entries['returns.html']!), PAGE);
    assert.deepEqual(entries['notes.txt'], LATIN1);
    assert.equal(text8(entries['notes (1).txt']!), 'second file');
    assert.equal(text8(entries['notes (2).txt']!), 'by text');
    assert.deepEqual(entries['notes (3).txt'], LATIN1, 'an id asked twice is packed twice');
    // A fresh name each time.
    const again = await h.kc.downloadDocumentsZip(ds.id, [first]);
    assert.notEqual(again.headers.get('content-disposition'), res.headers.get('content-disposition'));
    assert.deepEqual(Object.keys(unzipSync(await bytesOf(again))), ['notes.txt']);
  });

  test('the payload as pydantic checks DocumentBatchDownloadZipPayload: 400 invalid_param', async () => {
    const ds = await dataset();
    const id = await byFile(ds.id, 'x', 'a.txt');
    const message = (field: string, text: string) => `1 validation error for DocumentBatchDownloadZipPayload\n${field}\n  ${text}`;
    const cases: [unknown, string][] = [
      [{}, message('document_ids', 'Field required')],
      [{ document_ids: [] }, message('document_ids', 'List should have at least 1 item after validation, not 0')],
      [{ document_ids: Array.from({ length: 101 }, () => id) }, message('document_ids', 'List should have at most 100 items after validation, not 101')],
      [{ document_ids: id }, message('document_ids', 'Input should be a valid list')],
      [{ document_ids: ['not-a-uuid'] }, message('document_ids.0', 'Input should be a valid UUID, invalid character: expected an optional prefix of `urn:uuid:` followed by [0-9a-fA-F-], found `n` at 1')],
      [{ document_ids: ['abc123'] }, message('document_ids.0', 'Input should be a valid UUID, invalid length: expected length 32 for simple format, found 6')],
      [{ document_ids: [id, 7] }, message('document_ids.1', 'UUID input should be a string, bytes or UUID object')],
    ];
    for (const [body, expected] of cases) {
      const res = await raw('POST', `/datasets/${ds.id}/documents/download-zip`, body);
      assert.equal(res.status, 400, JSON.stringify(body).slice(0, 60));
      assert.deepEqual(await res.json(), { code: 'invalid_param', message: expected, status: 400 });
    }
    // pydantic's other spellings of a UUID name the same document.
    const hex = id.replaceAll('-', '');
    for (const spelling of [hex, `{${id}}`, `urn:uuid:${id}`]) assert.equal((await h.kc.downloadDocumentsZip(ds.id, [spelling])).status, 200, spelling);
  });

  test('another method is 405, as its path names no document (ids are routed as UUIDs)', async () => {
    const ds = await dataset();
    for (const path of ['documents/download-zip', 'documents/metadata']) {
      const res = await raw('GET', `/datasets/${ds.id}/${path}`);
      assert.equal(res.status, 405, path);
      assert.equal(((await res.json()) as { code: string }).code, 'method_not_allowed');
    }
    // A segment that is no UUID where one is routed matches nothing: the generic 404.
    const res = await raw('GET', `/datasets/${ds.id}/documents/not-a-uuid/download`);
    assert.equal(res.status, 404);
    assert.equal(((await res.json()) as { code: string }).code, 'not_found');
  });

  test('an id not of this knowledge base: 404 Document not found., before anything is packed', async () => {
    const ds = await dataset();
    const id = await byFile(ds.id, 'x', 'a.txt');
    const handbookDoc = (await h.kc.listDocuments(HANDBOOK_ID)).data[0]!;
    await rejects(h.kc.downloadDocumentsZip(ds.id, [id, '00000000-0000-4000-8000-000000000000']), { status: 404, code: 'not_found', message: 'Document not found.' });
    await rejects(h.kc.downloadDocumentsZip(ds.id, [handbookDoc.id]), { status: 404, code: 'not_found', message: 'Document not found.' });
    await rejects(h.kc.downloadDocumentsZip('00000000-0000-4000-8000-000000000000', [id]), { status: 404, code: 'not_found', message: 'Dataset not found.' });
    await rejects(h.scoped.downloadDocumentsZip(VENDOR_ID, [id]), { status: 403, code: 'forbidden' });
  });
});

describe('GET /datasets/{id}/documents/{document_id}/upload-file (older builds)', () => {
  test('the file with signed preview and download links; created_at a float', async () => {
    const ds = await dataset();
    const id = await byFile(ds.id, LATIN1, 'café.txt');
    const res = await raw('GET', `/datasets/${ds.id}/documents/${id}/upload-file`);
    assert.equal(res.status, 200);
    const text = await res.text();
    assert.match(text, /"created_at":\d+\.\d+\}$/, 'datetime.timestamp() is a float');
    const file = await h.kc.getDocumentUploadFile(ds.id, id);
    assert.deepEqual(Object.keys(file), ['id', 'name', 'size', 'extension', 'url', 'download_url', 'mime_type', 'created_by', 'created_at']);
    const detail = (await h.kc.getDocument(ds.id, id)).data_source_info as { upload_file: Record<string, unknown> };
    assert.deepEqual(
      { id: file.id, name: file.name, size: file.size, extension: file.extension, mime_type: file.mime_type, created_by: file.created_by, created_at: file.created_at },
      detail.upload_file,
    );
    assert.deepEqual([file.name, file.size, file.extension, file.mime_type], ['café.txt', LATIN1.byteLength, 'txt', 'text/plain']);
    assert.equal(SIGNED.exec(file.url)?.[1], file.id);
    assert.equal(file.download_url, `${file.url}&as_attachment=true`);
    assert.deepEqual(await bytesOf(await fetch(file.url)), LATIN1);
    const download = await fetch(file.download_url);
    assert.match(download.headers.get('content-disposition') ?? '', /^attachment;/);
    assert.deepEqual(await bytesOf(download), LATIN1);
    await rejects(h.kc.getDocumentUploadFile(ds.id, '00000000-0000-4000-8000-000000000000'), { status: 404, code: 'not_found', message: 'Document not found.' });
  });
});

describe('the upload file of a document, named and sized as FileService stores it', () => {
  test('by text: its size in characters (upload_text: len(text)), its name cut to 200 characters; the bytes UTF-8', async () => {
    const ds = await dataset();
    // 5 characters, 8 bytes in UTF-8 (é: 2, 😀: 4, one code point each, as Python counts).
    const text = 'é😀abc';
    const name = '😀'.repeat(150) + 'n'.repeat(100);
    const { document } = await h.kc.createDocumentByText(ds.id, { name, text, indexing_technique: 'economy', process_rule: { mode: 'automatic' } });
    const file = await h.kc.getDocumentUploadFile(ds.id, document.id);
    assert.equal(file.size, 5);
    assert.equal(file.name, '😀'.repeat(150) + 'n'.repeat(50));
    assert.deepEqual(await bytesOf(await fetch(file.url)), new TextEncoder().encode(text));
    assert.equal(document.name, name, 'the document keeps the whole name');
  });

  test('by file: its size in bytes; a name over 200 characters is the part before the first dot, cut to 200, and the extension', async () => {
    const ds = await dataset();
    const long = `${'a'.repeat(190)}.v2.${'b'.repeat(20)}.TXT`;
    const id = await byFile(ds.id, 'é', long);
    const file = await h.kc.getDocumentUploadFile(ds.id, id);
    assert.deepEqual([file.name, file.size], [`${'a'.repeat(190)}.txt`, 2]);
    assert.equal((await h.kc.getDocument(ds.id, id)).name, file.name, 'the document is named as its upload file (upload_file.name)');
    const short = await byFile(ds.id, 'x', 'notes.v2.txt');
    assert.equal((await h.kc.getDocumentUploadFile(ds.id, short)).name, 'notes.v2.txt');
  });
});
