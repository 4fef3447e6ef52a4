/**
 * Knowledge bases over real HTTP through KnowledgeClient: keys and scopes, the rate limit,
 * create / list / get / update with the seed's bounds and presence rules, model availability,
 * provider identifier expansion, external knowledge bases and tags (service-api.md 1, 2, 6).
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { KnowledgeClient } from '../../src/client/knowledge.js';
import type { Dataset } from '../../src/protocol/index.js';
import {
  ALEX_ID,
  ARCHIVE_ID,
  EMBEDDING,
  EXTERNAL_ID,
  HANDBOOK_ID,
  OWNER_ID,
  SAM_ID,
  startKnowledge,
  SUPPORT_FAQ_ID,
  uniqueName,
  VENDOR_ID,
  rejects,
  type KnowledgeHarness,
} from './knowledge-helpers.js';

const NO_EMBEDDING = 'No Embedding Model available. Please configure a valid provider in the Settings -> Model Provider.';
const NO_RERANK = 'No Rerank Model available. Please configure a valid provider in the Settings -> Model Provider.';
const NOT_FOUND_TEXT =
  'The requested URL was not found on the server. If you entered the URL manually please check your spelling and try again.';

/** Every field of the seed's knowledge base table, except `partial_member_list` (presence varies). */
const DATASET_FIELDS = [
  'id', 'name', 'description', 'provider', 'permission', 'indexing_technique', 'embedding_model', 'embedding_model_provider',
  'embedding_available', 'doc_form', 'chunk_structure', 'data_source_type', 'document_count', 'total_documents',
  'total_available_documents', 'word_count', 'app_count', 'author_name', 'maintainer', 'created_by', 'updated_by', 'created_at',
  'updated_at', 'built_in_field_enabled', 'doc_metadata', 'enable_api', 'is_multimodal', 'is_published', 'pipeline_id',
  'runtime_mode', 'icon_info', 'external_knowledge_info', 'external_retrieval_model', 'retrieval_model_dict',
  'summary_index_setting', 'tags',
].sort();

let h: KnowledgeHarness;
let kc: KnowledgeClient;

before(async () => {
  h = await startKnowledge();
  kc = h.kc;
});
after(() => h.close());

describe('keys', () => {
  test('a missing, malformed or unknown key gets 401 with the real messages', async () => {
    const raw = (headers: Record<string, string>) => fetch(`${h.url}/datasets`, { headers }).then(async (r) => ({ status: r.status, body: (await r.json()) as { message: string }, www: r.headers.get('www-authenticate') }));
    let r = await raw({});
    assert.equal(r.status, 401);
    assert.deepEqual(r.body, { code: 'unauthorized', message: "Authorization header must be provided and start with 'Bearer'", status: 401 });
    assert.equal(r.www, 'Bearer realm="api"');
    r = await raw({ Authorization: 'Basic dataset-demo' });
    assert.equal(r.body.message, "Authorization scheme must be 'Bearer'");
    r = await raw({ Authorization: 'Bearer dataset-nope' });
    assert.equal(r.body.message, 'Access token is invalid');
  });

  test('app keys are not knowledge keys, and knowledge keys are not app keys', async () => {
    await rejects(h.client('app-demo-workflow').listDatasets(), { status: 401, code: 'unauthorized', message: 'Access token is invalid' });
    const site = await fetch(`${h.url}/site`, { headers: { Authorization: 'Bearer dataset-demo' } });
    assert.equal(site.status, 401);
  });

  test('the scoped key gets 403 on routes without a knowledge base id', async () => {
    await rejects(h.scoped.listDatasets(), { status: 403, code: 'forbidden' });
    await rejects(h.scoped.createDataset({ name: uniqueName() }), { status: 403, code: 'forbidden' });
    await rejects(h.scoped.listTags(), { status: 403, code: 'forbidden' });
  });

  test('the scoped key works on Demo handbook and gets 403 on every other knowledge base', async () => {
    const handbook = await h.scoped.getDataset(HANDBOOK_ID);
    assert.equal(handbook.name, 'Demo handbook');
    const docs = await h.scoped.listDocuments(HANDBOOK_ID);
    assert.equal(docs.total, 4);
    for (const id of [SUPPORT_FAQ_ID, ARCHIVE_ID, EXTERNAL_ID]) {
      await rejects(h.scoped.getDataset(id), { status: 403, code: 'forbidden' });
      await rejects(h.scoped.listDocuments(id), { status: 403, code: 'forbidden' });
    }
    // Also on knowledge bases it did not know of (created after it was issued) and ones that do not exist.
    const created = await kc.createDataset({ name: uniqueName('Scope') });
    await rejects(h.scoped.updateDataset(created.id, { name: 'x' }), { status: 403, code: 'forbidden' });
    await rejects(h.scoped.getDataset('00000000-0000-4000-8000-000000000000'), { status: 403, code: 'forbidden' });
  });

  test('a knowledge base with API access turned off answers 403', async () => {
    const off = await startKnowledge((raw) => {
      raw.knowledge.datasets[1].enable_api = false;
    });
    try {
      await rejects(off.kc.getDataset(SUPPORT_FAQ_ID), { status: 403, code: 'forbidden', message: 'Dataset api access is not enabled.' });
      assert.equal((await off.kc.getDataset(HANDBOOK_ID)).enable_api, true);
    } finally {
      await off.close();
    }
  });

  test('ids that are not UUIDs are not routes (404), unknown knowledge bases are 404 "Dataset not found."', async () => {
    const r = await fetch(`${h.url}/datasets/not-a-uuid`, { headers: { Authorization: 'Bearer dataset-demo' } });
    assert.equal(r.status, 404);
    assert.deepEqual(await r.json(), { code: 'not_found', message: NOT_FOUND_TEXT, status: 404 });
    await rejects(kc.getDataset('00000000-0000-4000-8000-000000000000'), { status: 404, code: 'not_found', message: 'Dataset not found.' });
  });
});

describe('subscription rate limit', () => {
  test('writes beyond the limit in the window get 403 with the real message, then pass again', async () => {
    const limited = await startKnowledge((raw) => {
      raw.knowledge.subscription.knowledge_rate_limit = { enabled: true, limit: 3, window_seconds: 0.4 };
    });
    try {
      // Reads do not count.
      for (let i = 0; i < 5; i++) await limited.kc.listDatasets();
      for (let i = 0; i < 3; i++) await limited.kc.createDataset({ name: uniqueName('Rate') });
      await rejects(limited.kc.createDataset({ name: uniqueName('Rate') }), {
        status: 403,
        code: 'forbidden',
        message: 'Sorry, you have reached the knowledge base request rate limit of your subscription.',
      });
      // Per subscription: every key of the workspace shares it.
      await rejects(limited.scoped.updateDataset(HANDBOOK_ID, { description: 'x' }), { status: 403, code: 'forbidden' });
      // Document status actions are not counted (the real route has no rate-limit check).
      await limited.kc.updateDocumentStatus(HANDBOOK_ID, 'enable', []);
      const page = await limited.kc.listDatasets({ limit: 100 });
      assert.equal(page.data.filter((d) => d.name.startsWith('Rate')).length, 3, 'a refused create changes nothing');
      await new Promise((r) => setTimeout(r, 450));
      await limited.kc.createDataset({ name: uniqueName('Rate') });
    } finally {
      await limited.close();
    }
  });
});

describe('POST /datasets', () => {
  test('an empty knowledge base with the defaults and every seed field', async () => {
    const name = uniqueName('Empty');
    const ds = await kc.createDataset({ name });
    assert.deepEqual(Object.keys(ds).sort(), DATASET_FIELDS);
    assert.equal(ds.name, name);
    assert.equal(ds.description, '');
    assert.equal(ds.permission, 'only_me');
    assert.equal(ds.provider, 'vendor');
    assert.equal(ds.indexing_technique, null);
    assert.equal(ds.embedding_model, null);
    assert.equal(ds.embedding_available, true);
    assert.equal(ds.data_source_type, null);
    assert.equal(ds.doc_form, null);
    assert.equal(ds.document_count, 0);
    assert.equal(ds.total_available_documents, 0);
    assert.equal(ds.word_count, 0);
    assert.equal(ds.author_name, 'Demo Owner');
    assert.equal(ds.created_by, OWNER_ID);
    assert.equal(ds.external_retrieval_model, null);
    assert.equal(ds.external_knowledge_info, null);
    assert.deepEqual(ds.tags, []);
    assert.deepEqual(ds.retrieval_model_dict, {
      search_method: 'semantic_search',
      reranking_enable: false,
      reranking_mode: null,
      reranking_model: { reranking_provider_name: '', reranking_model_name: '' },
      weights: null,
      top_k: 2,
      score_threshold_enabled: false,
      score_threshold: null,
      metadata_filtering_conditions: null,
    });
    assert.ok(Math.abs(ds.created_at - Date.now() / 1000) < 5, 'epoch seconds');
    assert.match(ds.id, /^[0-9a-f-]{36}$/);
  });

  test('duplicate names get 409 dataset_name_duplicate', async () => {
    await rejects(kc.createDataset({ name: 'Demo handbook' }), {
      status: 409,
      code: 'dataset_name_duplicate',
      message: 'The dataset name already exists. Please modify your dataset name.',
    });
    const name = uniqueName('Dup');
    await kc.createDataset({ name });
    await rejects(kc.createDataset({ name }), { status: 409, code: 'dataset_name_duplicate' });
  });

  test('name is 1 to 40 characters and description at most 400', async () => {
    await rejects(kc.createDataset({ name: '' }), { status: 400, code: 'invalid_param', message: /name\n {2}String should have at least 1 character/ });
    await rejects(kc.createDataset({ name: 'n'.repeat(41) }), { status: 400, code: 'invalid_param', message: /name\n {2}String should have at most 40 characters/ });
    await rejects(kc.createDataset({ name: uniqueName(), description: 'd'.repeat(401) }), {
      status: 400,
      code: 'invalid_param',
      message: /description\n {2}String should have at most 400 characters/,
    });
    const fortyName = `${uniqueName('B')}`.padEnd(40, 'x');
    const ok = await kc.createDataset({ name: fortyName, description: 'd'.repeat(400) });
    assert.equal(ok.name.length, 40);
    assert.equal(ok.description.length, 400);
    await rejects(kc.createDataset({} as never), { status: 400, code: 'invalid_param', message: /name\n {2}Field required/ });
  });

  test('enums are checked', async () => {
    await rejects(kc.createDataset({ name: uniqueName(), permission: 'everyone' as never }), { status: 400, code: 'invalid_param', message: /permission/ });
    await rejects(kc.createDataset({ name: uniqueName(), indexing_technique: 'fast' as never }), { status: 400, code: 'invalid_param', message: /indexing_technique/ });
    await rejects(kc.createDataset({ name: uniqueName(), provider: 'cloud' as never }), { status: 400, code: 'invalid_param', message: /provider/ });
  });

  test('high_quality takes the embedding model given, or the workspace default', async () => {
    const given = await kc.createDataset({ name: uniqueName(), indexing_technique: 'high_quality', embedding_model: 'embed-multilingual-v3.0', embedding_model_provider: 'langgenius/cohere/cohere' });
    assert.equal(given.embedding_model, 'embed-multilingual-v3.0');
    assert.equal(given.embedding_model_provider, 'langgenius/cohere/cohere');
    assert.equal(given.embedding_available, true);
    const fallback = await kc.createDataset({ name: uniqueName(), indexing_technique: 'high_quality' });
    assert.equal(fallback.embedding_model, 'text-embedding-3-small');
    assert.equal(fallback.embedding_model_provider, 'langgenius/openai/openai');
    const economy = await kc.createDataset({ name: uniqueName(), indexing_technique: 'economy', ...EMBEDDING });
    assert.equal(economy.embedding_model, null, 'economy keeps no embedding model');
  });

  test('embedding models that are not listed or not active get 400 invalid_param', async () => {
    const cases = [
      { embedding_model: 'text-embedding-9', embedding_model_provider: 'langgenius/openai/openai' },
      { embedding_model: 'voyage-3', embedding_model_provider: 'langgenius/voyage/voyage' }, // listed, not configured
      { embedding_model: 'rerank-multilingual-v3.0', embedding_model_provider: 'langgenius/cohere/cohere' }, // wrong type
    ];
    for (const models of cases) {
      await rejects(kc.createDataset({ name: uniqueName(), indexing_technique: 'high_quality', ...models }), { status: 400, code: 'invalid_param', message: NO_EMBEDDING });
    }
    await rejects(kc.createDataset({ name: uniqueName(), indexing_technique: 'high_quality', embedding_model: 'x', embedding_model_provider: 'Not/A Provider' }), {
      status: 400,
      code: 'invalid_param',
      message: 'Invalid plugin id Not/A Provider',
    });
  });

  test('a bare provider name expands to <default_organization>/<name>/<name>', async () => {
    const ds = await kc.createDataset({ name: uniqueName(), indexing_technique: 'high_quality', embedding_model: 'text-embedding-3-large', embedding_model_provider: 'openai' });
    assert.equal(ds.embedding_model_provider, 'langgenius/openai/openai');
    // Only for plugins published by the default organization.
    await rejects(kc.createDataset({ name: uniqueName(), indexing_technique: 'high_quality', embedding_model: 'acme-embed-1', embedding_model_provider: 'acme-embed' }), {
      status: 400,
      code: 'invalid_param',
      message: NO_EMBEDDING,
    });
    const full = await kc.createDataset({ name: uniqueName(), indexing_technique: 'high_quality', embedding_model: 'acme-embed-1', embedding_model_provider: 'acme/acme-embed/acme-embed' });
    assert.equal(full.embedding_available, true);
  });

  test('reranking models are checked against the rerank models', async () => {
    const retrieval = (provider: string, model: string) => ({
      search_method: 'semantic_search' as const,
      reranking_enable: true,
      reranking_mode: 'reranking_model' as const,
      reranking_model: { reranking_provider_name: provider, reranking_model_name: model },
      top_k: 3,
      score_threshold_enabled: false,
    });
    const ok = await kc.createDataset({ name: uniqueName(), indexing_technique: 'high_quality', retrieval_model: retrieval('cohere', 'rerank-multilingual-v3.0') });
    assert.equal(ok.retrieval_model_dict.reranking_model?.reranking_model_name, 'rerank-multilingual-v3.0');
    assert.equal(ok.retrieval_model_dict.top_k, 3);
    await rejects(kc.createDataset({ name: uniqueName(), retrieval_model: retrieval('langgenius/voyage/voyage', 'rerank-2') }), { status: 400, code: 'invalid_param', message: NO_RERANK });
    await rejects(kc.createDataset({ name: uniqueName(), retrieval_model: retrieval('langgenius/openai/openai', 'text-embedding-3-small') }), { status: 400, code: 'invalid_param', message: NO_RERANK });
  });

  test('an external knowledge base carries its API connection', async () => {
    const ds = await kc.createDataset({
      name: uniqueName('Ext'),
      provider: 'external',
      external_knowledge_api_id: 'f07d6d52-7454-456d-a830-0fac355163f1',
      external_knowledge_id: 'kb-42',
      indexing_technique: 'high_quality',
    });
    assert.equal(ds.provider, 'external');
    assert.equal(ds.indexing_technique, null);
    assert.deepEqual(ds.external_knowledge_info, {
      external_knowledge_id: 'kb-42',
      external_knowledge_api_id: 'f07d6d52-7454-456d-a830-0fac355163f1',
      external_knowledge_api_name: 'Acme search',
      external_knowledge_api_endpoint: 'https://search.example.com/retrieval',
    });
    assert.deepEqual(ds.external_retrieval_model, { top_k: 2, score_threshold: 0, score_threshold_enabled: false });
    await rejects(kc.createDataset({ name: uniqueName(), provider: 'external', external_knowledge_id: 'kb' }), { status: 400, code: 'invalid_param', message: 'External knowledge api id is required.' });
    await rejects(kc.createDataset({ name: uniqueName(), provider: 'external', external_knowledge_api_id: 'nope', external_knowledge_id: 'kb' }), {
      status: 400,
      code: 'invalid_param',
      message: 'External API template not found.',
    });
    await rejects(kc.createDocumentByText(ds.id, { name: 'a', text: 'b' }), { status: 400, code: 'invalid_param', message: 'External datasets are not supported.' });
  });

  test('summary_index_setting is kept', async () => {
    const ds = await kc.createDataset({
      name: uniqueName(),
      summary_index_setting: { enable: true, model_name: 'gpt-4o-mini', model_provider_name: 'langgenius/openai/openai', summary_prompt: 'Summarize.' },
    });
    assert.deepEqual(ds.summary_index_setting, { enable: true, model_name: 'gpt-4o-mini', model_provider_name: 'langgenius/openai/openai', summary_prompt: 'Summarize.' });
  });
});

describe('retrieval model validation', () => {
  const base = { search_method: 'semantic_search', reranking_enable: false, top_k: 2, score_threshold_enabled: false } as const;
  const create = (retrieval_model: unknown) => kc.createDataset({ name: uniqueName('RM'), indexing_technique: 'high_quality', retrieval_model: retrieval_model as never });

  test('field types and the search methods', async () => {
    await rejects(create({ ...base, search_method: 'vector_search' }), { status: 400, code: 'invalid_param', message: /retrieval_model\.search_method\n {2}Input should be 'keyword_search', 'semantic_search', 'full_text_search' or 'hybrid_search'/ });
    await rejects(create({ ...base, top_k: 'many' }), { status: 400, code: 'invalid_param', message: /retrieval_model\.top_k/ });
    await rejects(create({ ...base, top_k: 0 }), { status: 400, code: 'invalid_param', message: /top_k/ });
    await rejects(create({ search_method: 'semantic_search' }), { status: 400, code: 'invalid_param', message: /reranking_enable\n {2}Field required/ });
    for (const method of ['keyword_search', 'semantic_search', 'full_text_search', 'hybrid_search']) {
      const ds = await create({ ...base, search_method: method });
      assert.equal(ds.retrieval_model_dict.search_method, method);
    }
  });

  test('reranking_mode is required when reranking is enabled; the reranking model is optional, as the seed has it', async () => {
    await rejects(create({ ...base, reranking_enable: true }), { status: 400, code: 'invalid_param', message: /retrieval_model\.reranking_mode\n {2}Value error, reranking_mode is required when reranking_enable is true/ });
    const ok = await create({ ...base, reranking_enable: true, reranking_mode: 'reranking_model' });
    assert.equal(ok.retrieval_model_dict.reranking_mode, 'reranking_model');
    await rejects(create({ ...base, reranking_enable: true, reranking_mode: 'best' }), { status: 400, code: 'invalid_param', message: /reranking_mode/ });
  });

  test('weights are kept as given, each in [0, 1], with an available embedding model', async () => {
    const weights = (v: number, k: number) => ({
      weight_type: 'customized',
      vector_setting: { vector_weight: v, embedding_provider_name: 'langgenius/openai/openai', embedding_model_name: 'text-embedding-3-small' },
      keyword_setting: { keyword_weight: k },
    });
    const hybrid = { ...base, search_method: 'hybrid_search', reranking_enable: true, reranking_mode: 'weighted_score' };
    const ok = await create({ ...hybrid, weights: weights(0.6, 0.4) });
    assert.deepEqual(ok.retrieval_model_dict.weights, weights(0.6, 0.4));
    assert.equal(ok.retrieval_model_dict.reranking_mode, 'weighted_score');
    // The seed makes weights optional and sets no rule on their sum or the search method.
    assert.equal((await create({ ...hybrid })).retrieval_model_dict.weights, null);
    assert.equal((await create({ ...hybrid, search_method: 'semantic_search', weights: weights(0.5, 0.6) })).retrieval_model_dict.search_method, 'semantic_search');
    await rejects(create({ ...hybrid, weights: weights(1.5, -0.5) }), { status: 400, code: 'invalid_param', message: /vector_weight/ });
    await rejects(create({ ...hybrid, weights: { ...weights(0.5, 0.5), weight_type: 'balanced' } }), { status: 400, code: 'invalid_param', message: /weight_type/ });
    // The weights' embedding model must be available too.
    const unavailable = weights(0.5, 0.5);
    unavailable.vector_setting.embedding_model_name = 'voyage-3';
    unavailable.vector_setting.embedding_provider_name = 'langgenius/voyage/voyage';
    await rejects(create({ ...hybrid, weights: unavailable }), { status: 400, code: 'invalid_param', message: NO_EMBEDDING });
  });

  test('score_threshold is a number in [0, 1], optional even when thresholds are on', async () => {
    assert.equal((await create({ ...base, score_threshold_enabled: true })).retrieval_model_dict.score_threshold, null);
    await rejects(create({ ...base, score_threshold_enabled: true, score_threshold: 1.5 }), { status: 400, code: 'invalid_param', message: /score_threshold/ });
    const ok = await create({ ...base, score_threshold_enabled: true, score_threshold: 0.5 });
    assert.equal(ok.retrieval_model_dict.score_threshold, 0.5);
  });

  test('metadata conditions: operators, value typing, and operators per metadata type', async () => {
    const withConditions = (conditions: unknown[], logical_operator = 'and') => ({ ...base, metadata_filtering_conditions: { logical_operator, conditions } });
    const ok = await create(withConditions([
      { name: 'category', comparison_operator: 'contains', value: 'review' },
      { name: 'category', comparison_operator: 'in', value: ['a', 'b'] },
      { name: 'category', comparison_operator: 'empty' },
      { name: 'revision', comparison_operator: '≥', value: 2 },
      { name: 'reviewed_on', comparison_operator: 'before', value: 1767225600 },
    ], 'or'));
    assert.equal(ok.retrieval_model_dict.metadata_filtering_conditions?.logical_operator, 'or');
    assert.equal(ok.retrieval_model_dict.metadata_filtering_conditions?.conditions?.length, 5);
    const defaulted = await create({ ...base, metadata_filtering_conditions: { conditions: [] } });
    assert.equal(defaulted.retrieval_model_dict.metadata_filtering_conditions?.logical_operator, 'and');

    const bad: [unknown, RegExp][] = [
      [{ name: 'x', comparison_operator: 'like', value: 'a' }, /comparison_operator/],
      [{ name: 'x', comparison_operator: '>=', value: 1 }, /comparison_operator/],
      [{ name: 'x', comparison_operator: 'contains', value: 3 }, /value must be a string for 'contains'/],
      [{ name: 'x', comparison_operator: 'in', value: 'a' }, /value must be an array of strings for 'in'/],
      [{ name: 'x', comparison_operator: 'not in', value: [1] }, /value/],
      [{ name: 'x', comparison_operator: '=', value: '3' }, /value must be a number for '='/],
      [{ name: 'x', comparison_operator: 'after', value: 'yesterday' }, /value must be a timestamp/],
      [{ name: 'x', comparison_operator: 'not empty', value: 'a' }, /value must be omitted for 'not empty'/],
      [{ comparison_operator: 'is', value: 'a' }, /conditions\.0\.name\n {2}Field required/],
    ];
    for (const [condition, message] of bad) {
      await rejects(create(withConditions([condition])), { status: 400, code: 'invalid_param', message });
    }
    await rejects(create({ ...base, metadata_filtering_conditions: { logical_operator: 'xor', conditions: [] } }), { status: 400, code: 'invalid_param', message: /logical_operator/ });
  });

  test("on an existing knowledge base the operator must fit the metadata field's type", async () => {
    const patch = (condition: unknown) =>
      kc.updateDataset(HANDBOOK_ID, { retrieval_model: { ...base, metadata_filtering_conditions: { conditions: [condition] } } as never });
    await rejects(patch({ name: 'revision', comparison_operator: 'contains', value: 'x' }), { status: 400, code: 'invalid_param', message: /'contains' does not apply to the number metadata field 'revision'/ });
    await rejects(patch({ name: 'category', comparison_operator: '>', value: 1 }), { status: 400, code: 'invalid_param', message: /'>' does not apply to the string metadata field 'category'/ });
    await rejects(patch({ name: 'reviewed_on', comparison_operator: 'is', value: 'x' }), { status: 400, code: 'invalid_param', message: /time metadata field/ });
    // Built-in fields count when enabled.
    await rejects(patch({ name: 'upload_date', comparison_operator: '=', value: 1 }), { status: 400, code: 'invalid_param', message: /time metadata field 'upload_date'/ });
    const before = await kc.getDataset(HANDBOOK_ID);
    assert.equal(before.retrieval_model_dict.search_method, 'hybrid_search', 'rejected updates change nothing');
  });
});

describe('GET /datasets and /datasets/{id}', () => {
  test('the list: newest first, paged, with the real shape', async () => {
    const page = await kc.listDatasets({ limit: 2 });
    assert.deepEqual(Object.keys(page).sort(), ['data', 'has_more', 'limit', 'page', 'total']);
    assert.equal(page.limit, 2);
    assert.equal(page.page, 1);
    assert.equal(page.data.length, 2);
    assert.equal(page.has_more, page.total > 2);
    for (const ds of page.data) assert.deepEqual(Object.keys(ds).sort(), DATASET_FIELDS, 'no partial_member_list on list items');
    const all = await kc.listDatasets({ limit: 100 });
    const created = all.data.map((d) => d.created_at);
    assert.deepEqual(created, [...created].sort((a, b) => b - a));
    const second = await kc.listDatasets({ limit: 2, page: 2 });
    assert.deepEqual(second.data.map((d) => d.id), all.data.slice(2, 4).map((d) => d.id));
    // A page holds at most 100; the limit is echoed as asked, and `has_more` compares with it.
    const capped = await kc.listDatasets({ limit: 1000 });
    assert.deepEqual([capped.limit, capped.data.length, capped.has_more], [1000, all.data.length, false]);
    await rejects(kc.listDatasets({ page: 'x' as never }), { status: 400, code: 'invalid_param', message: /page/ });
  });

  test("page and limit below 1 fall back as flask-sqlalchemy's paginate(error_out=False) does, and are echoed as asked", async () => {
    const all = await kc.listDatasets({ limit: 100 });
    const first = await kc.listDatasets({ limit: 2 });
    for (const page of [0, -1]) {
      const fallback = await kc.listDatasets({ limit: 2, page });
      assert.deepEqual(fallback.data.map((d) => d.id), first.data.map((d) => d.id), `page=${page} serves page 1`);
      assert.deepEqual([fallback.page, fallback.limit, fallback.has_more], [page, 2, true]);
    }
    // A limit below 1 serves 20 a page; `has_more` is `len(datasets) == limit`, so false here.
    const zero = await kc.listDatasets({ limit: 0 });
    assert.deepEqual([zero.data.length, zero.limit, zero.page, zero.has_more, zero.total], [Math.min(all.total, 20), 0, 1, false, all.total]);
    // Dify's `has_more` is a full page, not `page * limit < total`.
    const exact = await kc.listDatasets({ limit: all.total });
    assert.equal(exact.has_more, true);
  });

  test('keyword, tags and include_all', async () => {
    const hand = await kc.listDatasets({ keyword: 'HANDBOOK' });
    assert.deepEqual(hand.data.map((d) => d.name), ['Demo handbook']);
    const tags = await kc.listTags();
    const onboarding = tags.find((t) => t.name === 'Onboarding')!;
    const tagged = await kc.listDatasets({ tag_ids: [onboarding.id] });
    assert.deepEqual(tagged.data.map((d) => d.name).sort(), ['Demo handbook', 'Support FAQ']);
    // Private to another member: hidden unless include_all.
    const names = (await kc.listDatasets({ limit: 100 })).data.map((d) => d.name);
    assert.ok(!names.includes('Vendor contracts'));
    assert.ok(names.includes('Release notes archive'), "the owner's own only_me knowledge base is listed");
    const everything = (await kc.listDatasets({ limit: 100, include_all: true })).data.map((d) => d.name);
    assert.ok(everything.includes('Vendor contracts'));
  });

  test('counts, embedding availability and legacy provider ids', async () => {
    const handbook = await kc.getDataset(HANDBOOK_ID);
    assert.deepEqual(Object.keys(handbook).sort(), DATASET_FIELDS);
    assert.equal(handbook.document_count, 4);
    assert.equal(handbook.total_documents, 4);
    assert.equal(handbook.total_available_documents, 4);
    const docs = await kc.listDocuments(HANDBOOK_ID);
    assert.equal(handbook.word_count, docs.data.reduce((s, d) => s + d.word_count, 0));
    assert.ok(handbook.word_count > 0);
    assert.equal(handbook.embedding_available, true);
    assert.equal(handbook.is_published, true);
    assert.equal(handbook.runtime_mode, 'rag_pipeline');
    assert.ok(handbook.pipeline_id);
    assert.deepEqual(handbook.tags.map((t) => t.name), ['Handbook', 'Onboarding']);
    assert.deepEqual(handbook.tags[0], { id: '4e761660-5de1-471b-9d7f-86e1e10905e2', name: 'Handbook', type: 'knowledge' });

    const archive = await kc.getDataset(ARCHIVE_ID);
    assert.equal(archive.embedding_model_provider, 'openai', 'details keep the legacy short form');
    assert.equal(archive.embedding_available, true, 'the short form expands to an available model');
    assert.equal(archive.total_documents, 2);
    assert.equal(archive.total_available_documents, 0, 'one archived, one disabled');
    const listed = (await kc.listDatasets({ keyword: 'archive' })).data[0]!;
    assert.equal(listed.embedding_model_provider, 'langgenius/openai/openai', 'the list answers the full id');

    const vendor = await kc.getDataset(VENDOR_ID);
    assert.equal(vendor.embedding_available, false);
    assert.equal(vendor.author_name, 'Alex Editor');
    assert.equal(vendor.created_by, ALEX_ID);

    const faq = await kc.getDataset(SUPPORT_FAQ_ID);
    assert.equal(faq.retrieval_model_dict.search_method, 'keyword_search', 'economy knowledge bases search by keyword');
    assert.equal(faq.doc_form, 'qa_model');
  });
});

describe('PATCH /datasets/{id}', () => {
  let ds: Dataset;
  before(async () => {
    ds = await kc.createDataset({ name: uniqueName('Patch'), description: 'original', indexing_technique: 'economy' });
  });

  test('only the fields present change; partial_member_list is always in the answer', async () => {
    const name = uniqueName('Renamed');
    const updated = await kc.updateDataset(ds.id, { name });
    assert.equal(updated.name, name);
    assert.equal(updated.description, 'original');
    assert.equal(updated.permission, 'only_me');
    assert.equal(updated.indexing_technique, 'economy');
    assert.deepEqual(updated.partial_member_list, []);
    assert.ok('partial_member_list' in updated);
    const described = await kc.updateDataset(ds.id, { description: 'changed' });
    assert.equal(described.name, name);
    assert.equal(described.description, 'changed');
    const detail = await kc.getDataset(ds.id);
    assert.ok(!('partial_member_list' in detail), 'detail has it only for partial_members');
  });

  test('partial members: required when switching, listed on details, cleared when switching away', async () => {
    await rejects(kc.updateDataset(ds.id, { permission: 'partial_members' }), { status: 400, code: 'invalid_param', message: 'Partial member list is required when setting to partial members.' });
    await rejects(kc.updateDataset(ds.id, { permission: 'partial_members', partial_member_list: [{ user_id: 'stranger' }] }), { status: 400, code: 'invalid_param', message: /stranger/ });
    const partial = await kc.updateDataset(ds.id, { permission: 'partial_members', partial_member_list: [{ user_id: ALEX_ID }, { user_id: SAM_ID }] });
    assert.equal(partial.permission, 'partial_members');
    assert.deepEqual(partial.partial_member_list, [ALEX_ID, SAM_ID]);
    const detail = await kc.getDataset(ds.id);
    assert.deepEqual(detail.partial_member_list, [ALEX_ID, SAM_ID]);
    const renamed = await kc.updateDataset(ds.id, { description: 'still partial' });
    assert.deepEqual(renamed.partial_member_list, [ALEX_ID, SAM_ID]);
    const team = await kc.updateDataset(ds.id, { permission: 'all_team_members' });
    assert.deepEqual(team.partial_member_list, []);
    assert.ok(!('partial_member_list' in (await kc.getDataset(ds.id))));
  });

  test('bounds, duplicate names and models', async () => {
    await rejects(kc.updateDataset(ds.id, { name: 'n'.repeat(41) }), { status: 400, code: 'invalid_param', message: /at most 40 characters/ });
    await rejects(kc.updateDataset(ds.id, { name: '' }), { status: 400, code: 'invalid_param', message: /at least 1 character/ });
    await rejects(kc.updateDataset(ds.id, { description: 'd'.repeat(401) }), { status: 400, code: 'invalid_param', message: /at most 400 characters/ });
    await rejects(kc.updateDataset(ds.id, { name: 'Demo handbook' }), { status: 409, code: 'dataset_name_duplicate', message: 'The dataset name already exists. Please modify your dataset name.' });
    await rejects(kc.updateDataset(ds.id, { indexing_technique: 'high_quality', embedding_model: 'voyage-3', embedding_model_provider: 'langgenius/voyage/voyage' }), { status: 400, code: 'invalid_param', message: NO_EMBEDDING });
    // Named but unused by an economy knowledge base: still refused, not silently dropped.
    await rejects(kc.updateDataset(ds.id, { embedding_model: 'voyage-3', embedding_model_provider: 'langgenius/voyage/voyage' }), { status: 400, code: 'invalid_param', message: NO_EMBEDDING });
    const unchanged = await kc.getDataset(ds.id);
    assert.equal(unchanged.indexing_technique, 'economy', 'a refused update changes nothing');
    const hq = await kc.updateDataset(ds.id, { indexing_technique: 'high_quality', embedding_model: 'text-embedding-3-large', embedding_model_provider: 'openai' });
    assert.equal(hq.indexing_technique, 'high_quality');
    assert.equal(hq.embedding_model, 'text-embedding-3-large');
    assert.equal(hq.embedding_model_provider, 'langgenius/openai/openai');
    const eco = await kc.updateDataset(ds.id, { indexing_technique: 'economy' });
    assert.equal(eco.embedding_model, null);
  });

  test('external knowledge bases update their retrieval settings and connection', async () => {
    const updated = await kc.updateDataset(EXTERNAL_ID, { external_retrieval_model: { top_k: 5, score_threshold: 0.3, score_threshold_enabled: true }, external_knowledge_id: 'acme-kb-002' });
    assert.deepEqual(updated.external_retrieval_model, { top_k: 5, score_threshold: 0.3, score_threshold_enabled: true });
    assert.equal(updated.external_knowledge_info?.external_knowledge_id, 'acme-kb-002');
    assert.equal(updated.name, 'Acme search');
  });

  test('unknown knowledge bases get 404', async () => {
    await rejects(kc.updateDataset('00000000-0000-4000-8000-000000000000', { name: 'x' }), { status: 404, code: 'not_found', message: 'Dataset not found.' });
  });
});

describe('GET /datasets/tags', () => {
  test('knowledge tags with binding counts as numeric text', async () => {
    const tags = await kc.listTags();
    assert.deepEqual(
      tags.map((t) => [t.name, t.type, t.binding_count]),
      [
        ['Handbook', 'knowledge', '1'],
        ['Onboarding', 'knowledge', '2'],
        ['Archive', 'knowledge', '1'],
        ['Unused', 'knowledge', '0'],
      ],
    );
    for (const t of tags) assert.deepEqual(Object.keys(t).sort(), ['binding_count', 'id', 'name', 'type']);
  });
});
