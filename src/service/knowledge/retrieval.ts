/**
 * Retrieval (`POST /datasets/{id}/retrieve`, the real service's hit testing) over the chunks the
 * indexing produced, searched with Orama: BM25 full text over chunk content, BM25 over each
 * chunk's keywords for `keyword_search`, vector similarity over the local embedding
 * (`embedding.ts`), and Orama's hybrid search for `hybrid_search` with `weighted_score`.
 *
 * What is searched: chunks that are enabled and completed, of documents that are completed,
 * enabled and not archived. A `hierarchical_model` document is searched by its child chunks, and a
 * record groups the matching children under their parent chunk (its score is the best child's).
 */
import { create, insertMultiple, search, type Orama } from '@orama/orama';
import { createHash } from 'node:crypto';
import type {
  MetadataFilteringConditions,
  RetrievalRecord,
  RetrieveResponse,
  RetrievedChildChunk,
  RetrievalModel,
} from '../../protocol/index.js';
import { ApiError } from '../errors.js';
import { nowSeconds, uuid } from '../ids.js';
import { extractKeywords } from './chunking.js';
import { cosine, embed, EMBEDDING_DIMENSIONS, TOKENIZER } from './embedding.js';
import { matchesConditions, type MetadataValues } from './metadata-filter.js';
import { isAvailable, type DatasetRecord, type DocumentRecord, type SegmentRecord } from './records.js';
import { segmentJSON } from './serialise.js';
import type { KnowledgeState } from './state.js';
import { BUILT_IN_FIELDS, type RetrievalModelInput } from './validation.js';

/** `LLMBadRequestError` as the hit-testing route renders it: a model the search needs is not available. */
export const NO_MODEL_FOR_RETRIEVAL = 'No Embedding Model or Reranking Model available. Please configure a valid provider in the Settings -> Model Provider.';

/** The service's own default when neither the request nor the knowledge base has retrieval settings. */
const SERVICE_DEFAULT: RetrievalModelInput = {
  search_method: 'semantic_search',
  reranking_enable: false,
  reranking_model: { reranking_provider_name: '', reranking_model_name: '' },
  top_k: 4,
  score_threshold_enabled: false,
};

/** Hybrid search takes `top_k` clamped to 50–200 from each channel before fusing. */
const HYBRID_CHANNEL_MIN = 50;
const HYBRID_CHANNEL_MAX = 200;

/** Weights of `weight_type` presets, used when `weights` names a preset without settings. */
const PRESET_WEIGHTS = { semantic_first: { vector: 0.7, keyword: 0.3 }, keyword_first: { vector: 0.3, keyword: 0.7 }, customized: { vector: 0.5, keyword: 0.5 } };

const SCHEMA = {
  content: 'string',
  keywords: 'string',
  document_id: 'enum',
  embedding: `vector[${EMBEDDING_DIMENSIONS}]`,
} as const;

type SearchDb = Orama<typeof SCHEMA>;

/** A searchable unit: a chunk, or a child chunk of a `hierarchical_model` document. */
interface Unit {
  id: string;
  doc: DocumentRecord;
  segment: SegmentRecord;
  child: SegmentRecord['child_chunks'][number] | null;
  content: string;
}

interface Hit { unit: Unit; score: number }

const indexes = new WeakMap<DatasetRecord, { signature: string; db: SearchDb; units: Map<string, Unit> }>();

function searchableUnits(ds: DatasetRecord): Unit[] {
  const units: Unit[] = [];
  for (const doc of ds.documents) {
    if (!isAvailable(doc)) continue;
    for (const segment of doc.segments) {
      if (!segment.enabled || segment.status !== 'completed') continue;
      if (doc.doc_form === 'hierarchical_model' && segment.child_chunks.length) {
        for (const child of segment.child_chunks) units.push({ id: child.id, doc, segment, child, content: child.content });
      } else {
        // A Q&A chunk is found by its question, as the real service indexes it.
        units.push({ id: segment.id, doc, segment, child: null, content: segment.content });
      }
    }
  }
  return units;
}

/** The knowledge base's Orama index, rebuilt when its searchable chunks changed. */
async function indexFor(ds: DatasetRecord, units: Unit[]): Promise<{ db: SearchDb; units: Map<string, Unit> }> {
  const hash = createHash('sha1');
  for (const u of units) hash.update(`${u.id}\u0000${u.content}\u0000${u.segment.keywords.join(' ')}\u0001`);
  const signature = hash.digest('hex');
  const cached = indexes.get(ds);
  if (cached?.signature === signature) return cached;
  const db = create({ schema: SCHEMA, components: { tokenizer: TOKENIZER } });
  await insertMultiple(
    db,
    units.map((u) => ({
      id: u.id,
      content: u.content,
      keywords: (u.segment.keywords.length ? u.segment.keywords : extractKeywords(`${u.segment.content} ${u.segment.answer ?? ''}`)).join(' '),
      document_id: u.doc.id,
      embedding: embed(u.content),
    })),
  );
  const entry = { signature, db, units: new Map(units.map((u) => [u.id, u])) };
  indexes.set(ds, entry);
  return entry;
}

/** A document's metadata values by field name, built-in fields included when the knowledge base enables them. */
export function metadataValues(state: KnowledgeState, ds: DatasetRecord, doc: DocumentRecord): Map<string, string | number | null> {
  const values = new Map<string, string | number | null>();
  for (const field of ds.doc_metadata) if (doc.metadata.has(field.id)) values.set(field.name, doc.metadata.get(field.id) ?? null);
  if (ds.built_in_field_enabled) {
    const builtIn: Record<keyof typeof BUILT_IN_FIELDS, string | number> = {
      document_name: doc.name,
      uploader: state.accounts.get(doc.created_by)?.name ?? '',
      upload_date: doc.created_at,
      last_update_date: doc.updated_at,
      source: 'file_upload',
    };
    for (const [name, value] of Object.entries(builtIn)) values.set(name, value);
  }
  return values;
}

function requireModel(state: KnowledgeState, type: 'text-embedding' | 'rerank', provider: string | null | undefined, model: string | null | undefined): void {
  if (!state.registry.isAvailable(type, provider, model)) throw new ApiError(400, 'provider_not_initialize', NO_MODEL_FOR_RETRIEVAL);
}

export interface RetrieveInput {
  query: string;
  retrieval_model?: RetrievalModelInput | null;
  attachment_ids?: string[] | null;
}

export async function retrieve(state: KnowledgeState, ds: DatasetRecord, input: RetrieveInput): Promise<RetrieveResponse> {
  const query = input.query;
  const model = input.retrieval_model ?? ds.retrieval_model ?? SERVICE_DEFAULT;
  const empty: RetrieveResponse = { query: { content: query }, records: [] };
  const units = searchableUnits(ds);
  // Nothing indexed (an external knowledge base, or no available document): no search, no query recorded.
  // Image queries (`attachment_ids` alone) find nothing either: the service keeps no image index.
  if (!units.length || !query) return empty;

  const usesVector = model.search_method === 'semantic_search' || model.search_method === 'hybrid_search';
  if (usesVector && ds.indexing_technique !== 'high_quality') throw new ApiError(400, 'provider_not_initialize', NO_MODEL_FOR_RETRIEVAL);
  if (usesVector) requireModel(state, 'text-embedding', ds.embedding_model_provider, ds.embedding_model);
  const reranker = rerankerOf(model);
  if (reranker) requireModel(state, 'rerank', reranker.provider, reranker.model);
  const weighted = model.search_method === 'hybrid_search' && model.reranking_mode === 'weighted_score' ? weightsOf(model) : null;
  if (weighted?.embedding) requireModel(state, 'text-embedding', weighted.embedding.provider, weighted.embedding.model);

  ds.queries.push({ id: uuid(), content: query, source: 'hit_testing', created_by: state.owner.id, created_at: nowSeconds() });

  const filter = model.metadata_filtering_conditions as MetadataFilteringConditions | null | undefined;
  let allowed: string[] | null = null;
  if (filter?.conditions?.length) {
    const docs = new Set(units.map((u) => u.doc));
    allowed = [...docs].filter((doc) => matchesConditions(filter, metadataValues(state, ds, doc) as MetadataValues)).map((d) => d.id);
    if (!allowed.length) return empty;
  }
  const { db, units: byId } = await indexFor(ds, units);
  const where = allowed ? { document_id: { in: allowed } } : undefined;
  const threshold = model.score_threshold_enabled ? (model.score_threshold ?? 0) : 0;
  // No more than there are units: the index allocates a result array of the limit up front, and
  // a `top_k` of 2^32 - 1 (which the real service takes) ran the process out of memory.
  const topK = Math.min(model.top_k, Math.max(units.length, 1));

  const toHits = (hits: { id: string; score: number }[]): Hit[] => hits.flatMap((h) => (byId.has(h.id) ? [{ unit: byId.get(h.id)!, score: h.score }] : []));
  const vectorSearch = async (limit: number, similarity: number) =>
    toHits((await search(db, { mode: 'vector', vector: { value: embed(query), property: 'embedding' }, similarity, limit, where, includeVectors: false })).hits);
  const textSearch = async (property: 'content' | 'keywords', limit: number) => {
    const hits = (await search(db, { term: query, properties: [property], limit, where })).hits;
    const top = hits[0]?.score || 1;
    return toHits(hits.map((h) => ({ id: h.id, score: h.score / top })));
  };

  let hits: Hit[];
  switch (model.search_method) {
    case 'keyword_search':
      // Keyword hits carry no score in the real service.
      hits = (await textSearch('keywords', topK)).map((h) => ({ ...h, score: 0 }));
      break;
    case 'semantic_search':
      hits = await vectorSearch(topK, threshold);
      break;
    case 'full_text_search':
      hits = await textSearch('content', topK);
      break;
    case 'hybrid_search': {
      const channel = Math.min(Math.max(topK, HYBRID_CHANNEL_MIN), HYBRID_CHANNEL_MAX);
      if (weighted) {
        const result = await search(db, {
          mode: 'hybrid',
          term: query,
          properties: ['content'],
          vector: { value: embed(query), property: 'embedding' },
          similarity: 0,
          hybridWeights: { text: weighted.keyword, vector: weighted.vector },
          limit: channel,
          where,
          includeVectors: false,
        });
        hits = toHits(result.hits);
      } else {
        hits = fuse([...(await vectorSearch(channel, 0)), ...(await textSearch('content', channel))]);
      }
      if (!reranker && threshold > 0) hits = hits.filter((h) => h.score >= threshold);
      break;
    }
  }
  if (reranker) hits = rerank(query, hits).filter((h) => h.score >= threshold);
  return { query: { content: query }, records: records(state, ds, hits).slice(0, topK) };
}

/** The rerank model named by the request, when reranking by model applies. */
function rerankerOf(model: RetrievalModelInput): { provider: string; model: string } | null {
  if (!model.reranking_enable) return null;
  if (model.search_method === 'hybrid_search' && model.reranking_mode === 'weighted_score') return null;
  const provider = model.reranking_model?.reranking_provider_name;
  const name = model.reranking_model?.reranking_model_name;
  return provider && name ? { provider, model: name } : null;
}

function weightsOf(model: RetrievalModelInput): { vector: number; keyword: number; embedding: { provider: string; model: string } | null } {
  const w = model.weights as RetrievalModel['weights'];
  const preset = PRESET_WEIGHTS[w?.weight_type ?? 'semantic_first'];
  const vector = w?.vector_setting?.vector_weight ?? preset.vector;
  const keyword = w?.keyword_setting?.keyword_weight ?? preset.keyword;
  const vs = w?.vector_setting;
  return { vector, keyword, embedding: vs?.embedding_provider_name && vs.embedding_model_name ? { provider: vs.embedding_provider_name, model: vs.embedding_model_name } : null };
}

/** Both channels' hits, one per unit with its best score, best first. */
function fuse(hits: Hit[]): Hit[] {
  const best = new Map<string, Hit>();
  for (const h of hits) if (!best.has(h.unit.id) || best.get(h.unit.id)!.score < h.score) best.set(h.unit.id, h);
  return [...best.values()].sort((a, b) => b.score - a.score);
}

/**
 * The embedded service's stand-in for a rerank model (none runs here): each candidate is scored
 * against the query afresh, half by embedding similarity and half by the share of the query's
 * stemmed words the candidate contains.
 */
function rerank(query: string, hits: Hit[]): Hit[] {
  const words = new Set(TOKENIZER.tokenize(query, 'english', undefined, false));
  const q = embed(query);
  return hits
    .map((h) => {
      const own = new Set(TOKENIZER.tokenize(h.unit.content, 'english', undefined, false));
      const coverage = words.size ? [...words].filter((w) => own.has(w)).length / words.size : 0;
      return { unit: h.unit, score: 0.5 * Math.max(0, cosine(q, embed(h.unit.content))) + 0.5 * coverage };
    })
    .sort((a, b) => b.score - a.score);
}

/** Hits grouped into records by chunk (children under their parent), best first. */
function records(state: KnowledgeState, ds: DatasetRecord, hits: Hit[]): RetrievalRecord[] {
  const bySegment = new Map<string, { unit: Unit; score: number; children: RetrievedChildChunk[] }>();
  for (const h of hits) {
    const entry = bySegment.get(h.unit.segment.id) ?? { unit: h.unit, score: h.score, children: [] };
    entry.score = Math.max(entry.score, h.score);
    if (h.unit.child) entry.children.push({ id: h.unit.child.id, content: h.unit.child.content, position: h.unit.child.position, score: h.score });
    bySegment.set(h.unit.segment.id, entry);
  }
  return [...bySegment.values()]
    .map(({ unit, score, children }): RetrievalRecord => {
      // The record carries the child chunks, files and summary of its own, beside the chunk.
      const { child_chunks: _children, attachments: _files, summary: _summary, ...segment } = segmentJSON(unit.segment, unit.doc.id);
      const values = metadataValues(state, ds, unit.doc);
      return {
        segment: {
          ...segment,
          sign_content: '',
          document: {
            id: unit.doc.id,
            data_source_type: 'upload_file',
            name: unit.doc.name,
            doc_type: null,
            doc_metadata: values.size ? Object.fromEntries(values) : null,
          },
        },
        child_chunks: children.sort((a, b) => b.score - a.score),
        score,
        tsne_position: null,
        files: [],
        summary: null,
      };
    })
    .sort((a, b) => (b.score ?? 0) - (a.score ?? 0));
}
