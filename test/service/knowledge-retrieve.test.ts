/**
 * `POST /datasets/{id}/retrieve` conformance over real HTTP: shapes, the payload's errors and the
 * 250-character limit, keys and scopes, the rate limit, what is never returned, models a search
 * needs, child chunks, and the side effects (a recorded query, no hit count).
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { RetrievalModel, RetrieveResponse } from '../../src/protocol/index.js';
import { NOT_FOUND_TEXT } from '../../src/service/errors.js';
import { parseFixture } from '../../src/service/index.js';
import { KnowledgeStore } from '../../src/service/knowledge/index.js';
import { NO_MODEL_FOR_RETRIEVAL, retrieve } from '../../src/service/knowledge/retrieval.js';
import {
  ARCHIVE_ID,
  defaultFixtureJson,
  EMBEDDING,
  EXTERNAL_ID,
  HANDBOOK_ID,
  OWNER_ID,
  rejects,
  startKnowledge,
  SUPPORT_FAQ_ID,
  uniqueName,
  VENDOR_ID,
  type KnowledgeHarness,
} from './knowledge-helpers.js';

const RECORD_KEYS = ['child_chunks', 'files', 'score', 'segment', 'summary', 'tsne_position'];
const SEGMENT_KEYS = [
  'answer', 'completed_at', 'content', 'created_at', 'created_by', 'disabled_at', 'disabled_by', 'document', 'document_id', 'enabled', 'error',
  'hit_count', 'id', 'index_node_hash', 'index_node_id', 'indexing_at', 'keywords', 'position', 'sign_content', 'status', 'stopped_at',
  'tokens', 'updated_at', 'updated_by', 'word_count',
];

const semantic = (extra: Partial<RetrievalModel> = {}): RetrievalModel => ({
  search_method: 'semantic_search',
  reranking_enable: false,
  top_k: 3,
  score_threshold_enabled: false,
  ...extra,
});

let h: KnowledgeHarness;
before(async () => {
  h = await startKnowledge();
});
after(() => h.close());

const post = (id: string, body: unknown, key = 'dataset-demo') =>
  fetch(`${h.url}/datasets/${id}/retrieve`, { method: 'POST', headers: { Authorization: `Bearer ${key}`, 'Content-Type': 'application/json' }, body: JSON.stringify(body) });

describe('POST /datasets/{id}/retrieve: answers', () => {
  test('records best first with the real fields; the query is echoed', async () => {
    const res = await h.kc.retrieve(HANDBOOK_ID, { query: 'How do I upload a file?', retrieval_model: semantic() });
    assert.deepEqual(res.query, { content: 'How do I upload a file?' });
    assert.ok(res.records.length > 0 && res.records.length <= 3);
    for (const r of res.records) {
      assert.deepEqual(Object.keys(r).sort(), RECORD_KEYS);
      assert.deepEqual(Object.keys(r.segment).sort(), SEGMENT_KEYS);
      assert.deepEqual(Object.keys(r.segment.document).sort(), ['data_source_type', 'doc_metadata', 'doc_type', 'id', 'name']);
      assert.equal(r.segment.document.id, r.segment.document_id);
      assert.equal(r.tsne_position, null);
      assert.deepEqual(r.files, []);
      assert.ok(typeof r.score === 'number' && r.score >= 0 && r.score <= 1);
    }
    const scores = res.records.map((r) => r.score!);
    assert.deepEqual(scores, [...scores].sort((a, b) => b - a));
    assert.equal(res.records[0]!.segment.document.name, 'Uploading files.md');
  });

  test("without retrieval_model the knowledge base's own settings apply (Demo handbook: hybrid, top_k 4)", async () => {
    const res = await h.kc.retrieve(HANDBOOK_ID, { query: 'review guidelines approve upload release calendar getting started' });
    assert.equal(res.records.length, 4);
  });

  test('top_k bounds the records; the hit-testing alias answers the same', async () => {
    const one = await h.kc.retrieve(HANDBOOK_ID, { query: 'review', retrieval_model: semantic({ top_k: 1 }) });
    assert.equal(one.records.length, 1);
    const res = await post(HANDBOOK_ID, { query: 'review', retrieval_model: semantic({ top_k: 1 }) });
    const alias = await fetch(`${h.url}/datasets/${HANDBOOK_ID}/hit-testing`, {
      method: 'POST',
      headers: { Authorization: 'Bearer dataset-demo', 'Content-Type': 'application/json' },
      body: JSON.stringify({ query: 'review', retrieval_model: semantic({ top_k: 1 }) }),
    });
    assert.equal(alias.status, 200);
    const [a, b] = (await Promise.all([alias.json(), res.json()])) as RetrieveResponse[];
    assert.equal(a!.records[0]!.segment.id, b!.records[0]!.segment.id);
  });

  test('score_threshold drops weaker records when enabled, and only then', async () => {
    const all = await h.kc.retrieve(HANDBOOK_ID, { query: 'upload files', retrieval_model: semantic({ top_k: 10 }) });
    const cut = all.records[1]!.score!;
    const kept = await h.kc.retrieve(HANDBOOK_ID, { query: 'upload files', retrieval_model: semantic({ top_k: 10, score_threshold_enabled: true, score_threshold: cut }) });
    assert.ok(kept.records.length < all.records.length);
    assert.ok(kept.records.every((r) => r.score! >= cut));
    const ignored = await h.kc.retrieve(HANDBOOK_ID, { query: 'upload files', retrieval_model: semantic({ top_k: 10, score_threshold_enabled: false, score_threshold: 0.99 }) });
    assert.equal(ignored.records.length, all.records.length);
  });

  test('keyword search on an economy knowledge base: keyword hits carry score 0', async () => {
    const res = await h.kc.retrieve(SUPPORT_FAQ_ID, { query: 'review', retrieval_model: { ...semantic(), search_method: 'keyword_search' } });
    assert.ok(res.records.length > 0);
    assert.ok(res.records.every((r) => r.score === 0));
  });

  test('nothing indexed (an external knowledge base, or no available document): no records', async () => {
    assert.deepEqual(await h.kc.retrieve(EXTERNAL_ID, { query: 'x' }), { query: { content: 'x' }, records: [] });
    assert.deepEqual((await h.kc.retrieve(ARCHIVE_ID, { query: '2.3.0 release' })).records, []);
  });

  test('child chunks of a hierarchical document: matching children under their parent, the record scored by the best', async () => {
    const ds = await h.kc.createDataset({ name: uniqueName('Parent'), indexing_technique: 'high_quality', ...EMBEDDING });
    const { batch } = await h.kc.createDocumentByText(ds.id, {
      name: 'guide',
      text: 'Ovens heat slowly.\nPreheat the oven for twenty minutes.\n\nBikes need air.\nPump the tyres weekly.',
      doc_form: 'hierarchical_model',
      process_rule: {
        mode: 'hierarchical',
        rules: { pre_processing_rules: [], segmentation: { separator: '\n\n', max_tokens: 500 }, parent_mode: 'paragraph', subchunk_segmentation: { separator: '\n', max_tokens: 100 } },
      },
    });
    await h.kc.waitForIndexing(ds.id, batch, { intervalMs: 10 });
    const res = await h.kc.retrieve(ds.id, { query: 'preheat the oven', retrieval_model: semantic({ top_k: 4 }) });
    const top = res.records[0]!;
    assert.match(top.segment.content, /Preheat the oven/);
    assert.ok(top.child_chunks.length >= 1);
    assert.equal(top.child_chunks[0]!.content, 'Preheat the oven for twenty minutes.');
    assert.deepEqual(Object.keys(top.child_chunks[0]!).sort(), ['content', 'id', 'position', 'score']);
    assert.equal(top.score, Math.max(...top.child_chunks.map((c) => c.score)));
  });
});

describe('POST /datasets/{id}/retrieve: what is never returned', () => {
  test('disabled and archived documents and disabled chunks', async () => {
    const local = await startKnowledge();
    try {
      const query = { query: 'upload files review release calendar getting started', retrieval_model: semantic({ top_k: 50, search_method: 'full_text_search' }) };
      const names = async () => new Set((await local.kc.retrieve(HANDBOOK_ID, query)).records.map((r) => r.segment.document.name));
      assert.ok((await names()).has('Uploading files.md'));
      const docs = (await local.kc.listDocuments(HANDBOOK_ID)).data;
      const id = (name: string) => docs.find((d) => d.name === name)!.id;
      await local.kc.updateDocumentStatus(HANDBOOK_ID, 'disable', [id('Uploading files.md')]);
      await local.kc.updateDocumentStatus(HANDBOOK_ID, 'archive', [id('Release calendar.md')]);
      const after = await names();
      assert.ok(!after.has('Uploading files.md'), 'disabled document');
      assert.ok(!after.has('Release calendar.md'), 'archived document');

      const guideId = id('Review guidelines.md');
      const segments = (await local.kc.listSegments(HANDBOOK_ID, guideId)).data;
      const target = segments[0]!;
      const found = async () => (await local.kc.retrieve(HANDBOOK_ID, query)).records.some((r) => r.segment.id === target.id);
      assert.ok(await found());
      await local.kc.updateSegment(HANDBOOK_ID, guideId, target.id, { segment: { enabled: false } });
      assert.ok(!(await found()), 'disabled chunk');
      await local.kc.updateSegment(HANDBOOK_ID, guideId, target.id, { segment: { enabled: true } });
      assert.ok(await found(), 'enabled again');
    } finally {
      await local.close();
    }
  });
});

describe('POST /datasets/{id}/retrieve: errors', () => {
  test('query: required, not empty, at most 250 characters (counted as characters, not UTF-16 units)', async () => {
    await rejects(h.kc.retrieve(HANDBOOK_ID, {} as never), { status: 400, code: 'invalid_param', message: '1 validation error for HitTestingPayload\nquery\n  Field required' });
    await rejects(h.kc.retrieve(HANDBOOK_ID, { query: '' }), { status: 400, code: 'invalid_param', message: 'Query or attachment_ids is required' });
    await rejects(h.kc.retrieve(HANDBOOK_ID, { query: 'x'.repeat(251) }), {
      status: 400,
      code: 'invalid_param',
      message: '1 validation error for HitTestingPayload\nquery\n  String should have at most 250 characters',
    });
    assert.equal((await h.kc.retrieve(HANDBOOK_ID, { query: 'x'.repeat(250) })).query.content.length, 250);
    const emoji = '📄'.repeat(250);
    assert.equal((await h.kc.retrieve(HANDBOOK_ID, { query: emoji })).query.content, emoji);
  });

  test('retrieval_model: pydantic types and the seed rules', async () => {
    await rejects(h.kc.retrieve(HANDBOOK_ID, { query: 'x', retrieval_model: { ...semantic(), search_method: 'fuzzy' as never } }), {
      status: 400,
      code: 'invalid_param',
      message: /^1 validation error for HitTestingPayload\nretrieval_model\.search_method\n  Input should be 'keyword_search', 'semantic_search', 'full_text_search' or 'hybrid_search'/,
    });
    await rejects(h.kc.retrieve(HANDBOOK_ID, { query: 'x', retrieval_model: semantic({ reranking_enable: true }) }), {
      status: 400,
      code: 'invalid_param',
      message: /reranking_mode is required when reranking_enable is true/,
    });
    await rejects(
      h.kc.retrieve(HANDBOOK_ID, {
        query: 'x',
        retrieval_model: semantic({ metadata_filtering_conditions: { conditions: [{ name: 'revision', comparison_operator: 'contains', value: '1' }] } }),
      }),
      { status: 400, code: 'invalid_param', message: /'contains' does not apply to the number metadata field 'revision'/ },
    );
  });

  test('a model the search needs that is not available: 400 provider_not_initialize', async () => {
    const expected = { status: 400, code: 'provider_not_initialize', message: NO_MODEL_FOR_RETRIEVAL };
    const rerank = (provider: string, name: string) =>
      semantic({ reranking_enable: true, reranking_mode: 'reranking_model', reranking_model: { reranking_provider_name: provider, reranking_model_name: name } });
    await rejects(h.kc.retrieve(HANDBOOK_ID, { query: 'review', retrieval_model: rerank('langgenius/voyage/voyage', 'rerank-2') }), expected);
    await rejects(h.kc.retrieve(HANDBOOK_ID, { query: 'review', retrieval_model: rerank('langgenius/cohere/cohere', 'no-such-model') }), expected);
    // An economy knowledge base has no embedding model for semantic search.
    await rejects(h.kc.retrieve(SUPPORT_FAQ_ID, { query: 'review', retrieval_model: semantic() }), expected);
    // Vendor contracts' embedding model is not configured.
    await rejects(h.kc.retrieve(VENDOR_ID, { query: 'hosting', retrieval_model: semantic() }), expected);
    assert.ok((await h.kc.retrieve(VENDOR_ID, { query: 'hosting', retrieval_model: { ...semantic(), search_method: 'full_text_search' } })).records.length);
  });

  test('ids, keys and scopes', async () => {
    const bad = await post('not-a-uuid', { query: 'x' });
    assert.equal(bad.status, 404);
    assert.deepEqual(await bad.json(), { code: 'not_found', message: NOT_FOUND_TEXT, status: 404 });
    await rejects(h.kc.retrieve('00000000-0000-4000-8000-000000000000', { query: 'x' }), { status: 404, code: 'not_found', message: 'Dataset not found.' });
    await rejects(h.client('dataset-nope').retrieve(HANDBOOK_ID, { query: 'x' }), { status: 401, code: 'unauthorized', message: 'Access token is invalid' });
    await rejects(h.client('app-demo-workflow').retrieve(HANDBOOK_ID, { query: 'x' }), { status: 401, code: 'unauthorized' });
    assert.ok((await h.scoped.retrieve(HANDBOOK_ID, { query: 'review' })).records.length);
    await rejects(h.scoped.retrieve(SUPPORT_FAQ_ID, { query: 'review' }), { status: 403, code: 'forbidden' });
  });

  test('retrieval counts against the rate limit', async () => {
    const limited = await startKnowledge((raw) => {
      raw.knowledge.subscription.knowledge_rate_limit = { enabled: true, limit: 2, window_seconds: 60 };
    });
    try {
      await limited.kc.retrieve(HANDBOOK_ID, { query: 'review' });
      await limited.kc.retrieve(HANDBOOK_ID, { query: 'review' });
      await rejects(limited.kc.retrieve(HANDBOOK_ID, { query: 'review' }), {
        status: 403,
        code: 'forbidden',
        message: 'Sorry, you have reached the knowledge base request rate limit of your subscription.',
      });
    } finally {
      await limited.close();
    }
  });
});

describe('POST /datasets/{id}/retrieve: side effects', () => {
  test('no hit count changes', async () => {
    const docs = (await h.kc.listDocuments(HANDBOOK_ID)).data;
    const doc = docs.find((d) => d.name === 'Uploading files.md')!;
    const before = await h.kc.listSegments(HANDBOOK_ID, doc.id);
    for (let i = 0; i < 3; i++) await h.kc.retrieve(HANDBOOK_ID, { query: 'upload files', retrieval_model: semantic() });
    const afterSegments = await h.kc.listSegments(HANDBOOK_ID, doc.id);
    assert.deepEqual(afterSegments.data.map((s) => s.hit_count), before.data.map((s) => s.hit_count));
    assert.equal((await h.kc.listDocuments(HANDBOOK_ID)).data.find((d) => d.id === doc.id)!.hit_count, doc.hit_count);
  });

  test('each search is recorded as a query of the knowledge base (source hit_testing, by the owner)', async () => {
    const store = new KnowledgeStore(parseFixture(defaultFixtureJson()).knowledge, { stageDelayMs: 1, statusReindexMs: 0, maxSegmentationTokens: 4000 });
    try {
      const ds = store.requireDataset(HANDBOOK_ID);
      await retrieve(store, ds, { query: 'upload files' });
      assert.equal(ds.queries.length, 1);
      assert.deepEqual({ ...ds.queries[0], id: undefined, created_at: undefined }, { id: undefined, content: 'upload files', source: 'hit_testing', created_by: OWNER_ID, created_at: undefined });
      // Nothing searched, nothing recorded.
      const archive = store.requireDataset(ARCHIVE_ID);
      await retrieve(store, archive, { query: 'x' });
      assert.equal(archive.queries.length, 0);
    } finally {
      store.close();
    }
  });
});
