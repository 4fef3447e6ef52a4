/** The record → wire serialisers, on records built in memory (no service, no timers). */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { newSegment } from '../../src/service/knowledge/indexing.js';
import { ModelRegistry } from '../../src/service/knowledge/models.js';
import { resolveRule } from '../../src/service/knowledge/process-rules.js';
import { newDocument, textFile, type DatasetRecord } from '../../src/service/knowledge/records.js';
import { datasetJSON, documentJSON, indexingStatusJSON, segmentJSON, tagJSON, type WorkspaceView } from '../../src/service/knowledge/serialise.js';

const OWNER = { id: 'owner-1', name: 'Owner One', email: '' };

function dataset(overrides: Partial<DatasetRecord> = {}): DatasetRecord {
  return {
    id: 'ds-1', name: 'KB', description: '', provider: 'vendor', permission: 'only_me', partial_members: [],
    indexing_technique: 'high_quality', embedding_model: 'emb', embedding_model_provider: 'openai', retrieval_model: null,
    summary_index_setting: null, chunk_structure: null, created_by: OWNER.id, updated_by: OWNER.id, created_at: 100, updated_at: 100,
    app_count: 0, tags: ['t1'], pipeline_id: null, runtime_mode: null, icon_info: null, doc_metadata: [{ id: 'm1', name: 'lang', type: 'string' }],
    built_in_field_enabled: false, enable_api: true, is_multimodal: false, external: null, external_retrieval_model: null,
    latest_rule: null, documents: [], queries: [], ...overrides,
  };
}

const view: WorkspaceView = {
  registry: new ModelRegistry([{ provider: 'langgenius/openai/openai', model: 'emb', model_type: 'text-embedding', status: 'active', default: true }], 'langgenius'),
  accounts: new Map([[OWNER.id, OWNER]]),
  tags: [{ id: 't1', name: 'Docs' }],
  externalApi: () => undefined,
  pipelinePublished: () => false,
};

function documentIn(ds: DatasetRecord) {
  const doc = newDocument({
    position: 1, name: 'a.txt', text: 'Alpha beta.', batch: 'b1', doc_form: 'text_model', doc_language: 'English',
    rule: { id: 'r1', rule: resolveRule(null, 'text_model') }, upload_file: textFile('a.txt', 'Alpha beta.', OWNER.id, 100), created_by: OWNER.id, created_at: 100,
  });
  const seg = newSegment(ds, { position: 1, content: 'Alpha beta.', answer: null, children: [], created_by: OWNER.id, now: 100 });
  seg.status = 'completed';
  seg.completed_at = 100;
  doc.segments.push(seg);
  doc.indexing_status = 'completed';
  doc.completed_at = 100;
  ds.documents.push(doc);
  return doc;
}

describe('knowledge serialisers', () => {
  it('a knowledge base: counts, tags, the full provider id in lists, partial members only where they belong', () => {
    const ds = dataset();
    documentIn(ds);
    const list = datasetJSON(ds, 'list', view);
    assert.equal(list.embedding_model_provider, 'langgenius/openai/openai');
    assert.equal(list.embedding_available, true);
    assert.equal(list.document_count, 1);
    assert.equal(list.total_available_documents, 1);
    assert.equal(list.word_count, 11, 'characters, as the real service counts words');
    assert.equal(list.author_name, 'Owner One');
    assert.deepEqual(list.tags, [{ id: 't1', name: 'Docs', type: 'knowledge' }]);
    assert.equal('partial_member_list' in list, false);
    assert.equal(datasetJSON(ds, 'detail', view).embedding_model_provider, 'openai');
    assert.deepEqual(datasetJSON(ds, 'update', view).partial_member_list, []);
    assert.equal(datasetJSON({ ...ds, indexing_technique: 'economy' }, 'detail', view).retrieval_model_dict.search_method, 'keyword_search');
  });

  it('a document: display status, tokens and words from live chunks, metadata values by field', () => {
    const ds = dataset();
    const doc = documentIn(ds);
    doc.metadata.set('m1', 'en');
    const json = documentJSON(doc, ds.doc_metadata);
    assert.equal(json.display_status, 'available');
    assert.equal(json.word_count, 11);
    assert.deepEqual(json.doc_metadata, [{ id: 'm1', name: 'lang', type: 'string', value: 'en' }]);
    doc.archived = true;
    assert.equal(documentJSON(doc).display_status, 'archived');
    doc.segments[0]!.status = 're_segment';
    assert.equal(documentJSON(doc).word_count, 0);
    assert.deepEqual(indexingStatusJSON(doc), {
      id: doc.id, indexing_status: 'completed', processing_started_at: null, parsing_completed_at: null, cleaning_completed_at: null,
      splitting_completed_at: null, completed_at: 100, paused_at: null, error: null, stopped_at: null, completed_segments: 0, total_segments: 0,
    });
  });

  it('a chunk carries its document id and copies of its lists', () => {
    const ds = dataset();
    const doc = documentIn(ds);
    const seg = doc.segments[0]!;
    const json = segmentJSON(seg, doc.id);
    assert.equal(json.document_id, doc.id);
    json.keywords.push('x');
    assert.deepEqual(seg.keywords, []);
    assert.deepEqual(tagJSON({ id: 't1', name: 'Docs' }, [ds]), { id: 't1', name: 'Docs', type: 'knowledge', binding_count: '1' });
  });
});
