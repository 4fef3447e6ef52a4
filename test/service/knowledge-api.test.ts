/**
 * Conformance of the everyday knowledge API beyond the seed, over real HTTP through KnowledgeClient
 * (and raw fetch where the status or the body shape is the point): deleting knowledge bases,
 * documents by file and their updates, document detail and delete, chunks and child chunks, tags,
 * metadata and the models listing; with scoped keys and the rate limit.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { ServiceError } from '../../src/client/knowledge.js';
import type { MetadataField } from '../../src/protocol/index.js';
import {
  ARCHIVE_ID,
  EMBEDDING,
  EXTERNAL_ID,
  HANDBOOK_ID,
  rejects,
  startKnowledge,
  SUPPORT_FAQ_ID,
  uniqueName,
  type KnowledgeHarness,
} from './knowledge-helpers.js';

let h: KnowledgeHarness;
before(async () => {
  h = await startKnowledge();
});
after(() => h.close());

const raw = (method: string, path: string, body?: unknown, key = 'dataset-demo') =>
  fetch(`${h.url}${path}`, {
    method,
    headers: { Authorization: `Bearer ${key}`, ...(body === undefined ? {} : { 'Content-Type': 'application/json' }) },
    body: body === undefined ? undefined : JSON.stringify(body),
  });

const textFile = (text: string, type = 'text/plain') => new Blob([text], { type });

/** A high-quality knowledge base with one indexed document. */
async function withDocument(text = 'First paragraph about ovens.\n\nSecond paragraph about bikes.', docForm?: 'qa_model' | 'hierarchical_model') {
  const ds = await h.kc.createDataset({ name: uniqueName('Api'), indexing_technique: 'high_quality', ...EMBEDDING });
  const processRule =
    docForm === 'hierarchical_model'
      ? { mode: 'hierarchical' as const, rules: { pre_processing_rules: [], segmentation: { separator: '\n\n', max_tokens: 500 }, parent_mode: 'paragraph' as const, subchunk_segmentation: { separator: '.', max_tokens: 100 } } }
      : { mode: 'custom' as const, rules: { pre_processing_rules: [], segmentation: { separator: '\n\n', max_tokens: 500 } } };
  const { document, batch } = await h.kc.createDocumentByText(ds.id, { name: 'doc.txt', text, doc_form: docForm, process_rule: processRule });
  await h.kc.waitForIndexing(ds.id, batch, { intervalMs: 10 });
  return { datasetId: ds.id, documentId: document.id };
}

describe('DELETE /datasets/{id}', () => {
  test('204 and gone; a knowledge base an app uses is refused with 409', async () => {
    const { datasetId } = await withDocument();
    const res = await raw('DELETE', `/datasets/${datasetId}`);
    assert.equal(res.status, 204);
    assert.equal(await res.text(), '');
    await rejects(h.kc.getDataset(datasetId), { status: 404, code: 'not_found', message: 'Dataset not found.' });
    await rejects(h.kc.deleteDataset(HANDBOOK_ID), {
      status: 409,
      code: 'dataset_in_use',
      message: 'The dataset is being used by some apps. Please remove the dataset from the apps before deleting it.',
    });
    await rejects(h.scoped.deleteDataset(SUPPORT_FAQ_ID), { status: 403, code: 'forbidden' });
  });
});

describe('documents by file', () => {
  test('create-by-file: the file names the document, its text is indexed', async () => {
    const ds = await h.kc.createDataset({ name: uniqueName('File'), indexing_technique: 'high_quality', ...EMBEDDING });
    const { document, batch } = await h.kc.createDocumentByFile(ds.id, textFile('# Notes\n\nKettles boil water.'), 'notes.md', {
      process_rule: { mode: 'automatic' },
    });
    assert.equal(document.name, 'notes.md');
    assert.equal(document.indexing_status, 'waiting');
    assert.equal(document.data_source_type, 'upload_file');
    assert.match(batch, /^\d{20}$/);
    await h.kc.waitForIndexing(ds.id, batch, { intervalMs: 10 });
    const detail = await h.kc.getDocument(ds.id, document.id);
    assert.deepEqual((detail.data_source_info as { upload_file: { name: string; extension: string; mime_type: string } }).upload_file.name, 'notes.md');
    const segments = await h.kc.listSegments(ds.id, document.id);
    assert.match(segments.data.map((s) => s.content).join(' '), /Kettles boil water/);
    // An HTML page is read as its text.
    const page = await h.kc.createDocumentByFile(ds.id, textFile('<html><body><p>Teapots &amp; cups</p><script>x()</script></body></html>', 'text/html'), 'page.html');
    await h.kc.waitForIndexing(ds.id, page.batch, { intervalMs: 10 });
    assert.equal((await h.kc.listSegments(ds.id, page.document.id)).data[0]!.content, 'Teapots & cups');
  });

  test('create-by-file errors, in the real order', async () => {
    const fresh = await h.kc.createDataset({ name: uniqueName('File') });
    const form = (parts: [string, string | Blob, string?][]) => {
      const f = new FormData();
      for (const [name, value, filename] of parts) (typeof value === 'string' ? f.append(name, value) : f.append(name, value, filename));
      return f;
    };
    const send = (id: string, body: FormData | string) =>
      h.kc.transport.json('POST', `/datasets/${id}/document/create-by-file`, { body });
    await rejects(send(EXTERNAL_ID, form([['file', textFile('x'), 'a.txt']])), { status: 400, code: 'invalid_param', message: 'External datasets are not supported.' });
    await rejects(send(fresh.id, form([['file', textFile('x'), 'a.txt']])), { status: 400, code: 'invalid_param', message: 'indexing_technique is required.' });
    const data = JSON.stringify({ indexing_technique: 'economy', process_rule: { mode: 'automatic' } });
    await rejects(send(fresh.id, form([['data', data]])), { status: 400, code: 'no_file_uploaded', message: 'Please upload your file.' });
    await rejects(send(fresh.id, form([['data', data], ['file', textFile('x'), 'a.txt'], ['file', textFile('y'), 'b.txt']])), { status: 400, code: 'too_many_files', message: 'Only one file is allowed.' });
    // Any second file part, whatever its name (Dify counts `request.files`).
    await rejects(send(fresh.id, form([['data', data], ['file', textFile('x'), 'a.txt'], ['file2', textFile('y'), 'b.txt']])), { status: 400, code: 'too_many_files', message: 'Only one file is allowed.' });
    await rejects(send(fresh.id, form([['data', data], ['file', textFile('%PDF'), 'a.pdf']])), { status: 415, code: 'unsupported_file_type', message: 'File type not allowed.' });
    await rejects(send(fresh.id, form([['data', '{not json'], ['file', textFile('x'), 'a.txt']])), { status: 400, code: 'invalid_param', message: /^Invalid JSON in the data part/ });
    await rejects(send(fresh.id, form([['data', JSON.stringify({ indexing_technique: 'economy' })], ['file', textFile('x'), 'a.txt']])), {
      status: 400,
      code: 'invalid_param',
      message: 'process_rule is required.',
    });
    await rejects(send(fresh.id, form([['data', JSON.stringify({ indexing_technique: 'fast' })], ['file', textFile('x'), 'a.txt']])), {
      status: 400,
      code: 'invalid_param',
      message: /^1 validation error for KnowledgeConfig\nindexing_technique\n/,
    });
    assert.equal((await h.kc.listDocuments(fresh.id)).total, 0, 'nothing was created');
    await rejects(h.scoped.createDocumentByFile(SUPPORT_FAQ_ID, textFile('x'), 'a.txt'), { status: 403, code: 'forbidden' });
  });

  test('update-by-text re-indexes the new text under a new batch; update-by-file takes the new file', async () => {
    const { datasetId, documentId } = await withDocument();
    const updated = await h.kc.updateDocumentByText(datasetId, documentId, { name: 'renamed.txt', text: 'Brand new words about kites.' });
    assert.equal(updated.document.id, documentId);
    assert.equal(updated.document.name, 'renamed.txt');
    await h.kc.waitForIndexing(datasetId, updated.batch, { intervalMs: 10 });
    const contents = (await h.kc.listSegments(datasetId, documentId)).data.map((s) => s.content);
    assert.deepEqual(contents, ['Brand new words about kites.']);
    // A rename alone keeps the text (and re-indexes it).
    const renamed = await h.kc.updateDocumentByText(datasetId, documentId, { name: 'kites.txt' });
    await h.kc.waitForIndexing(datasetId, renamed.batch, { intervalMs: 10 });
    assert.deepEqual((await h.kc.listSegments(datasetId, documentId)).data.map((s) => s.content), contents);

    const byFile = await h.kc.updateDocumentByFile(datasetId, documentId, { file: textFile('Gliders ride thermals.'), filename: 'gliders.txt' });
    assert.equal(byFile.document.name, 'gliders.txt');
    await h.kc.waitForIndexing(datasetId, byFile.batch, { intervalMs: 10 });
    assert.deepEqual((await h.kc.listSegments(datasetId, documentId)).data.map((s) => s.content), ['Gliders ride thermals.']);
    assert.equal((await h.kc.retrieve(datasetId, { query: 'gliders thermals' })).records[0]!.segment.content, 'Gliders ride thermals.');
  });

  test('update errors: text without a name, an unknown or unavailable document', async () => {
    const { datasetId, documentId } = await withDocument();
    await rejects(h.kc.updateDocumentByText(datasetId, documentId, { text: 'x' }), {
      status: 400,
      code: 'invalid_param',
      message: '1 validation error for DocumentTextUpdate\n  Value error, name is required when text is provided',
    });
    await rejects(h.kc.updateDocumentByText(datasetId, '00000000-0000-4000-8000-000000000000', { name: 'a', text: 'x' }), { status: 404, code: 'not_found', message: 'Document not found.' });
    await h.kc.updateDocumentStatus(datasetId, 'disable', [documentId]);
    await rejects(h.kc.updateDocumentByText(datasetId, documentId, { name: 'a', text: 'x' }), { status: 400, code: 'invalid_param', message: 'Document is not available' });
    await rejects(h.kc.updateDocumentByFile(datasetId, documentId, { file: textFile('x'), filename: 'a.exe' }), { status: 415, code: 'unsupported_file_type' });
  });
});

describe('document detail and delete', () => {
  test('detail: all, only the metadata, all but it; a bad view and an unknown document', async () => {
    const { datasetId, documentId } = await withDocument();
    const all = await h.kc.getDocument(datasetId, documentId);
    assert.deepEqual(Object.keys(all).sort(), [
      'archived', 'average_segment_length', 'completed_at', 'created_at', 'created_by', 'created_from', 'data_source_info', 'data_source_type',
      'dataset_process_rule', 'dataset_process_rule_id', 'disabled_at', 'disabled_by', 'display_status', 'doc_form', 'doc_language', 'doc_metadata',
      'doc_type', 'document_process_rule', 'enabled', 'error', 'hit_count', 'id', 'indexing_latency', 'indexing_status', 'name', 'need_summary',
      'position', 'segment_count', 'summary_index_status', 'tokens', 'updated_at',
    ]);
    assert.equal(all.segment_count, 2);
    assert.equal(all.display_status, 'available');
    assert.deepEqual(all.document_process_rule?.rules.segmentation, { separator: '\n\n', max_tokens: 500, chunk_overlap: 0 });
    assert.deepEqual(Object.keys(await h.kc.getDocument(datasetId, documentId, 'only')).sort(), ['doc_metadata', 'doc_type', 'id']);
    const without = await h.kc.getDocument(datasetId, documentId, 'without');
    assert.ok(!('doc_metadata' in without) && !('doc_type' in without) && 'segment_count' in without);
    await rejects(h.kc.getDocument(datasetId, documentId, 'some' as never), { status: 400, code: 'invalid_metadata', message: 'Invalid metadata value: some' });
    await rejects(h.kc.getDocument(datasetId, '00000000-0000-4000-8000-000000000000'), { status: 404, code: 'not_found', message: 'Document not found.' });
  });

  test('delete: 204, then "Document Not Exists."; archived and indexing documents are refused', async () => {
    const { datasetId, documentId } = await withDocument();
    const res = await raw('DELETE', `/datasets/${datasetId}/documents/${documentId}`);
    assert.equal(res.status, 204);
    await rejects(h.kc.deleteDocument(datasetId, documentId), { status: 404, code: 'not_found', message: 'Document Not Exists.' });
    const archived = (await h.kc.listDocuments(ARCHIVE_ID)).data.find((d) => d.archived)!;
    await rejects(h.kc.deleteDocument(ARCHIVE_ID, archived.id), { status: 403, code: 'archived_document_immutable', message: 'The archived document is not editable.' });
    const slow = await startKnowledge(undefined, 400);
    try {
      const ds = await slow.kc.createDataset({ name: uniqueName('Slow'), indexing_technique: 'economy' });
      const { document } = await slow.kc.createDocumentByText(ds.id, { name: 'a', text: 'some text' });
      await new Promise((r) => setTimeout(r, 500));
      await rejects(slow.kc.deleteDocument(ds.id, document.id), { status: 400, code: 'document_indexing', message: 'Cannot delete document during indexing.' });
    } finally {
      await slow.close();
    }
  });
});

describe('chunks', () => {
  test('add (indexed at once), get and update chunks', async () => {
    const { datasetId, documentId } = await withDocument();
    const added = await h.kc.createSegments(datasetId, documentId, { segments: [{ content: 'Third paragraph about kayaks.', keywords: ['kayak'] }] });
    assert.equal(added.doc_form, 'text_model');
    const seg = added.data[0]!;
    assert.equal(seg.status, 'completed');
    assert.equal(seg.position, 3);
    assert.deepEqual(seg.keywords, ['kayak']);
    assert.equal((await h.kc.retrieve(datasetId, { query: 'kayaks' })).records[0]!.segment.id, seg.id);
    assert.deepEqual(await h.kc.getSegment(datasetId, documentId, seg.id), { data: seg, doc_form: 'text_model' });
    const updated = await h.kc.updateSegment(datasetId, documentId, seg.id, { segment: { content: 'Third paragraph about canoes.' } });
    assert.equal(updated.data.content, 'Third paragraph about canoes.');
    assert.equal(updated.data.word_count, 'Third paragraph about canoes.'.length);
    assert.notEqual(updated.data.index_node_hash, seg.index_node_hash);
    assert.equal((await h.kc.retrieve(datasetId, { query: 'canoes' })).records[0]!.segment.id, seg.id);
    await rejects(h.kc.getSegment(datasetId, documentId, '00000000-0000-4000-8000-000000000000'), { status: 404, code: 'not_found', message: 'Segment not found.' });
    // A disabled chunk is not edited until enabled again.
    await h.kc.updateSegment(datasetId, documentId, seg.id, { segment: { enabled: false } });
    await rejects(h.kc.updateSegment(datasetId, documentId, seg.id, { segment: { content: 'x' } }), { status: 400, code: 'invalid_param', message: "Can't update disabled segment" });
  });

  test("list pages as Dify's: has_more is a full page, the document list echoes the limit asked; chunks carry sign_content, attachments, summary; hit counts agree", async () => {
    const { datasetId, documentId } = await withDocument('One about ovens.\n\nTwo about bikes.\n\nThree about kayaks.');
    await h.kc.createDocumentByText(datasetId, { name: 'second.txt', text: 'Another one.' });
    type Page = { data: Record<string, unknown>[]; has_more: boolean; limit: number; total: number };
    const docs = async (query: string) => (await (await raw('GET', `/datasets/${datasetId}/documents${query}`)).json()) as Page;
    // `len(documents) == query_params.limit`: a full page says more, even the last one.
    assert.deepEqual(await docs('?limit=2').then((b) => [b.data.length, b.has_more, b.limit, b.total]), [2, true, 2, 2]);
    assert.deepEqual(await docs('?limit=3').then((b) => [b.data.length, b.has_more, b.limit]), [2, false, 3]);
    // The limit is echoed as asked; a page holds at most 100.
    assert.deepEqual(await docs('?limit=500').then((b) => [b.data.length, b.has_more, b.limit]), [2, false, 500]);
    const chunks = async (query: string) => (await (await raw('GET', `/datasets/${datasetId}/documents/${documentId}/segments${query}`)).json()) as Page;
    assert.deepEqual(await chunks('?limit=3').then((b) => [b.data.length, b.has_more, b.total]), [3, true, 3]);
    assert.deepEqual(await chunks('?limit=4').then((b) => [b.data.length, b.has_more]), [3, false]);
    const seg = (await chunks('')).data[0]!;
    assert.deepEqual([seg.sign_content, seg.attachments, seg.summary], [seg.content, [], null]);
    // The list and the detail both count the chunks' hits (the fixture's documents too).
    for (const id of [datasetId, HANDBOOK_ID, SUPPORT_FAQ_ID]) {
      const { data } = (await (await raw('GET', `/datasets/${id}/documents?limit=100`)).json()) as Page;
      for (const listed of data) {
        const detail = (await (await raw('GET', `/datasets/${id}/documents/${listed.id}`)).json()) as Record<string, unknown>;
        assert.equal(listed.hit_count, detail.hit_count, String(listed.id));
      }
    }
  });

  test('add errors: the payload answer is a bare {"error"}; Q&A chunks need an answer; the document must be completed and enabled', async () => {
    const { datasetId, documentId } = await withDocument();
    const res = await raw('POST', `/datasets/${datasetId}/documents/${documentId}/segments`, { segments: [] });
    assert.equal(res.status, 400);
    assert.deepEqual(await res.json(), { error: '1 validation error for SegmentCreatePayload\nsegments\n  List should have at least 1 item after validation, not 0' });
    // A blank chunk fails the payload's own validator (`validate_content`), so it gets the bare {"error"} too.
    const blank = await raw('POST', `/datasets/${datasetId}/documents/${documentId}/segments`, { segments: [{ content: 'ok' }, { content: ' \t\n' }] });
    assert.equal(blank.status, 400);
    assert.deepEqual(await blank.json(), { error: '1 validation error for SegmentCreatePayload\nsegments.1.content\n  Value error, Content is empty' });
    // The empty string fails `min_length=1` first, and the validator does not run.
    const empty = await raw('POST', `/datasets/${datasetId}/documents/${documentId}/segments`, { segments: [{ content: '' }] });
    assert.deepEqual(await empty.json(), { error: '1 validation error for SegmentCreatePayload\nsegments.0.content\n  String should have at least 1 character' });
    const faq = (await h.kc.listDocuments(SUPPORT_FAQ_ID)).data[0]!;
    await rejects(h.kc.createSegments(SUPPORT_FAQ_ID, faq.id, { segments: [{ content: 'Q?' }] }), { status: 400, code: 'invalid_param', message: 'Answer is required' });
    await rejects(h.kc.createSegments(SUPPORT_FAQ_ID, faq.id, { segments: [{ content: 'Q?', answer: '  ' }] }), { status: 400, code: 'invalid_param', message: 'Answer is empty' });
    const qa = await h.kc.createSegments(SUPPORT_FAQ_ID, faq.id, { segments: [{ content: 'Can I undo a review?', answer: 'Yes, within an hour.' }] });
    assert.equal(qa.data[0]!.answer, 'Yes, within an hour.');
    assert.equal(qa.doc_form, 'qa_model');
    await h.kc.updateDocumentStatus(datasetId, 'disable', [documentId]);
    await rejects(h.kc.createSegments(datasetId, documentId, { segments: [{ content: 'x' }] }), { status: 404, code: 'not_found', message: 'Document is disabled.' });
  });

  test('child chunks: list, add, update, delete, and their 404s', async () => {
    const { datasetId, documentId } = await withDocument('Ovens heat. Preheat them.\n\nBikes roll. Pump tyres.', 'hierarchical_model');
    const parent = (await h.kc.listSegments(datasetId, documentId)).data[0]!;
    const page = await h.kc.listChildChunks(datasetId, documentId, parent.id);
    assert.deepEqual(Object.keys(page).sort(), ['data', 'limit', 'page', 'total', 'total_pages']);
    assert.equal(page.total, parent.child_chunks.length);
    assert.equal(page.total_pages, 1);
    const added = await h.kc.createChildChunk(datasetId, documentId, parent.id, 'Use the middle rack');
    assert.equal(added.data.type, 'customized');
    assert.equal(added.data.segment_id, parent.id);
    const edited = await h.kc.updateChildChunk(datasetId, documentId, parent.id, added.data.id, 'Use the top rack');
    assert.equal(edited.data.content, 'Use the top rack');
    const hit = (await h.kc.retrieve(datasetId, { query: 'top rack' })).records[0]!;
    assert.equal(hit.child_chunks[0]!.id, added.data.id);
    const res = await raw('DELETE', `/datasets/${datasetId}/documents/${documentId}/segments/${parent.id}/child_chunks/${added.data.id}`);
    assert.equal(res.status, 204);
    await rejects(h.kc.updateChildChunk(datasetId, documentId, parent.id, added.data.id, 'x'), { status: 404, code: 'not_found', message: 'Child chunk not found.' });
    await rejects(h.kc.createChildChunk(datasetId, documentId, parent.id, ''), { status: 400, code: 'invalid_param' });
    // Malformed paging falls back to the defaults.
    const lenient = await h.kc.transport.json<{ page: number; limit: number }>('GET', `/datasets/${datasetId}/documents/${documentId}/segments/${parent.id}/child_chunks?page=x&limit=-3`);
    assert.deepEqual([lenient.page, lenient.limit], [1, 20]);
  });
});

describe('tags', () => {
  test('create, rename, bind, list, unbind, delete', async () => {
    const name = uniqueName('Tag');
    const tag = await h.kc.createTag(name);
    assert.deepEqual({ ...tag, id: '' }, { id: '', name, type: 'knowledge', binding_count: '0' });
    await rejects(h.kc.createTag(name), { status: 400, code: 'invalid_param', message: 'Tag name already exists' });
    await rejects(h.kc.createTag('x'.repeat(51)), { status: 400, code: 'invalid_param', message: /String should have at most 50 characters/ });
    const renamed = await h.kc.renameTag(tag.id, `${name} 2`);
    assert.equal(renamed.name, `${name} 2`);
    const { datasetId } = await withDocument();
    let res = await raw('POST', '/datasets/tags/binding', { tag_ids: [tag.id, '00000000-0000-4000-8000-000000000000'], target_id: datasetId });
    assert.equal(res.status, 204);
    await h.kc.bindTags(datasetId, [tag.id]);
    assert.deepEqual(await h.kc.getDatasetTags(datasetId), { data: [{ id: tag.id, name: `${name} 2` }], total: 1 });
    assert.equal((await h.kc.listTags()).find((t) => t.id === tag.id)!.binding_count, '1');
    assert.deepEqual((await h.kc.getDataset(datasetId)).tags, [{ id: tag.id, name: `${name} 2`, type: 'knowledge' }]);
    // The legacy single tag_id unbinds too.
    res = await raw('POST', '/datasets/tags/unbinding', { tag_id: tag.id, target_id: datasetId });
    assert.equal(res.status, 204);
    assert.equal((await h.kc.getDatasetTags(datasetId)).total, 0);
    await h.kc.bindTags(datasetId, [tag.id]);
    res = await raw('DELETE', '/datasets/tags', { tag_id: tag.id });
    assert.equal(res.status, 204);
    assert.equal((await h.kc.getDatasetTags(datasetId)).total, 0, 'bindings go with the tag');
    await rejects(h.kc.renameTag(tag.id, 'x'), { status: 404, code: 'not_found', message: 'Tag not found' });
    await rejects(h.kc.deleteTag(tag.id), { status: 404, code: 'not_found', message: 'Tag not found' });
    await rejects(h.kc.bindTags(datasetId, []), { status: 400, code: 'invalid_param', message: 'Tag IDs is required.' });
    await rejects(h.kc.unbindTags(datasetId, []), { status: 400, code: 'invalid_param', message: 'Tag IDs is required.' });
    await rejects(h.kc.bindTags('00000000-0000-4000-8000-000000000000', [tag.id]), { status: 404, code: 'not_found', message: 'Dataset not found' });
  });

  test('the scoped key cannot change tags; it reads its own knowledge base\'s', async () => {
    await rejects(h.scoped.createTag(uniqueName('Tag')), { status: 403, code: 'forbidden' });
    await rejects(h.scoped.bindTags(HANDBOOK_ID, ['x']), { status: 403, code: 'forbidden' });
    assert.ok((await h.scoped.getDatasetTags(HANDBOOK_ID)).total >= 1);
    await rejects(h.scoped.getDatasetTags(SUPPORT_FAQ_ID), { status: 403, code: 'forbidden' });
  });
});

describe('metadata', () => {
  test('fields: create (201), list with counts, rename, delete; document values', async () => {
    const { datasetId, documentId } = await withDocument();
    const res = await raw('POST', `/datasets/${datasetId}/metadata`, { type: 'string', name: 'team' });
    assert.equal(res.status, 201);
    const field = (await res.json()) as MetadataField;
    assert.deepEqual(Object.keys(field).sort(), ['id', 'name', 'type']);
    await rejects(h.kc.createMetadataField(datasetId, { type: 'string', name: 'team' }), { status: 400, code: 'invalid_param', message: 'Metadata name already exists.' });
    await rejects(h.kc.createMetadataField(datasetId, { type: 'string', name: 'uploader' }), { status: 400, code: 'invalid_param', message: 'Metadata name already exists in Built-in fields.' });
    await rejects(h.kc.createMetadataField(datasetId, { type: 'string', name: 'x'.repeat(256) }), { status: 400, code: 'invalid_param', message: 'Metadata name cannot exceed 255 characters.' });
    await rejects(h.kc.createMetadataField(datasetId, { type: 'date' as never, name: 'when' }), { status: 400, code: 'invalid_param', message: /^1 validation error for MetadataArgs\ntype\n/ });

    await h.kc.updateDocumentMetadata(datasetId, { operation_data: [{ document_id: documentId, metadata_list: [{ id: field.id, name: 'team', value: 'docs' }] }] });
    assert.deepEqual(await h.kc.listMetadataFields(datasetId), { doc_metadata: [{ ...field, count: 1 }], built_in_field_enabled: false });
    assert.deepEqual((await h.kc.getDocument(datasetId, documentId, 'only')).doc_metadata, [{ id: field.id, name: 'team', type: 'string', value: 'docs' }]);
    const renamed = await h.kc.renameMetadataField(datasetId, field.id, 'squad');
    assert.equal(renamed.name, 'squad');
    assert.deepEqual((await h.kc.getDocument(datasetId, documentId, 'only')).doc_metadata, [{ id: field.id, name: 'squad', type: 'string', value: 'docs' }]);
    await rejects(
      h.kc.updateDocumentMetadata(datasetId, { operation_data: [{ document_id: '00000000-0000-4000-8000-000000000000', metadata_list: [] }] }),
      { status: 400, code: 'invalid_param', message: 'Document not found.' },
    );
    const del = await raw('DELETE', `/datasets/${datasetId}/metadata/${field.id}`);
    assert.equal(del.status, 204);
    assert.deepEqual((await h.kc.getDocument(datasetId, documentId, 'only')).doc_metadata, []);
    await rejects(h.kc.renameMetadataField(datasetId, field.id, 'x'), { status: 400, code: 'invalid_param', message: 'Metadata not found.' });
  });

  test('built-in fields: listed under both paths, enabled and disabled', async () => {
    const { datasetId } = await withDocument();
    const expected = {
      fields: [
        { name: 'document_name', type: 'string' },
        { name: 'uploader', type: 'string' },
        { name: 'upload_date', type: 'time' },
        { name: 'last_update_date', type: 'time' },
        { name: 'source', type: 'string' },
      ],
    };
    assert.deepEqual(await h.kc.listBuiltInMetadataFields(datasetId), expected);
    assert.deepEqual(await (await raw('GET', '/datasets/metadata/built-in')).json(), expected);
    assert.deepEqual(await h.kc.setBuiltInMetadata(datasetId, true), { result: 'success' });
    assert.equal((await h.kc.listMetadataFields(datasetId)).built_in_field_enabled, true);
    const record = (await h.kc.retrieve(datasetId, { query: 'ovens' })).records[0]!;
    assert.equal(record.segment.document.doc_metadata?.document_name, 'doc.txt');
    await h.kc.setBuiltInMetadata(datasetId, false);
    assert.equal((await h.kc.listMetadataFields(datasetId)).built_in_field_enabled, false);
  });
});

describe('GET /workspaces/current/models/model-types/{type}', () => {
  test('providers with models of the type, their statuses, and the real refusals', async () => {
    const { data } = await h.kc.listModels('text-embedding');
    const openai = data.find((p) => p.provider === 'langgenius/openai/openai')!;
    assert.deepEqual(openai.models.map((m) => m.model), ['text-embedding-3-small', 'text-embedding-3-large']);
    assert.equal(openai.status, 'active');
    assert.equal(data.find((p) => p.provider === 'langgenius/voyage/voyage')!.models[0]!.status, 'no-configure');
    assert.deepEqual(Object.keys(openai.models[0]!).sort(), [
      'deprecated', 'features', 'fetch_from', 'has_invalid_load_balancing_configs', 'label', 'load_balancing_enabled', 'model', 'model_properties', 'model_type', 'status',
    ]);
    const rerank = await h.kc.listModels('rerank');
    assert.ok(rerank.data.every((p) => p.models.every((m) => m.model_type === 'rerank')));
    assert.deepEqual(await h.kc.listModels('tts'), { data: [] });
    await rejects(h.kc.listModels('vision' as never), { status: 400, code: 'invalid_param', message: 'invalid origin model type vision' });
    // The older names ModelType.value_of accepts.
    assert.deepEqual(await h.kc.listModels('reranking' as never), rerank);
    await rejects(h.scoped.listModels('rerank'), { status: 403, code: 'forbidden' });
  });
});

describe('rate limit', () => {
  test('chunk, document and metadata writes count; tag writes and reads do not', async () => {
    const limited = await startKnowledge((r) => {
      r.knowledge.subscription.knowledge_rate_limit = { enabled: true, limit: 2, window_seconds: 60 };
    });
    try {
      for (let i = 0; i < 3; i++) await limited.kc.createTag(uniqueName('Free'));
      await limited.kc.listModels('rerank');
      await limited.kc.getDatasetTags(HANDBOOK_ID);
      await limited.kc.createMetadataField(HANDBOOK_ID, { type: 'string', name: uniqueName('f') });
      await limited.kc.createDocumentByFile(HANDBOOK_ID, textFile('x'), 'x.txt');
      const error = await rejects(limited.kc.deleteDataset(SUPPORT_FAQ_ID), {
        status: 403,
        code: 'forbidden',
        message: 'Sorry, you have reached the knowledge base request rate limit of your subscription.',
      });
      assert.ok(error instanceof ServiceError);
      await limited.kc.getDataset(SUPPORT_FAQ_ID);
    } finally {
      await limited.close();
    }
  });
});
