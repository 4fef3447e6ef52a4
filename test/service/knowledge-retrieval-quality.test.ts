/**
 * Retrieval quality on a small corpus with one known relevant chunk per query: every search method
 * ranks it first, and metadata filters with every operator keep exactly the documents they should.
 * The corpus is built the way a user builds one: create, add documents, wait, set metadata.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { MetadataCondition, RetrievalModel, SearchMethod } from '../../src/protocol/index.js';
import { EMBEDDING, startKnowledge, uniqueName, type KnowledgeHarness } from './knowledge-helpers.js';

const CORPUS = {
  'Baking.md': {
    metadata: { category: 'kitchen', revision: 2, reviewed_on: 1_700_000_000, reviewer: 'ana' },
    chunks: [
      'Bake the sourdough bread at 230 degrees for forty minutes until the crust is deep brown.',
      'Whisk eggs with sugar until pale, then fold in flour gently to keep the sponge cake airy.',
      'Store fresh herbs like basil in a glass of water on the counter, not in the fridge.',
    ],
  },
  'Gardening.md': {
    metadata: { category: 'garden', revision: 5, reviewed_on: 1_710_000_000, reviewer: 'ben' },
    chunks: [
      'Give tomato plants a deep soak twice a week; shallow sprinkling leads to weak roots.',
      'Prune rose bushes in late winter, cutting just above an outward facing bud.',
      'Compost vegetable scraps with dry leaves to balance nitrogen and carbon.',
    ],
  },
  'Cycling.md': {
    metadata: { category: 'sport', revision: 1 },
    chunks: [
      'Inflate road bike tyres to the pressure printed on the sidewall before every ride.',
      'Clean and lubricate the bicycle chain after riding in rain to prevent rust.',
      'Shift to a lower gear before climbing a steep hill to keep your cadence steady.',
    ],
  },
} as const;

type DocName = keyof typeof CORPUS;

/** Each query and the chunk that answers it. */
const QUERIES: { query: string; doc: DocName; chunk: number }[] = [
  { query: 'How long should sourdough bread bake?', doc: 'Baking.md', chunk: 0 },
  { query: 'whisking eggs for a sponge cake', doc: 'Baking.md', chunk: 1 },
  { query: 'keeping basil herbs fresh', doc: 'Baking.md', chunk: 2 },
  { query: 'how often do tomatoes need a soak', doc: 'Gardening.md', chunk: 0 },
  { query: 'When should I prune my roses?', doc: 'Gardening.md', chunk: 1 },
  { query: 'composting scraps nitrogen carbon', doc: 'Gardening.md', chunk: 2 },
  { query: 'What tyre pressure for a road bike?', doc: 'Cycling.md', chunk: 0 },
  { query: 'rusty bicycle chain after rain', doc: 'Cycling.md', chunk: 1 },
  { query: 'which gear for climbing hills', doc: 'Cycling.md', chunk: 2 },
];

/** Touches every chunk once, so a filter's result shows which documents it keeps. */
const EVERYTHING = 'bread eggs herbs tomato rose compost tyres chain gear';

let h: KnowledgeHarness;
let datasetId: string;

const model = (search_method: SearchMethod, extra: Partial<RetrievalModel> = {}): RetrievalModel => ({
  search_method,
  reranking_enable: false,
  top_k: 3,
  score_threshold_enabled: false,
  ...extra,
});

before(async () => {
  h = await startKnowledge();
  const ds = await h.kc.createDataset({ name: uniqueName('Quality'), indexing_technique: 'high_quality', ...EMBEDDING });
  datasetId = ds.id;
  const fields = new Map<string, string>();
  for (const [name, type] of [['category', 'string'], ['revision', 'number'], ['reviewed_on', 'time'], ['reviewer', 'string']] as const) {
    fields.set(name, (await h.kc.createMetadataField(datasetId, { name, type })).id);
  }
  const operations = [];
  for (const [name, doc] of Object.entries(CORPUS)) {
    const { document, batch } = await h.kc.createDocumentByText(datasetId, {
      name,
      text: doc.chunks.join('\n\n'),
      process_rule: { mode: 'custom', rules: { pre_processing_rules: [], segmentation: { separator: '\n\n', max_tokens: 200 } } },
    });
    await h.kc.waitForIndexing(datasetId, batch, { intervalMs: 10 });
    operations.push({
      document_id: document.id,
      metadata_list: Object.entries(doc.metadata).map(([field, value]) => ({ id: fields.get(field)!, name: field, value })),
    });
  }
  await h.kc.updateDocumentMetadata(datasetId, { operation_data: operations });
});

after(() => h.close());

async function first(query: string, retrieval_model: RetrievalModel) {
  const { records } = await h.kc.retrieve(datasetId, { query, retrieval_model });
  assert.ok(records.length, `no record for "${query}"`);
  return records[0]!.segment;
}

describe('the relevant chunk comes first', () => {
  const methods: [string, RetrievalModel][] = [
    ['semantic_search', model('semantic_search')],
    ['full_text_search', model('full_text_search')],
    ['keyword_search', model('keyword_search')],
    ['hybrid_search (both channels)', model('hybrid_search')],
    [
      'hybrid_search (weighted_score)',
      model('hybrid_search', {
        reranking_enable: true,
        reranking_mode: 'weighted_score',
        weights: {
          weight_type: 'customized',
          vector_setting: { vector_weight: 0.6, embedding_provider_name: EMBEDDING.embedding_model_provider, embedding_model_name: EMBEDDING.embedding_model },
          keyword_setting: { keyword_weight: 0.4 },
        },
      }),
    ],
    [
      'semantic_search reranked',
      model('semantic_search', {
        reranking_enable: true,
        reranking_mode: 'reranking_model',
        reranking_model: { reranking_provider_name: 'langgenius/cohere/cohere', reranking_model_name: 'rerank-multilingual-v3.0' },
      }),
    ],
  ];
  for (const [label, retrievalModel] of methods) {
    test(label, async () => {
      for (const q of QUERIES) {
        const segment = await first(q.query, retrievalModel);
        assert.equal(segment.document.name, q.doc, `"${q.query}" (${label})`);
        assert.equal(segment.content, CORPUS[q.doc].chunks[q.chunk], `"${q.query}" (${label})`);
      }
    });
  }
});

describe('metadata filters keep exactly the documents they should', () => {
  const cases: { conditions: MetadataCondition[]; logical_operator?: 'and' | 'or'; keep: DocName[] }[] = [
    { conditions: [{ name: 'category', comparison_operator: 'is', value: 'garden' }], keep: ['Gardening.md'] },
    { conditions: [{ name: 'category', comparison_operator: 'is not', value: 'garden' }], keep: ['Baking.md', 'Cycling.md'] },
    { conditions: [{ name: 'category', comparison_operator: 'contains', value: 'por' }], keep: ['Cycling.md'] },
    { conditions: [{ name: 'category', comparison_operator: 'not contains', value: 'e' }], keep: ['Cycling.md'] },
    { conditions: [{ name: 'category', comparison_operator: 'start with', value: 'kit' }], keep: ['Baking.md'] },
    { conditions: [{ name: 'category', comparison_operator: 'end with', value: 'den' }], keep: ['Gardening.md'] },
    { conditions: [{ name: 'category', comparison_operator: 'in', value: ['garden', 'sport'] }], keep: ['Gardening.md', 'Cycling.md'] },
    { conditions: [{ name: 'category', comparison_operator: 'not in', value: ['garden', 'sport'] }], keep: ['Baking.md'] },
    { conditions: [{ name: 'reviewer', comparison_operator: 'empty' }], keep: ['Cycling.md'] },
    { conditions: [{ name: 'reviewer', comparison_operator: 'not empty' }], keep: ['Baking.md', 'Gardening.md'] },
    { conditions: [{ name: 'revision', comparison_operator: '=', value: 5 }], keep: ['Gardening.md'] },
    { conditions: [{ name: 'revision', comparison_operator: '≠', value: 5 }], keep: ['Baking.md', 'Cycling.md'] },
    { conditions: [{ name: 'revision', comparison_operator: '>', value: 1 }], keep: ['Baking.md', 'Gardening.md'] },
    { conditions: [{ name: 'revision', comparison_operator: '<', value: 5 }], keep: ['Baking.md', 'Cycling.md'] },
    { conditions: [{ name: 'revision', comparison_operator: '≥', value: 2 }], keep: ['Baking.md', 'Gardening.md'] },
    { conditions: [{ name: 'revision', comparison_operator: '≤', value: 2 }], keep: ['Baking.md', 'Cycling.md'] },
    { conditions: [{ name: 'reviewed_on', comparison_operator: 'before', value: 1_705_000_000 }], keep: ['Baking.md'] },
    { conditions: [{ name: 'reviewed_on', comparison_operator: 'after', value: 1_705_000_000 }], keep: ['Gardening.md'] },
    {
      conditions: [
        { name: 'category', comparison_operator: 'is', value: 'sport' },
        { name: 'revision', comparison_operator: '>', value: 4 },
      ],
      logical_operator: 'or',
      keep: ['Gardening.md', 'Cycling.md'],
    },
    {
      conditions: [
        { name: 'category', comparison_operator: 'is not', value: 'sport' },
        { name: 'revision', comparison_operator: '<', value: 3 },
      ],
      keep: ['Baking.md'],
    },
  ];
  for (const c of cases) {
    const label = c.conditions.map((x) => `${x.name} ${x.comparison_operator} ${JSON.stringify(x.value ?? '')}`).join(` ${c.logical_operator ?? 'and'} `);
    test(label, async () => {
      const filter = { logical_operator: c.logical_operator ?? 'and', conditions: c.conditions };
      for (const method of ['full_text_search', 'semantic_search'] as const) {
        const { records } = await h.kc.retrieve(datasetId, {
          query: EVERYTHING,
          retrieval_model: model(method, { top_k: 20, metadata_filtering_conditions: filter }),
        });
        const names = new Set(records.map((r) => r.segment.document.name));
        assert.deepEqual([...names].sort(), [...c.keep].sort(), method);
      }
    });
  }

  test('no document matching gives no records (and the filtered relevant chunk is gone)', async () => {
    const none = await h.kc.retrieve(datasetId, {
      query: 'sourdough bread',
      retrieval_model: model('semantic_search', { metadata_filtering_conditions: { conditions: [{ name: 'category', comparison_operator: 'is', value: 'none' }] } }),
    });
    assert.deepEqual(none.records, []);
    const others = await h.kc.retrieve(datasetId, {
      query: 'sourdough bread',
      retrieval_model: model('full_text_search', { metadata_filtering_conditions: { conditions: [{ name: 'category', comparison_operator: 'is not', value: 'kitchen' }] } }),
    });
    assert.ok(others.records.every((r) => r.segment.document.name !== 'Baking.md'));
  });

  test('records carry the document metadata by name', async () => {
    const segment = await first('prune roses', model('full_text_search'));
    assert.deepEqual(segment.document.doc_metadata, { category: 'garden', revision: 5, reviewed_on: 1_710_000_000, reviewer: 'ben' });
  });
});
