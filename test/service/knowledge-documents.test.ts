/**
 * Documents and chunks over real HTTP through KnowledgeClient: create-by-text with the real field
 * names, chunking per process rule with real counts, asynchronous indexing through the real
 * states, indexing status, status actions and their effects, archived immutability, chunk
 * listing and deletion (service-api.md 3, 4, 7; dify-wire.md §7).
 */
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { after, before, describe, test } from 'node:test';
import type { KnowledgeClient } from '../../src/client/knowledge.js';
import type { CreateDocumentByTextRequest, Dataset, DatasetDocument, IndexingStatus } from '../../src/protocol/index.js';
import { EMBEDDING, HANDBOOK_ID, rejects, sleep, startKnowledge, uniqueName, VENDOR_ID, type KnowledgeHarness } from './knowledge-helpers.js';

const NO_EMBEDDING = 'No Embedding Model available. Please configure a valid provider in the Settings -> Model Provider.';

/** The document fields of dify-wire.md §7. */
const DOCUMENT_FIELDS = [
  'id', 'position', 'data_source_type', 'data_source_info', 'data_source_detail_dict', 'dataset_process_rule_id', 'name',
  'created_from', 'created_by', 'created_at', 'tokens', 'indexing_status', 'error', 'enabled', 'disabled_at', 'disabled_by',
  'archived', 'display_status', 'word_count', 'hit_count', 'doc_form', 'doc_metadata', 'summary_index_status', 'need_summary',
].sort();

const CUSTOM = (max_tokens = 200, separator = '\n\n', chunk_overlap = 0) => ({
  mode: 'custom' as const,
  rules: {
    pre_processing_rules: [{ id: 'remove_extra_spaces' as const, enabled: true }],
    segmentation: { separator, max_tokens, chunk_overlap },
  },
});

const PARAGRAPHS = [
  'Editors review every draft before it is published.',
  'A review can approve the draft or send it back with comments.',
  'Comments reach the writer exactly as typed.',
  'Published notes appear on the changelog within five minutes.',
  'Nothing is published without approval.',
];

let h: KnowledgeHarness;
let kc: KnowledgeClient;

before(async () => {
  h = await startKnowledge();
  kc = h.kc;
});
after(() => h.close());

async function newDataset(technique: 'high_quality' | 'economy' | null = 'high_quality'): Promise<Dataset> {
  return kc.createDataset({ name: uniqueName('Docs'), indexing_technique: technique, ...(technique === 'high_quality' ? EMBEDDING : {}) });
}

/** Creates a document and waits until its indexing ends. */
async function indexed(datasetId: string, body: CreateDocumentByTextRequest): Promise<DatasetDocument> {
  const { document, batch } = await kc.createDocumentByText(datasetId, body);
  const [status] = await kc.waitForIndexing(datasetId, batch, { intervalMs: 5, timeoutMs: 5000 });
  assert.equal(status?.indexing_status, 'completed', `indexing ended with ${status?.indexing_status}: ${status?.error}`);
  const docs = await kc.listDocuments(datasetId, { limit: 100 });
  return docs.data.find((d) => d.id === document.id)!;
}

async function allSegments(datasetId: string, documentId: string) {
  return (await kc.listSegments(datasetId, documentId, { limit: 100 })).data;
}

describe('POST /datasets/{id}/document/create-by-text', () => {
  test('indexing_technique is required on the first document and inherited after', async () => {
    const ds = await newDataset(null);
    await rejects(kc.createDocumentByText(ds.id, { name: 'first', text: 'Hello there.' }), { status: 400, code: 'invalid_param', message: 'indexing_technique is required.' });
    assert.equal((await kc.listDocuments(ds.id)).total, 0, 'nothing was created');
    await indexed(ds.id, { name: 'first', text: 'Hello there.', indexing_technique: 'economy' });
    const after1 = await kc.getDataset(ds.id);
    assert.equal(after1.indexing_technique, 'economy');
    assert.equal(after1.data_source_type, 'upload_file');
    assert.equal(after1.doc_form, 'text_model');
    const second = await indexed(ds.id, { name: 'second', text: 'Inherits the technique.' });
    assert.equal(second.indexing_status, 'completed');
    const segs = await allSegments(ds.id, second.id);
    assert.equal(segs[0]?.tokens, 0, 'economy chunks carry no embedding tokens');
    assert.ok(segs[0]!.keywords.includes('inherits'), 'economy chunks carry keywords');
  });

  test('the answer: {document, batch} with the real document fields', async () => {
    const ds = await newDataset();
    const { document, batch } = await kc.createDocumentByText(ds.id, { name: 'Shape', text: PARAGRAPHS.join('\n\n'), process_rule: CUSTOM() });
    assert.match(batch, /^\d{20}$/);
    assert.deepEqual(Object.keys(document).sort(), DOCUMENT_FIELDS);
    assert.equal(document.name, 'Shape');
    assert.equal(document.indexing_status, 'waiting');
    assert.equal(document.display_status, 'queuing');
    assert.equal(document.created_from, 'api');
    assert.equal(document.data_source_type, 'upload_file');
    assert.equal(document.position, 1);
    assert.equal(document.enabled, true);
    assert.equal(document.archived, false);
    assert.equal(document.doc_form, 'text_model');
    const file = (document.data_source_detail_dict as { upload_file: { id: string; name: string; size: number } }).upload_file;
    assert.equal(file.id, (document.data_source_info as { upload_file_id: string }).upload_file_id);
    assert.equal(file.size, Buffer.byteLength(PARAGRAPHS.join('\n\n')));
    await kc.waitForIndexing(ds.id, batch, { intervalMs: 5 });
  });

  test('the legacy alias create_by_text works the same', async () => {
    const ds = await newDataset();
    const res = await kc.transport.json<{ document: DatasetDocument; batch: string }>('POST', `/datasets/${ds.id}/document/create_by_text`, {
      json: { name: 'legacy', text: 'Old clients use underscores.' },
    });
    assert.equal(res.document.name, 'legacy');
    const [status] = await kc.waitForIndexing(ds.id, res.batch, { intervalMs: 5 });
    assert.equal(status?.indexing_status, 'completed');
  });

  test('bad bodies get 400 and create nothing', async () => {
    const ds = await newDataset();
    await rejects(kc.createDocumentByText(ds.id, { text: 'no name' } as never), { status: 400, code: 'invalid_param', message: /name\n {2}Field required/ });
    await rejects(kc.createDocumentByText(ds.id, { name: 'n', text: 't', doc_form: 'pdf_model' as never }), { status: 400, code: 'invalid_param', message: 'Invalid doc_form.' });
    await rejects(kc.createDocumentByText(ds.id, { name: 'n', text: 't', process_rule: { mode: 'custom' } }), { status: 400, code: 'invalid_param', message: 'Process rule rules is required' });
    await rejects(kc.createDocumentByText(ds.id, { name: 'n', text: 't', process_rule: { mode: 'custom', rules: { segmentation: { max_tokens: 100 } } } }), {
      status: 400,
      code: 'invalid_param',
      message: 'Process rule pre_processing_rules is required',
    });
    await rejects(kc.createDocumentByText(ds.id, { name: 'n', text: 't', process_rule: { mode: 'custom', rules: { pre_processing_rules: [], segmentation: { separator: '', max_tokens: 100 } } } }), {
      status: 400,
      code: 'invalid_param',
      message: 'Process rule segmentation separator is required',
    });
    await rejects(kc.createDocumentByText(ds.id, { name: 'n', text: 't', process_rule: { mode: 'magic' } as never }), { status: 400, code: 'invalid_param', message: /process_rule\.mode/ });
    await rejects(kc.createDocumentByText(ds.id, { name: 'n', text: 't', embedding_model: 'voyage-3', embedding_model_provider: 'voyage' }), { status: 400, code: 'invalid_param', message: NO_EMBEDDING });
    await rejects(kc.createDocumentByText(ds.id, { name: 'n', text: 't', retrieval_model: { search_method: 'semantic_search', reranking_enable: true, top_k: 2, score_threshold_enabled: false } }), {
      status: 400,
      code: 'invalid_param',
      message: /reranking_mode is required/,
    });
    assert.equal((await kc.listDocuments(ds.id)).total, 0);
    await rejects(kc.createDocumentByText('00000000-0000-4000-8000-000000000000', { name: 'n', text: 't' }), { status: 404, code: 'not_found', message: 'Dataset not found.' });
  });

  test('the first document sets the model, retrieval model and doc_form; later ones must match doc_form', async () => {
    const ds = await kc.createDataset({ name: uniqueName('First') });
    const retrieval_model = { search_method: 'full_text_search' as const, reranking_enable: false, top_k: 6, score_threshold_enabled: false };
    await indexed(ds.id, { name: 'a', text: 'Alpha.', indexing_technique: 'high_quality', embedding_model: 'embed-multilingual-v3.0', embedding_model_provider: 'cohere', retrieval_model });
    const detail = await kc.getDataset(ds.id);
    assert.equal(detail.indexing_technique, 'high_quality');
    assert.equal(detail.embedding_model, 'embed-multilingual-v3.0');
    assert.equal(detail.embedding_model_provider, 'langgenius/cohere/cohere');
    assert.equal(detail.retrieval_model_dict.search_method, 'full_text_search');
    assert.equal(detail.retrieval_model_dict.top_k, 6);
    await rejects(kc.createDocumentByText(ds.id, { name: 'b', text: 'Beta.', doc_form: 'qa_model' }), { status: 400, code: 'invalid_param', message: 'doc_form is different from the dataset doc_form.' });
  });
});

describe('chunking per process rule', () => {
  let ds: Dataset;
  before(async () => {
    ds = await newDataset();
  });

  test('custom: one chunk per separated piece, with real word counts, tokens and hashes', async () => {
    const text = PARAGRAPHS.join('\n\n');
    const doc = await indexed(ds.id, { name: 'custom', text, process_rule: CUSTOM(100) });
    const segs = await allSegments(ds.id, doc.id);
    assert.deepEqual(segs.map((s) => s.content), PARAGRAPHS);
    assert.deepEqual(segs.map((s) => s.position), [1, 2, 3, 4, 5]);
    assert.deepEqual(segs.map((s) => s.word_count), PARAGRAPHS.map((p) => p.length));
    for (const s of segs) {
      assert.equal(s.status, 'completed');
      assert.equal(s.document_id, doc.id);
      assert.ok(s.tokens > 0 && s.tokens <= 100);
      assert.equal(s.index_node_hash, createHash('sha256').update(`${s.content}None`).digest('hex'));
      assert.ok(s.completed_at && s.indexing_at);
      assert.deepEqual(s.child_chunks, []);
    }
    assert.equal(doc.word_count, PARAGRAPHS.join('').length);
    assert.equal(doc.tokens, segs.reduce((sum, s) => sum + s.tokens, 0));
    const { data } = await kc.getIndexingStatus(ds.id, (await kc.createDocumentByText(ds.id, { name: 'again', text: 'x y z' })).batch);
    assert.equal(data.length, 1);
  });

  test('an escaped \\n separator means a newline', async () => {
    const doc = await indexed(ds.id, { name: 'escaped', text: 'one line\ntwo line\nthree line', process_rule: CUSTOM(100, '\\n') });
    assert.deepEqual((await allSegments(ds.id, doc.id)).map((s) => s.content), ['one line', 'two line', 'three line']);
  });

  test('pieces larger than max_tokens are split again, with overlap', async () => {
    const words = Array.from({ length: 300 }, (_, i) => `word${i}`);
    const doc = await indexed(ds.id, { name: 'long', text: words.join(' '), process_rule: CUSTOM(60, '\n\n', 10) });
    const segs = await allSegments(ds.id, doc.id);
    assert.ok(segs.length >= 5, `split into ${segs.length} chunks`);
    for (const s of segs) assert.ok(s.tokens <= 60, `chunk of ${s.tokens} tokens`);
    // Every word is kept, in order; neighbouring chunks share their edge words.
    const seen = new Set(segs.flatMap((s) => s.content.split(' ')));
    assert.equal(seen.size, words.length);
    for (let i = 1; i < segs.length; i++) {
      const prevLast = segs[i - 1]!.content.split(' ').at(-1)!;
      assert.ok(segs[i]!.content.split(' ').includes(prevLast), `chunk ${i + 1} starts with the overlap`);
    }
    const noOverlap = await indexed(ds.id, { name: 'long2', text: words.join(' '), process_rule: CUSTOM(60, '\n\n', 0) });
    const plain = await allSegments(ds.id, noOverlap.id);
    assert.equal(plain.map((s) => s.content).join(' '), words.join(' '));
    assert.ok(plain.length < segs.length || plain.length === segs.length);
  });

  test('automatic: small paragraphs are merged into chunks of up to 500 tokens', async () => {
    const doc = await indexed(ds.id, { name: 'auto', text: PARAGRAPHS.join('\n\n'), process_rule: { mode: 'automatic' } });
    const segs = await allSegments(ds.id, doc.id);
    assert.equal(segs.length, 1);
    assert.equal(segs[0]!.content, PARAGRAPHS.join('\n\n'));
  });

  test('pre-processing rules: extra spaces and URLs / emails', async () => {
    const text = 'Write   to   editors@example.com\n\n\n\n\nor see https://example.com/help today.';
    const rules = (remove_extra_spaces: boolean, remove_urls_emails: boolean) => ({
      mode: 'custom' as const,
      rules: {
        pre_processing_rules: [
          { id: 'remove_extra_spaces' as const, enabled: remove_extra_spaces },
          { id: 'remove_urls_emails' as const, enabled: remove_urls_emails },
        ],
        segmentation: { separator: '###', max_tokens: 200 },
      },
    });
    const cleaned = await indexed(ds.id, { name: 'clean', text, process_rule: rules(true, true) });
    assert.deepEqual((await allSegments(ds.id, cleaned.id)).map((s) => s.content), ['Write to \n\nor see  today.']);
    const kept = await indexed(ds.id, { name: 'keep', text, process_rule: rules(false, false) });
    assert.deepEqual((await allSegments(ds.id, kept.id)).map((s) => s.content), [text]);
  });

  test('segment lengths out of range fail indexing with the real error', async () => {
    const { batch } = await kc.createDocumentByText(ds.id, { name: 'tiny', text: 'a b c', process_rule: CUSTOM(10) });
    const [status] = await kc.waitForIndexing(ds.id, batch, { intervalMs: 5 });
    assert.equal(status?.indexing_status, 'error');
    assert.equal(status?.error, 'Custom segment length should be between 50 and 4000.');
    assert.ok(status?.stopped_at);
    const { batch: b2 } = await kc.createDocumentByText(ds.id, { name: 'overlap', text: 'a b c', process_rule: CUSTOM(100, '\n', 150) });
    const [s2] = await kc.waitForIndexing(ds.id, b2, { intervalMs: 5 });
    assert.equal(s2?.error, 'Got a larger chunk overlap (150) than chunk size (100), should be smaller.');
    const errored = (await kc.listDocuments(ds.id, { status: 'error' })).data.map((d) => d.name).sort();
    assert.deepEqual(errored, ['overlap', 'tiny']);
  });

  test('hierarchical: parent chunks with child chunks (paragraph and full-doc)', async () => {
    const hds = await newDataset();
    const text = 'Parent one line a.\nParent one line b.\n\nParent two line a.\nParent two line b.\nParent two line c.';
    const rule = (parent_mode: 'paragraph' | 'full-doc') => ({
      mode: 'hierarchical' as const,
      rules: {
        pre_processing_rules: [],
        segmentation: { separator: '\n\n', max_tokens: 500 },
        parent_mode,
        subchunk_segmentation: { separator: '\n', max_tokens: 100 },
      },
    });
    await rejects(kc.createDocumentByText(hds.id, { name: 'h', text, process_rule: rule('paragraph') }), { status: 400, code: 'invalid_param', message: /hierarchical_model/ });
    const doc = await indexed(hds.id, { name: 'h', text, doc_form: 'hierarchical_model', process_rule: rule('paragraph') });
    const listing = await kc.listSegments(hds.id, doc.id);
    assert.equal(listing.doc_form, 'hierarchical_model');
    assert.deepEqual(listing.data.map((s) => s.child_chunks.map((c) => c.content)), [
      ['Parent one line a.', 'Parent one line b.'],
      ['Parent two line a.', 'Parent two line b.', 'Parent two line c.'],
    ]);
    const child = listing.data[1]!.child_chunks[2]!;
    assert.equal(child.segment_id, listing.data[1]!.id);
    assert.equal(child.position, 3);
    assert.equal(child.word_count, 'Parent two line c.'.length);
    const full = await indexed(hds.id, { name: 'f', text, doc_form: 'hierarchical_model', process_rule: rule('full-doc') });
    const fullSegs = await allSegments(hds.id, full.id);
    assert.equal(fullSegs.length, 1);
    assert.equal(fullSegs[0]!.child_chunks.length, 5);
  });

  test('qa_model: question and answer chunks', async () => {
    const qds = await newDataset('economy');
    const text = 'Q: Who approves drafts?\nA: Editors do.\n\nQ: When do notes appear?\nA: Within five minutes.';
    const doc = await indexed(qds.id, { name: 'qa', text, doc_form: 'qa_model', process_rule: CUSTOM(200) });
    const segs = await allSegments(qds.id, doc.id);
    assert.deepEqual(segs.map((s) => [s.content, s.answer]), [
      ['Who approves drafts?', 'Editors do.'],
      ['When do notes appear?', 'Within five minutes.'],
    ]);
    assert.equal(segs[0]!.word_count, 'Who approves drafts?'.length + 'Editors do.'.length);
  });
});

describe('asynchronous indexing', () => {
  test('a document goes through waiting → parsing → cleaning → splitting → indexing → completed', async () => {
    const slow = await startKnowledge(undefined, 60);
    try {
      const ds = await slow.kc.createDataset({ name: uniqueName('Slow'), indexing_technique: 'high_quality' });
      const text = Array.from({ length: 8 }, (_, i) => `Paragraph ${i} talks about reviews.`).join('\n\n');
      const { document, batch } = await slow.kc.createDocumentByText(ds.id, { name: 'slow', text, process_rule: CUSTOM(100) });
      assert.equal(document.indexing_status, 'waiting');
      const seen: IndexingStatus[] = [];
      const progress: number[] = [];
      let displays = new Set<string>();
      for (let i = 0; i < 400; i++) {
        const [s] = (await slow.kc.getIndexingStatus(ds.id, batch)).data;
        if (seen.at(-1) !== s!.indexing_status) seen.push(s!.indexing_status);
        if (s!.indexing_status === 'indexing') progress.push(s!.completed_segments);
        if (i % 3 === 0) displays.add((await slow.kc.listDocuments(ds.id)).data[0]!.display_status);
        if (s!.indexing_status === 'completed') {
          assert.equal(s!.total_segments, 8);
          assert.equal(s!.completed_segments, 8);
          for (const field of ['processing_started_at', 'parsing_completed_at', 'cleaning_completed_at', 'splitting_completed_at', 'completed_at'] as const) {
            assert.equal(typeof s![field], 'number', field);
          }
          assert.equal(s!.error, null);
          break;
        }
        await sleep(8);
      }
      assert.deepEqual(seen, ['waiting', 'parsing', 'cleaning', 'splitting', 'indexing', 'completed']);
      assert.ok(progress.every((n) => n >= 0 && n < 8), 'segments complete during indexing');
      displays = new Set([...displays, (await slow.kc.listDocuments(ds.id)).data[0]!.display_status]);
      assert.ok(displays.has('indexing'), `display statuses seen: ${[...displays]}`);
      assert.ok(displays.has('available'));
      const detail = await slow.kc.getDataset(ds.id);
      assert.equal(detail.total_available_documents, 1);
    } finally {
      await slow.close();
    }
  });

  test('unknown batches are 404 "Documents not found."', async () => {
    await rejects(kc.getIndexingStatus(HANDBOOK_ID, '20990101000000123456'), { status: 404, code: 'not_found', message: 'Documents not found.' });
  });
});

describe('GET /datasets/{id}/documents', () => {
  test('newest first, paged, filtered by name and display status', async () => {
    const ds = await newDataset();
    for (const name of ['alpha', 'beta', 'gamma']) await indexed(ds.id, { name, text: `${name} text.` });
    const all = await kc.listDocuments(ds.id);
    assert.deepEqual(all.data.map((d) => d.name), ['gamma', 'beta', 'alpha']);
    assert.deepEqual(all.data.map((d) => d.position), [3, 2, 1]);
    assert.deepEqual([all.total, all.page, all.limit, all.has_more], [3, 1, 20, false]);
    const page2 = await kc.listDocuments(ds.id, { limit: 2, page: 2 });
    assert.deepEqual(page2.data.map((d) => d.name), ['alpha']);
    const first = await kc.listDocuments(ds.id, { limit: 2 });
    assert.equal(first.has_more, true);
    assert.deepEqual((await kc.listDocuments(ds.id, { keyword: 'amm' })).data.map((d) => d.name), ['gamma']);
    assert.equal((await kc.listDocuments(ds.id, { status: 'available' })).total, 3);
    assert.equal((await kc.listDocuments(ds.id, { status: 'disabled' })).total, 0);
    await rejects(kc.listDocuments(ds.id, { limit: 'x' as never }), { status: 400, code: 'invalid_param', message: /limit/ });
  });

  test("an unknown status filters nothing; any case and the aliases 'active', 'enabled' (normalize_display_status)", async () => {
    const ds = await newDataset();
    for (const name of ['alpha', 'beta']) await indexed(ds.id, { name, text: `${name} text.` });
    const [beta] = (await kc.listDocuments(ds.id)).data;
    await kc.updateDocumentStatus(ds.id, 'disable', [beta!.id]);
    const names = async (status: string) => (await kc.listDocuments(ds.id, { status: status as never })).data.map((d) => d.name);
    assert.deepEqual(await names('gone'), ['beta', 'alpha']);
    assert.deepEqual(await names('AVAILABLE'), ['alpha']);
    assert.deepEqual(await names('active'), ['alpha']);
    assert.deepEqual(await names('Enabled'), ['alpha']);
    assert.deepEqual(await names('disabled'), ['beta']);
  });

  test("page and limit below 1 fall back as flask-sqlalchemy's paginate(error_out=False) does, and are echoed as asked", async () => {
    const ds = await newDataset();
    for (let i = 0; i < 3; i++) await indexed(ds.id, { name: `doc ${i}`, text: `text ${i}.` });
    type Page = { data: unknown[]; has_more: boolean; limit: number; total: number; page: number };
    const list = async (query: string) => {
      const res = await fetch(`${h.url}/datasets/${ds.id}/documents${query}`, { headers: { Authorization: 'Bearer dataset-demo' } });
      assert.equal(res.status, 200, query);
      const b = (await res.json()) as Page;
      return [b.data.length, b.page, b.limit, b.has_more, b.total];
    };
    // A page below 1 serves the first page.
    assert.deepEqual(await list('?page=0&limit=2'), [2, 0, 2, true, 3]);
    assert.deepEqual(await list('?page=-1&limit=2'), [2, -1, 2, true, 3]);
    // A limit below 1 serves 20 a page; `has_more` still compares with the limit asked.
    assert.deepEqual(await list('?limit=0'), [3, 1, 0, false, 3]);
    assert.deepEqual(await list('?limit=-5&page=0'), [3, 0, -5, false, 3]);
    const empty = await newDataset();
    const none = (await (await fetch(`${h.url}/datasets/${empty.id}/documents?limit=0`, { headers: { Authorization: 'Bearer dataset-demo' } })).json()) as Page;
    assert.deepEqual([none.data, none.has_more], [[], true], '`len([]) == 0`');
  });
});

describe('PATCH /datasets/{id}/documents/status/{action}', () => {
  let ds: Dataset;
  let a: DatasetDocument;
  let b: DatasetDocument;
  before(async () => {
    ds = await newDataset();
    a = await indexed(ds.id, { name: 'Doc A', text: PARAGRAPHS.join('\n\n'), process_rule: CUSTOM() });
    b = await indexed(ds.id, { name: 'Doc B', text: 'Second document.' });
  });

  const counts = async () => {
    const d = await kc.getDataset(ds.id);
    return [d.total_documents, d.total_available_documents];
  };
  const display = async (id: string) => (await kc.listDocuments(ds.id)).data.find((d) => d.id === id)!.display_status;

  test('disable and enable change availability and the counts', async () => {
    assert.deepEqual(await counts(), [2, 2]);
    assert.deepEqual(await kc.updateDocumentStatus(ds.id, 'disable', [a.id, b.id]), { result: 'success' });
    assert.deepEqual(await counts(), [2, 0]);
    const disabled = (await kc.listDocuments(ds.id)).data.find((d) => d.id === a.id)!;
    assert.equal(disabled.display_status, 'disabled');
    assert.equal(disabled.enabled, false);
    assert.equal(typeof disabled.disabled_at, 'number');
    assert.ok(disabled.disabled_by);
    await kc.updateDocumentStatus(ds.id, 'disable', [a.id]); // already disabled: no-op
    await kc.updateDocumentStatus(ds.id, 'enable', [a.id]);
    assert.deepEqual(await counts(), [2, 1]);
    assert.equal(await display(a.id), 'available');
    await kc.updateDocumentStatus(ds.id, 'enable', [b.id]);
    assert.deepEqual(await counts(), [2, 2]);
  });

  test('archived documents are immutable until un_archive', async () => {
    await kc.updateDocumentStatus(ds.id, 'archive', [a.id]);
    assert.equal(await display(a.id), 'archived');
    assert.deepEqual(await counts(), [2, 1]);
    const immutable = { status: 403, code: 'archived_document_immutable', message: 'The archived document is not editable.' };
    await rejects(kc.updateDocumentStatus(ds.id, 'disable', [a.id]), immutable);
    await rejects(kc.updateDocumentStatus(ds.id, 'enable', [a.id]), immutable);
    const seg = (await allSegments(ds.id, a.id))[0]!;
    await rejects(kc.deleteSegment(ds.id, a.id, seg.id), immutable);
    await rejects(kc.createDocumentByText(ds.id, { name: 'Doc A v2', text: 'new text', original_document_id: a.id }), immutable);
    assert.equal((await allSegments(ds.id, a.id)).length, PARAGRAPHS.length, 'nothing changed');
    await kc.updateDocumentStatus(ds.id, 'un_archive', [a.id]);
    assert.equal(await display(a.id), 'available');
    assert.deepEqual(await counts(), [2, 2]);
  });

  test('a rejected batch changes nothing; unknown ids are skipped; bad actions and bodies get 400', async () => {
    await kc.updateDocumentStatus(ds.id, 'archive', [b.id]);
    await rejects(kc.updateDocumentStatus(ds.id, 'disable', [a.id, b.id]), { status: 403, code: 'archived_document_immutable' });
    assert.equal(await display(a.id), 'available', 'the valid half of the batch was not applied');
    await kc.updateDocumentStatus(ds.id, 'un_archive', [b.id]);
    assert.deepEqual(await kc.updateDocumentStatus(ds.id, 'disable', ['00000000-0000-4000-8000-000000000000']), { result: 'success' });
    assert.deepEqual(await kc.updateDocumentStatus(ds.id, 'enable', []), { result: 'success' });
    await rejects(kc.updateDocumentStatus(ds.id, 'delete' as never, [a.id]), { status: 400, code: 'invalid_action', message: 'Invalid action.' });
    await rejects(kc.transport.json('PATCH', `/datasets/${ds.id}/documents/status/enable`, { json: { document_ids: 'all' } }), { status: 400, code: 'invalid_param', message: /document_ids/ });
  });

  test('a document that is still indexing cannot be disabled', async () => {
    const slow = await startKnowledge(undefined, 200);
    try {
      const sds = await slow.kc.createDataset({ name: uniqueName(), indexing_technique: 'economy' });
      const { document } = await slow.kc.createDocumentByText(sds.id, { name: 'busy doc', text: 'text' });
      await rejects(slow.kc.updateDocumentStatus(sds.id, 'disable', [document.id]), { status: 400, code: 'invalid_action', message: 'Document: busy doc is not completed.' });
    } finally {
      await slow.close();
    }
  });

  test('while a status change is applied to the index the document is busy', async () => {
    const busy = await startKnowledge((raw) => {
      raw.knowledge.indexing.status_reindex_ms = 150;
    });
    try {
      const bds = await busy.kc.createDataset({ name: uniqueName(), indexing_technique: 'economy' });
      const { document, batch } = await busy.kc.createDocumentByText(bds.id, { name: 'Toggle', text: 'text' });
      await busy.kc.waitForIndexing(bds.id, batch, { intervalMs: 5 });
      await busy.kc.updateDocumentStatus(bds.id, 'disable', [document.id]);
      await rejects(busy.kc.updateDocumentStatus(bds.id, 'enable', [document.id]), {
        status: 400,
        code: 'invalid_action',
        message: 'Document:Toggle is being indexed, please try again later',
      });
      await sleep(200);
      await busy.kc.updateDocumentStatus(bds.id, 'enable', [document.id]);
    } finally {
      await busy.close();
    }
  });

  test('knowledge bases whose embedding model is unavailable refuse status changes and new documents', async () => {
    const docs = await kc.listDocuments(VENDOR_ID);
    await rejects(kc.updateDocumentStatus(VENDOR_ID, 'disable', [docs.data[0]!.id]), { status: 400, code: 'invalid_param', message: NO_EMBEDDING });
    await rejects(kc.createDocumentByText(VENDOR_ID, { name: 'z', text: 'zz' }), { status: 400, code: 'provider_not_initialize', message: NO_EMBEDDING });
    assert.equal((await kc.listDocuments(VENDOR_ID)).total, docs.total, 'nothing was added');
  });
});

describe('chunks: list and delete', () => {
  test('GET segments filters by keyword and status and pages', async () => {
    const ds = await newDataset();
    const doc = await indexed(ds.id, { name: 'segs', text: PARAGRAPHS.join('\n\n'), process_rule: CUSTOM() });
    const listing = await kc.listSegments(ds.id, doc.id, { limit: 2 });
    assert.deepEqual([listing.total, listing.limit, listing.page, listing.has_more, listing.doc_form], [5, 2, 1, true, 'text_model']);
    assert.deepEqual(listing.data.map((s) => s.position), [1, 2]);
    assert.deepEqual((await kc.listSegments(ds.id, doc.id, { keyword: 'COMMENTS' })).data.map((s) => s.position), [2, 3]);
    assert.equal((await kc.listSegments(ds.id, doc.id, { status: ['completed'] })).total, 5);
    assert.equal((await kc.listSegments(ds.id, doc.id, { status: ['indexing', 'error'] })).total, 0);
    await rejects(kc.listSegments(ds.id, '00000000-0000-4000-8000-000000000000'), { status: 404, code: 'not_found', message: 'Document not found.' });
    await rejects(kc.listSegments(VENDOR_ID, (await kc.listDocuments(VENDOR_ID)).data[0]!.id), { status: 400, code: 'provider_not_initialize', message: NO_EMBEDDING });
  });

  test('DELETE answers 200 (the seed; the real service says 204); the chunk is gone from listings and counts', async () => {
    const ds = await newDataset();
    const { batch, document } = await kc.createDocumentByText(ds.id, { name: 'del', text: PARAGRAPHS.join('\n\n'), process_rule: CUSTOM() });
    await kc.waitForIndexing(ds.id, batch, { intervalMs: 5 });
    const before = await allSegments(ds.id, document.id);
    const victim = before[1]!;
    const datasetBefore = await kc.getDataset(ds.id);
    const raw = await kc.transport.send('DELETE', `/datasets/${ds.id}/documents/${document.id}/segments/${victim.id}`);
    assert.equal(raw.status, 200);
    assert.deepEqual(await raw.json(), { result: 'success' });
    const after = await allSegments(ds.id, document.id);
    assert.deepEqual(after.map((s) => s.id), before.filter((s) => s.id !== victim.id).map((s) => s.id));
    const doc = (await kc.listDocuments(ds.id)).data[0]!;
    assert.equal(doc.word_count, before.reduce((sum, s) => sum + s.word_count, 0) - victim.word_count);
    assert.equal(doc.tokens, after.reduce((sum, s) => sum + s.tokens, 0));
    assert.equal((await kc.getDataset(ds.id)).word_count, datasetBefore.word_count - victim.word_count);
    const [status] = (await kc.getIndexingStatus(ds.id, batch)).data;
    assert.deepEqual([status!.total_segments, status!.completed_segments], [4, 4]);
    await rejects(kc.deleteSegment(ds.id, document.id, victim.id), { status: 404, code: 'not_found', message: 'Segment not found.' });
    await kc.deleteSegment(ds.id, document.id, after[0]!.id);
    assert.equal((await allSegments(ds.id, document.id)).length, 3);
    await rejects(kc.deleteSegment(ds.id, '00000000-0000-4000-8000-000000000000', victim.id), { status: 404, code: 'not_found', message: 'Document not found.' });
    const vendorDoc = (await kc.listDocuments(VENDOR_ID)).data[0]!;
    await rejects(kc.deleteSegment(VENDOR_ID, vendorDoc.id, victim.id), { status: 400, code: 'invalid_param', message: NO_EMBEDDING });
  });

  test('chunks of the fixture knowledge base can be deleted by the scoped key', async () => {
    const docs = await h.scoped.listDocuments(HANDBOOK_ID);
    const doc = docs.data.find((d) => d.name === 'Release calendar.md')!;
    const segs = (await h.scoped.listSegments(HANDBOOK_ID, doc.id)).data;
    assert.equal(segs.length, 4, 'the fixture document was chunked at load (heading + 3 paragraphs)');
    await h.scoped.deleteSegment(HANDBOOK_ID, doc.id, segs[0]!.id);
    assert.equal((await h.scoped.listSegments(HANDBOOK_ID, doc.id)).total, 3);
  });
});

describe('re-indexing with original_document_id', () => {
  test('the same document gets new text, a new batch and new chunks', async () => {
    const ds = await newDataset();
    const doc = await indexed(ds.id, { name: 'v1', text: 'Old first.\n\nOld second.', process_rule: CUSTOM() });
    const { document, batch } = await kc.createDocumentByText(ds.id, { name: 'v2', text: 'New only.', original_document_id: doc.id });
    assert.equal(document.id, doc.id);
    assert.equal(document.name, 'v2');
    assert.equal(document.indexing_status, 'waiting');
    await kc.waitForIndexing(ds.id, batch, { intervalMs: 5 });
    assert.deepEqual((await allSegments(ds.id, doc.id)).map((s) => s.content), ['New only.']);
    const listed = await kc.listDocuments(ds.id);
    assert.equal(listed.total, 1);
    assert.equal(listed.data[0]!.word_count, 'New only.'.length);
    await rejects(kc.createDocumentByText(ds.id, { name: 'x', text: 'y', original_document_id: '00000000-0000-4000-8000-000000000000' }), { status: 404, code: 'not_found', message: 'Document not found.' });
  });
});
