/**
 * The knowledge store: knowledge bases, their documents and chunks, tags and pipelines, created
 * from the fixture and changed by the knowledge routes. Documents are indexed asynchronously
 * through the real service's states (waiting → parsing → cleaning → splitting → indexing →
 * completed, or error), one configurable delay per state.
 */
import { randomInt } from 'node:crypto';
import type {
  ChildChunk,
  Dataset,
  DatasetDocument,
  DatasetPermission,
  DatasourceNode,
  DocForm,
  DocumentDisplayStatus,
  DocumentIndexingStatus,
  DocumentStatusAction,
  IndexingTechnique,
  KnowledgePage,
  KnowledgeTag,
  MetadataFieldType,
  RetrievalModel,
  Segment,
  SegmentListResponse,
  SummaryIndexSetting,
} from '../../protocol/index.js';
import { ApiError, badParam, notFound } from '../errors.js';
import { nowSeconds, uuid } from '../ids.js';
import {
  AUTOMATIC_RULES,
  chunkText,
  DEFAULT_HIERARCHICAL_RULES,
  estimateTokens,
  extractKeywords,
  IndexingError,
  textHash,
  wordCount,
  type Chunk,
  type ResolvedProcessRule,
  type SegmentationRule,
} from './chunking.js';
import type { FixtureDataset, KnowledgeFixture } from './fixture-schema.js';
import { ModelRegistry, NO_EMBEDDING_MODEL } from './models.js';
import { datasourceNodes } from './pipeline.js';
import { BUILT_IN_FIELDS, type RetrievalModelInput } from './validation.js';

type ProcessRuleInput = {
  mode: 'automatic' | 'custom' | 'hierarchical';
  rules?: {
    pre_processing_rules?: { id: string; enabled: boolean }[] | null;
    segmentation?: { separator?: string; max_tokens?: number | null; chunk_overlap?: number | null } | null;
    parent_mode?: 'full-doc' | 'paragraph' | null;
    subchunk_segmentation?: { separator?: string; max_tokens?: number | null; chunk_overlap?: number | null } | null;
  } | null;
};

interface Account { id: string; name: string; email: string }

/** A chunk as stored: the wire shape less `document_id`, which its document supplies. */
type SegmentRecord = Omit<Segment, 'document_id'>;

/** The indexing fields of a document queued for (re-)indexing. */
const NOT_YET_INDEXED = {
  indexing_status: 'waiting',
  processing_started_at: null,
  parsing_completed_at: null,
  cleaning_completed_at: null,
  splitting_completed_at: null,
  completed_at: null,
  stopped_at: null,
  error: null,
} as const;

/** A document as stored; its indexing fields are those the indexing-status route answers. */
interface DocumentRecord extends Omit<DocumentIndexingStatus, 'id' | 'completed_segments' | 'total_segments'> {
  id: string;
  position: number;
  name: string;
  text: string;
  batch: string;
  doc_form: DocForm;
  doc_language: string;
  process_rule_id: string;
  rule: ResolvedProcessRule;
  upload_file: { id: string; name: string; size: number; extension: string; mime_type: string; created_by: string; created_at: number };
  created_by: string;
  created_at: number;
  updated_at: number;
  enabled: boolean;
  disabled_at: number | null;
  disabled_by: string | null;
  archived: boolean;
  archived_at: number | null;
  archived_by: string | null;
  hit_count: number;
  segments: SegmentRecord[];
  /** Chunks computed at `splitting`, turned into segments at `indexing`. */
  pending: Chunk[] | null;
  /** An enable/disable/archive/un_archive is being applied to the index. */
  busy: boolean;
  /** Bumped when a new indexing run starts, so that timers of an older run do nothing. */
  run: number;
}

interface DatasetRecord {
  id: string;
  name: string;
  description: string;
  provider: 'vendor' | 'external';
  permission: DatasetPermission;
  partial_members: string[];
  indexing_technique: IndexingTechnique | null;
  embedding_model: string | null;
  embedding_model_provider: string | null;
  retrieval_model: RetrievalModelInput | null;
  summary_index_setting: SummaryIndexSetting | null;
  chunk_structure: string | null;
  created_by: string;
  updated_by: string;
  created_at: number;
  updated_at: number;
  app_count: number;
  tags: string[];
  pipeline_id: string | null;
  runtime_mode: string | null;
  icon_info: Dataset['icon_info'];
  doc_metadata: { id: string; name: string; type: MetadataFieldType }[];
  built_in_field_enabled: boolean;
  enable_api: boolean;
  is_multimodal: boolean;
  external: { api_id: string; knowledge_id: string } | null;
  external_retrieval_model: { top_k: number; score_threshold: number; score_threshold_enabled: boolean } | null;
  latest_rule: { id: string; rule: ResolvedProcessRule } | null;
  documents: DocumentRecord[];
}

export interface KnowledgeStoreOptions {
  stageDelayMs: number;
  statusReindexMs: number;
  maxSegmentationTokens: number;
}

const DEFAULT_RETRIEVAL_MODEL: RetrievalModel = {
  search_method: 'semantic_search',
  reranking_enable: false,
  reranking_mode: null,
  reranking_model: { reranking_provider_name: '', reranking_model_name: '' },
  weights: null,
  top_k: 2,
  score_threshold_enabled: false,
  score_threshold: null,
  metadata_filtering_conditions: null,
};

const DEFAULT_EXTERNAL_RETRIEVAL = { top_k: 2, score_threshold: 0, score_threshold_enabled: false };

const DOC_FORMS: readonly string[] = ['text_model', 'hierarchical_model', 'qa_model'];

/** `time.strftime("%Y%m%d%H%M%S") + str(random.randint(100000, 999999))`. */
function batchId(): string {
  const d = new Date();
  const p = (n: number, w = 2) => String(n).padStart(w, '0');
  return `${d.getUTCFullYear()}${p(d.getUTCMonth() + 1)}${p(d.getUTCDate())}${p(d.getUTCHours())}${p(d.getUTCMinutes())}${p(d.getUTCSeconds())}${randomInt(100000, 1000000)}`;
}

export function displayStatus(doc: Pick<DocumentRecord, 'indexing_status' | 'archived' | 'enabled'>): DocumentDisplayStatus {
  switch (doc.indexing_status) {
    case 'waiting':
      return 'queuing';
    case 'paused':
      return 'paused';
    case 'error':
      return 'error';
    case 'completed':
      if (doc.archived) return 'archived';
      return doc.enabled ? 'available' : 'disabled';
    default:
      return 'indexing';
  }
}

const isAvailable = (doc: DocumentRecord) => doc.indexing_status === 'completed' && doc.enabled && !doc.archived;
const liveSegments = (doc: DocumentRecord) => doc.segments.filter((s) => s.status !== 're_segment');

/** Resolves a process rule as the real service stores it (`automatic` uses fixed rules). */
function resolveRule(input: ProcessRuleInput | undefined | null, docForm: DocForm): ResolvedProcessRule {
  if (!input || input.mode === 'automatic') {
    if (docForm === 'hierarchical_model') return { mode: 'hierarchical', rules: structuredClone(DEFAULT_HIERARCHICAL_RULES) };
    return { mode: 'automatic', rules: structuredClone(AUTOMATIC_RULES) };
  }
  const rules = input.rules ?? {};
  const seg = (s: NonNullable<ProcessRuleInput['rules']>['segmentation'], fallback: SegmentationRule): SegmentationRule => ({
    separator: s?.separator || fallback.separator,
    max_tokens: s?.max_tokens ?? fallback.max_tokens,
    chunk_overlap: s?.chunk_overlap ?? fallback.chunk_overlap,
  });
  const resolved: ResolvedProcessRule = {
    mode: input.mode,
    rules: {
      pre_processing_rules: dedupeRules(rules.pre_processing_rules ?? []),
      segmentation: seg(rules.segmentation, input.mode === 'hierarchical' ? DEFAULT_HIERARCHICAL_RULES.segmentation : { separator: '\n', max_tokens: 500, chunk_overlap: 0 }),
    },
  };
  if (input.mode === 'hierarchical') {
    resolved.rules.parent_mode = rules.parent_mode ?? 'paragraph';
    resolved.rules.subchunk_segmentation = seg(rules.subchunk_segmentation, DEFAULT_HIERARCHICAL_RULES.subchunk_segmentation!);
  }
  return resolved;
}

function dedupeRules(rules: { id: string; enabled: boolean }[]): { id: string; enabled: boolean }[] {
  const byId = new Map<string, { id: string; enabled: boolean }>();
  for (const r of rules) byId.set(r.id, { id: r.id, enabled: r.enabled });
  return [...byId.values()];
}

/** The real service's `process_rule_args_validate`, for rules sent with a document. */
export function checkProcessRule(input: ProcessRuleInput, docForm: string): void {
  if (input.mode === 'automatic') return;
  const rules = input.rules;
  if (!rules) throw badParam('Process rule rules is required');
  if (rules.pre_processing_rules === null || rules.pre_processing_rules === undefined) {
    throw badParam('Process rule pre_processing_rules is required');
  }
  if (!rules.segmentation) throw badParam('Process rule segmentation is required');
  if (!rules.segmentation.separator) throw badParam('Process rule segmentation separator is required');
  if (!(input.mode === 'hierarchical' && rules.parent_mode === 'full-doc') && !rules.segmentation.max_tokens) {
    throw badParam('Process rule segmentation max_tokens is required');
  }
  if (input.mode === 'hierarchical' && docForm !== 'hierarchical_model') {
    throw badParam('Process rule mode hierarchical needs doc_form hierarchical_model.');
  }
  if (input.mode !== 'hierarchical' && docForm === 'hierarchical_model') {
    throw badParam('doc_form hierarchical_model needs process rule mode hierarchical.');
  }
}

function retrievalModelDict(stored: RetrievalModelInput | null): RetrievalModel {
  if (!stored) return structuredClone(DEFAULT_RETRIEVAL_MODEL);
  return {
    search_method: stored.search_method,
    reranking_enable: stored.reranking_enable,
    reranking_mode: stored.reranking_mode ?? null,
    reranking_model: {
      reranking_provider_name: stored.reranking_model?.reranking_provider_name ?? '',
      reranking_model_name: stored.reranking_model?.reranking_model_name ?? '',
    },
    weights: (stored.weights as RetrievalModel['weights']) ?? null,
    top_k: stored.top_k,
    score_threshold_enabled: stored.score_threshold_enabled,
    score_threshold: stored.score_threshold ?? null,
    metadata_filtering_conditions: (stored.metadata_filtering_conditions as RetrievalModel['metadata_filtering_conditions']) ?? null,
  };
}

const duplicateName = () => new ApiError(409, 'dataset_name_duplicate', 'The dataset name already exists. Please modify your dataset name.');

export class KnowledgeStore {
  readonly registry: ModelRegistry;
  readonly owner: Account;
  readonly #accounts = new Map<string, Account>();
  readonly #datasets: DatasetRecord[] = [];
  readonly #tags: { id: string; name: string }[] = [];
  readonly #fixture: KnowledgeFixture | undefined;
  readonly #timers = new Set<ReturnType<typeof setTimeout>>();
  #closed = false;

  constructor(
    fixture: KnowledgeFixture | undefined,
    readonly options: KnowledgeStoreOptions,
  ) {
    this.#fixture = fixture;
    this.registry = new ModelRegistry(fixture?.models ?? [], fixture?.default_organization ?? 'langgenius');
    this.owner = fixture?.owner ?? { id: uuid(), name: 'Owner', email: '' };
    for (const a of [this.owner, ...(fixture?.members ?? [])]) this.#accounts.set(a.id, a);
    this.#load();
  }

  /** Back to the fixture's knowledge bases, documents and tags (`/_qa/reset`); pending indexing stops. */
  reset(): void {
    for (const t of this.#timers) clearTimeout(t);
    this.#timers.clear();
    this.#load();
  }

  #load(): void {
    this.#tags.splice(0, Infinity, ...(this.#fixture?.tags ?? []).map((t) => ({ ...t })));
    this.#datasets.splice(0, Infinity, ...(this.#fixture?.datasets ?? []).map((d) => this.#fromFixture(d)));
  }

  close(): void {
    this.#closed = true;
    for (const t of this.#timers) clearTimeout(t);
    this.#timers.clear();
  }

  // ------------------------------------------------------------------------------------------
  // Knowledge bases

  datasetIdByRef(ref: string): string | undefined {
    return this.#datasets.find((d) => d.id === ref || d.name === ref)?.id;
  }

  /** 404 `Dataset not found.` (the real dataset-token check), 403 when its API access is off. */
  requireDataset(id: string): DatasetRecord {
    const ds = this.#datasets.find((d) => d.id === id);
    if (!ds) throw notFound('Dataset not found.');
    if (!ds.enable_api) throw new ApiError(403, 'forbidden', 'Dataset api access is not enabled.');
    return ds;
  }

  /** Metadata field names of a knowledge base (built-in ones when enabled) and their types. */
  metadataFields(ds: DatasetRecord | null): Map<string, MetadataFieldType> {
    const fields = new Map<string, MetadataFieldType>();
    if (!ds) return fields;
    for (const f of ds.doc_metadata) fields.set(f.name, f.type);
    if (ds.built_in_field_enabled) for (const [name, type] of Object.entries(BUILT_IN_FIELDS)) fields.set(name, type);
    return fields;
  }

  listDatasets(query: { page: number; limit: number; keyword?: string; include_all: boolean; tag_ids: string[] }): KnowledgePage<Dataset> {
    let list = [...this.#datasets].sort((a, b) => b.created_at - a.created_at || a.id.localeCompare(b.id));
    if (!query.include_all) list = list.filter((d) => this.#visibleToOwner(d));
    if (query.keyword) {
      const kw = query.keyword.toLowerCase();
      list = list.filter((d) => d.name.toLowerCase().includes(kw));
    }
    if (query.tag_ids.length) list = list.filter((d) => d.tags.some((t) => query.tag_ids.includes(t)));
    const total = list.length;
    const items = list.slice((query.page - 1) * query.limit, query.page * query.limit);
    return { data: items.map((d) => this.datasetJSON(d, 'list')), has_more: query.page * query.limit < total, limit: query.limit, total, page: query.page };
  }

  #visibleToOwner(d: DatasetRecord): boolean {
    if (d.permission === 'all_team_members' || d.created_by === this.owner.id) return true;
    return d.permission === 'partial_members' && d.partial_members.includes(this.owner.id);
  }

  createDataset(input: {
    name: string;
    description: string;
    indexing_technique?: IndexingTechnique | null;
    permission: DatasetPermission | null;
    provider: 'vendor' | 'external';
    external_knowledge_api_id?: string | null;
    external_knowledge_id?: string | null;
    retrieval_model?: RetrievalModelInput | null;
    embedding_model?: string | null;
    embedding_model_provider?: string | null;
    summary_index_setting?: { enable: boolean; model_name?: string | null; model_provider_name?: string | null; summary_prompt?: string | null } | null;
  }): Dataset {
    if (this.#datasets.some((d) => d.name === input.name)) throw duplicateName();
    let external: DatasetRecord['external'] = null;
    if (input.provider === 'external') {
      if (!input.external_knowledge_api_id) throw badParam('External knowledge api id is required.');
      if (!input.external_knowledge_id) throw badParam('External knowledge id is required.');
      if (!this.#externalApi(input.external_knowledge_api_id)) throw badParam('External API template not found.');
      external = { api_id: input.external_knowledge_api_id, knowledge_id: input.external_knowledge_id };
    }
    let embeddingModel: string | null = null;
    let embeddingProvider: string | null = null;
    const technique = input.provider === 'external' ? null : (input.indexing_technique ?? null);
    if (technique === 'high_quality') {
      ({ model: embeddingModel, provider: embeddingProvider } = this.#embeddingOrDefault(input.embedding_model, input.embedding_model_provider));
    }
    const now = nowSeconds();
    const ds: DatasetRecord = {
      id: uuid(),
      name: input.name,
      description: input.description,
      provider: input.provider,
      permission: input.permission ?? 'only_me',
      partial_members: [],
      indexing_technique: technique,
      embedding_model: embeddingModel,
      embedding_model_provider: embeddingProvider,
      retrieval_model: input.retrieval_model ?? null,
      summary_index_setting: input.summary_index_setting ? summarySetting(input.summary_index_setting) : null,
      chunk_structure: null,
      created_by: this.owner.id,
      updated_by: this.owner.id,
      created_at: now,
      updated_at: now,
      app_count: 0,
      tags: [],
      pipeline_id: null,
      runtime_mode: null,
      icon_info: null,
      doc_metadata: [],
      built_in_field_enabled: false,
      enable_api: true,
      is_multimodal: false,
      external,
      external_retrieval_model: input.provider === 'external' ? { ...DEFAULT_EXTERNAL_RETRIEVAL } : null,
      latest_rule: null,
      documents: [],
    };
    this.#datasets.push(ds);
    return this.datasetJSON(ds, 'create');
  }

  /** The given embedding model (checked) or the workspace default; 400 when there is none. */
  #embeddingOrDefault(model?: string | null, provider?: string | null): { model: string; provider: string } {
    if (model && provider) return { model, provider: this.registry.require('text-embedding', provider, model) };
    const fallback = this.registry.defaultModel('text-embedding');
    if (!fallback) throw badParam(NO_EMBEDDING_MODEL);
    return { model: fallback.model, provider: fallback.provider };
  }

  #externalApi(id: string) {
    return this.#fixture?.external_knowledge_apis.find((a) => a.id === id);
  }

  updateDataset(
    ds: DatasetRecord,
    input: {
      name?: string | null;
      description?: string | null;
      indexing_technique?: IndexingTechnique | null;
      permission?: DatasetPermission | null;
      embedding_model?: string | null;
      embedding_model_provider?: string | null;
      retrieval_model?: RetrievalModelInput | null;
      partial_member_list?: { user_id: string }[] | null;
      external_retrieval_model?: { top_k: number; score_threshold: number; score_threshold_enabled: boolean } | null;
      external_knowledge_id?: string | null;
      external_knowledge_api_id?: string | null;
    },
  ): Dataset {
    // Validate everything before changing anything.
    // The seed's error table gives renames the same 409 as creation (the real service says 400 here).
    if (input.name != null && this.#datasets.some((d) => d.id !== ds.id && d.name === input.name)) throw duplicateName();
    const permission = input.permission ?? ds.permission;
    let members: string[] | null = null;
    if (input.partial_member_list != null) {
      members = [...new Set(input.partial_member_list.map((m) => m.user_id))];
      const unknown = members.find((m) => !this.#accounts.has(m));
      if (unknown) throw badParam(`Account ${unknown} is not a member of the workspace.`);
    }
    if (permission === 'partial_members' && !(members?.length || (input.permission == null && ds.partial_members.length))) {
      throw badParam('Partial member list is required when setting to partial members.');
    }
    let technique = ds.indexing_technique;
    let embeddingModel = ds.embedding_model;
    let embeddingProvider = ds.embedding_model_provider;
    if (ds.provider === 'vendor') {
      if (input.indexing_technique != null) technique = input.indexing_technique;
      if (technique === 'economy') {
        embeddingModel = null;
        embeddingProvider = null;
      } else if (technique === 'high_quality') {
        if (input.embedding_model && input.embedding_model_provider) {
          embeddingProvider = this.registry.require('text-embedding', input.embedding_model_provider, input.embedding_model);
          embeddingModel = input.embedding_model;
        } else if (!embeddingModel || !embeddingProvider) {
          ({ model: embeddingModel, provider: embeddingProvider } = this.#embeddingOrDefault());
        }
      }
    }
    let external = ds.external;
    if (ds.provider === 'external' && (input.external_knowledge_api_id != null || input.external_knowledge_id != null)) {
      const apiId = input.external_knowledge_api_id ?? ds.external?.api_id ?? '';
      if (!this.#externalApi(apiId)) throw badParam('External API template not found.');
      external = { api_id: apiId, knowledge_id: input.external_knowledge_id ?? ds.external?.knowledge_id ?? '' };
    }

    if (input.name != null) ds.name = input.name;
    if (input.description !== undefined) ds.description = input.description ?? '';
    ds.permission = permission;
    if (permission !== 'partial_members') ds.partial_members = [];
    else if (members) ds.partial_members = members;
    ds.indexing_technique = technique;
    ds.embedding_model = embeddingModel;
    ds.embedding_model_provider = embeddingProvider;
    if (input.retrieval_model) ds.retrieval_model = input.retrieval_model;
    if (ds.provider === 'external') {
      ds.external = external;
      if (input.external_retrieval_model) ds.external_retrieval_model = { ...input.external_retrieval_model };
    }
    ds.updated_by = this.owner.id;
    ds.updated_at = nowSeconds();
    return this.datasetJSON(ds, 'update');
  }

  datasetJSON(ds: DatasetRecord, variant: 'list' | 'detail' | 'create' | 'update'): Dataset {
    const docs = ds.documents;
    const embeddingAvailable =
      ds.indexing_technique === 'high_quality' ? this.registry.isAvailable('text-embedding', ds.embedding_model_provider, ds.embedding_model) : true;
    let provider = ds.embedding_model_provider;
    // The list answers the full provider id; details keep the stored (possibly legacy short) form.
    if (variant === 'list' && provider && ds.indexing_technique === 'high_quality') {
      provider = this.registry.find('text-embedding', provider, ds.embedding_model)?.provider ?? provider;
      if (!provider.includes('/')) provider = `${this.registry.defaultOrganization}/${provider}/${provider}`;
    }
    const retrieval = retrievalModelDict(ds.retrieval_model);
    if (variant === 'detail' && ds.indexing_technique === 'economy') retrieval.search_method = 'keyword_search';
    const api = ds.external ? this.#externalApi(ds.external.api_id) : undefined;
    const pipeline = ds.pipeline_id ? this.#fixture?.pipelines.find((p) => p.id === ds.pipeline_id) : undefined;
    const creator = this.#accounts.get(ds.created_by);
    const firstDoc = docs[0];
    const json: Dataset = {
      id: ds.id,
      name: ds.name,
      description: ds.description,
      provider: ds.provider,
      permission: ds.permission,
      data_source_type: firstDoc ? 'upload_file' : null,
      indexing_technique: ds.indexing_technique,
      app_count: ds.app_count,
      document_count: docs.length,
      word_count: docs.reduce((sum, d) => sum + docWordCount(d), 0),
      created_by: ds.created_by,
      author_name: creator?.name ?? '',
      created_at: ds.created_at,
      updated_by: ds.updated_by,
      updated_at: ds.updated_at,
      embedding_model: ds.embedding_model,
      embedding_model_provider: provider,
      embedding_available: embeddingAvailable,
      retrieval_model_dict: retrieval,
      summary_index_setting: ds.summary_index_setting,
      tags: ds.tags.flatMap((id) => {
        const tag = this.#tags.find((t) => t.id === id);
        return tag ? [{ id: tag.id, name: tag.name, type: 'knowledge' }] : [];
      }),
      doc_form: (ds.chunk_structure as DocForm | null) ?? firstDoc?.doc_form ?? null,
      external_knowledge_info:
        ds.external && api
          ? {
              external_knowledge_id: ds.external.knowledge_id,
              external_knowledge_api_id: api.id,
              external_knowledge_api_name: api.name,
              external_knowledge_api_endpoint: api.endpoint,
            }
          : null,
      external_retrieval_model: ds.provider === 'external' ? (ds.external_retrieval_model ?? { ...DEFAULT_EXTERNAL_RETRIEVAL }) : null,
      doc_metadata: ds.doc_metadata.map((f) => ({ ...f })),
      built_in_field_enabled: ds.built_in_field_enabled,
      pipeline_id: ds.pipeline_id,
      runtime_mode: ds.runtime_mode,
      chunk_structure: ds.chunk_structure,
      icon_info: ds.icon_info ? { ...ds.icon_info } : null,
      is_published: Boolean(pipeline?.published),
      total_documents: docs.length,
      total_available_documents: docs.filter(isAvailable).length,
      enable_api: ds.enable_api,
      is_multimodal: ds.is_multimodal,
      maintainer: null,
    };
    if (variant === 'update' || (variant === 'detail' && ds.permission === 'partial_members')) {
      json.partial_member_list = [...ds.partial_members];
    }
    return json;
  }

  // ------------------------------------------------------------------------------------------
  // Documents

  createDocumentByText(
    ds: DatasetRecord,
    input: {
      name: string;
      text: string;
      process_rule?: ProcessRuleInput | null;
      original_document_id?: string | null;
      doc_form: string;
      doc_language: string;
      indexing_technique?: IndexingTechnique | null;
      retrieval_model?: RetrievalModelInput | null;
      embedding_model?: string | null;
      embedding_model_provider?: string | null;
    },
  ): { document: DatasetDocument; batch: string } {
    if (ds.provider === 'external') throw badParam('External datasets are not supported.');
    if (!ds.indexing_technique && !input.indexing_technique) throw badParam('indexing_technique is required.');
    if (!DOC_FORMS.includes(input.doc_form)) throw badParam('Invalid doc_form.');
    const docForm = input.doc_form as DocForm;
    const datasetForm = (ds.chunk_structure as DocForm | null) ?? ds.documents[0]?.doc_form ?? null;
    if (datasetForm && datasetForm !== docForm) throw badParam('doc_form is different from the dataset doc_form.');
    // Without rules a document reuses the knowledge base's latest rules, else the automatic ones.
    if (input.process_rule) checkProcessRule(input.process_rule, docForm);
    let embedding: { model: string; provider: string } | null = null;
    if (input.embedding_model && input.embedding_model_provider) {
      embedding = { model: input.embedding_model, provider: this.registry.require('text-embedding', input.embedding_model_provider, input.embedding_model) };
    }
    const technique = ds.indexing_technique ?? input.indexing_technique!;
    if (!ds.indexing_technique && technique === 'high_quality' && !embedding && !(ds.embedding_model && ds.embedding_model_provider)) {
      embedding = this.#embeddingOrDefault();
    }

    let original: DocumentRecord | undefined;
    if (input.original_document_id) {
      original = ds.documents.find((d) => d.id === input.original_document_id);
      if (!original) throw notFound('Document not found.');
      if (original.archived) throw archivedImmutable();
      if (displayStatus(original) !== 'available') throw badParam('Document is not available');
      if (original.doc_form !== docForm) throw badParam('doc_form is different from the dataset doc_form.');
    }

    // Everything checked: apply.
    if (!ds.indexing_technique) {
      ds.indexing_technique = technique;
      if (technique === 'high_quality' && embedding) {
        ds.embedding_model = embedding.model;
        ds.embedding_model_provider = embedding.provider;
      }
      if (!ds.retrieval_model && input.retrieval_model) ds.retrieval_model = input.retrieval_model;
    }
    let ruleRecord = ds.latest_rule;
    if (input.process_rule || !ruleRecord) {
      ruleRecord = { id: uuid(), rule: resolveRule(input.process_rule, docForm) };
      ds.latest_rule = ruleRecord;
    }
    const now = nowSeconds();
    const batch = batchId();
    let doc: DocumentRecord;
    if (original) {
      doc = original;
      doc.name = input.name;
      doc.text = input.text;
      doc.batch = batch;
      doc.rule = ruleRecord.rule;
      doc.process_rule_id = ruleRecord.id;
      doc.doc_language = input.doc_language;
      doc.updated_at = now;
      doc.upload_file = uploadFile(input.name, input.text, this.owner.id, now);
      for (const s of doc.segments) s.status = 're_segment';
    } else {
      doc = {
        id: uuid(),
        position: ds.documents.reduce((max, d) => Math.max(max, d.position), 0) + 1,
        name: input.name,
        text: input.text,
        batch,
        doc_form: docForm,
        doc_language: input.doc_language,
        process_rule_id: ruleRecord.id,
        rule: ruleRecord.rule,
        upload_file: uploadFile(input.name, input.text, this.owner.id, now),
        created_by: this.owner.id,
        created_at: now,
        updated_at: now,
        ...NOT_YET_INDEXED,
        paused_at: null,
        enabled: true,
        disabled_at: null,
        disabled_by: null,
        archived: false,
        archived_at: null,
        archived_by: null,
        hit_count: 0,
        segments: [],
        pending: null,
        busy: false,
        run: 0,
      };
      ds.documents.push(doc);
    }
    this.#startIndexing(ds, doc);
    ds.updated_at = now;
    return { document: this.documentJSON(doc), batch };
  }

  listDocuments(ds: DatasetRecord, query: { page: number; limit: number; keyword?: string; status?: string }): KnowledgePage<DatasetDocument> {
    let list = [...ds.documents].sort((a, b) => b.created_at - a.created_at || b.position - a.position);
    if (query.keyword) list = list.filter((d) => d.name.includes(query.keyword!));
    if (query.status) list = list.filter((d) => displayStatus(d) === query.status);
    const total = list.length;
    const items = list.slice((query.page - 1) * query.limit, query.page * query.limit);
    return { data: items.map((d) => this.documentJSON(d)), has_more: query.page * query.limit < total, limit: query.limit, total, page: query.page };
  }

  indexingStatus(ds: DatasetRecord, batch: string): DocumentIndexingStatus[] {
    const docs = ds.documents.filter((d) => d.batch === batch);
    if (!docs.length) throw notFound('Documents not found.');
    return docs.map((d) => {
      const live = liveSegments(d);
      return {
        id: d.id,
        indexing_status: d.indexing_status,
        processing_started_at: d.processing_started_at,
        parsing_completed_at: d.parsing_completed_at,
        cleaning_completed_at: d.cleaning_completed_at,
        splitting_completed_at: d.splitting_completed_at,
        completed_at: d.completed_at,
        paused_at: d.paused_at,
        error: d.error,
        stopped_at: d.stopped_at,
        completed_segments: live.filter((s) => s.completed_at !== null).length,
        total_segments: live.length,
      };
    });
  }

  /** Checks the dataset's embedding model like `check_dataset_model_setting`. */
  checkDatasetModel(ds: DatasetRecord): void {
    if (ds.indexing_technique === 'high_quality' && !this.registry.isAvailable('text-embedding', ds.embedding_model_provider, ds.embedding_model)) {
      throw badParam(NO_EMBEDDING_MODEL);
    }
  }

  updateDocumentStatus(ds: DatasetRecord, action: DocumentStatusAction, ids: string[]): void {
    const docs = [...new Set(ids)].flatMap((id) => ds.documents.filter((d) => d.id === id));
    // Check all first so that a rejected batch changes nothing.
    for (const doc of docs) {
      if (doc.busy) throw new ApiError(400, 'invalid_action', `Document:${doc.name} is being indexed, please try again later`);
      if ((action === 'enable' || action === 'disable') && doc.archived) throw archivedImmutable();
      if (action === 'disable' && doc.enabled && (doc.indexing_status !== 'completed' || !doc.completed_at)) {
        throw new ApiError(400, 'invalid_action', `Document: ${doc.name} is not completed.`);
      }
    }
    const now = nowSeconds();
    for (const doc of docs) {
      let changed = false;
      if (action === 'enable' && !doc.enabled) {
        doc.enabled = true;
        doc.disabled_at = null;
        doc.disabled_by = null;
        changed = true;
      } else if (action === 'disable' && doc.enabled) {
        doc.enabled = false;
        doc.disabled_at = now;
        doc.disabled_by = this.owner.id;
        changed = true;
      } else if (action === 'archive' && !doc.archived) {
        doc.archived = true;
        doc.archived_at = now;
        doc.archived_by = this.owner.id;
        changed = true;
      } else if (action === 'un_archive' && doc.archived) {
        doc.archived = false;
        doc.archived_at = null;
        doc.archived_by = null;
        changed = true;
      }
      if (!changed) continue;
      doc.updated_at = now;
      // Adding to or removing from the index runs in the background; the document is busy meanwhile.
      doc.busy = true;
      this.#later(this.options.statusReindexMs, () => {
        doc.busy = false;
      });
    }
  }

  documentJSON(doc: DocumentRecord): DatasetDocument {
    return {
      id: doc.id,
      position: doc.position,
      data_source_type: 'upload_file',
      data_source_info: { upload_file_id: doc.upload_file.id },
      data_source_detail_dict: { upload_file: { ...doc.upload_file } },
      dataset_process_rule_id: doc.process_rule_id,
      name: doc.name,
      created_from: 'api',
      created_by: doc.created_by,
      created_at: doc.created_at,
      tokens: liveSegments(doc).reduce((sum, s) => sum + s.tokens, 0),
      indexing_status: doc.indexing_status,
      error: doc.error,
      enabled: doc.enabled,
      disabled_at: doc.disabled_at,
      disabled_by: doc.disabled_by,
      archived: doc.archived,
      display_status: displayStatus(doc),
      word_count: docWordCount(doc),
      hit_count: doc.hit_count,
      doc_form: doc.doc_form,
      doc_metadata: [],
      summary_index_status: null,
      need_summary: false,
    };
  }

  requireDocument(ds: DatasetRecord, documentId: string): DocumentRecord {
    const doc = ds.documents.find((d) => d.id === documentId);
    if (!doc) throw notFound('Document not found.');
    return doc;
  }

  // ------------------------------------------------------------------------------------------
  // Chunks

  listSegments(doc: DocumentRecord, query: { page: number; limit: number; keyword?: string; status: string[] }): SegmentListResponse {
    let list = [...doc.segments].sort((a, b) => a.position - b.position);
    if (query.status.length) list = list.filter((s) => query.status.includes(s.status));
    if (query.keyword) {
      const kw = query.keyword.toLowerCase();
      list = list.filter((s) => s.content.toLowerCase().includes(kw) || (s.answer ?? '').toLowerCase().includes(kw));
    }
    const total = list.length;
    const items = list.slice((query.page - 1) * query.limit, query.page * query.limit);
    return {
      data: items.map((s) => segmentJSON(s, doc.id)),
      doc_form: doc.doc_form,
      total,
      has_more: query.page * query.limit < total,
      limit: query.limit,
      page: query.page,
    };
  }

  deleteSegment(doc: DocumentRecord, segmentId: string): void {
    const index = doc.segments.findIndex((s) => s.id === segmentId);
    if (index < 0) throw notFound('Segment not found.');
    if (doc.archived) throw archivedImmutable();
    doc.segments.splice(index, 1);
    doc.updated_at = nowSeconds();
  }

  // ------------------------------------------------------------------------------------------
  // Tags and pipelines

  listTags(): KnowledgeTag[] {
    return this.#tags.map((t) => ({
      id: t.id,
      name: t.name,
      type: 'knowledge',
      binding_count: String(this.#datasets.filter((d) => d.tags.includes(t.id)).length),
    }));
  }

  datasourcePlugins(ds: DatasetRecord, isPublished: boolean): DatasourceNode[] {
    const pipeline = ds.pipeline_id ? this.#fixture?.pipelines.find((p) => p.id === ds.pipeline_id) : undefined;
    if (!pipeline) throw badParam('Pipeline not found');
    const version = isPublished ? pipeline.published : pipeline.draft;
    if (!version) throw badParam('Pipeline or workflow not found');
    return datasourceNodes(version, this.#fixture?.datasource_credentials ?? []);
  }

  // ------------------------------------------------------------------------------------------
  // Indexing

  #later(ms: number, fn: () => void): void {
    if (this.#closed) return;
    const timer = setTimeout(() => {
      this.#timers.delete(timer);
      if (!this.#closed) fn();
    }, ms);
    timer.unref?.();
    this.#timers.add(timer);
  }

  /** Runs a document through the indexing states, one stage delay each. */
  #startIndexing(ds: DatasetRecord, doc: DocumentRecord): void {
    const run = ++doc.run;
    Object.assign(doc, { ...NOT_YET_INDEXED, pending: null } satisfies Partial<DocumentRecord>);
    const delay = this.options.stageDelayMs;
    const step = (fn: () => void) =>
      this.#later(delay, () => {
        if (doc.run !== run) return;
        try {
          fn();
        } catch (error) {
          this.#fail(doc, error);
        }
      });
    step(() => {
      doc.indexing_status = 'parsing';
      doc.processing_started_at = nowSeconds();
      step(() => {
        doc.indexing_status = 'cleaning';
        doc.parsing_completed_at = nowSeconds();
        step(() => {
          doc.indexing_status = 'splitting';
          doc.cleaning_completed_at = nowSeconds();
          step(() => {
            doc.pending = chunkText(doc.text, doc.rule, doc.doc_form, this.options.maxSegmentationTokens);
            doc.indexing_status = 'indexing';
            doc.splitting_completed_at = nowSeconds();
            this.#loadSegments(ds, doc);
            this.#completeSegments(ds, doc, run);
          });
        });
      });
    });
  }

  #fail(doc: DocumentRecord, error: unknown): void {
    if (!(error instanceof IndexingError)) console.error('[service] indexing failed:', error);
    doc.indexing_status = 'error';
    doc.error = error instanceof Error ? error.message : String(error);
    doc.stopped_at = nowSeconds();
    doc.segments = doc.segments.filter((s) => s.status !== 'indexing');
    for (const s of doc.segments) if (s.status === 're_segment') s.status = 'completed';
  }

  /** Replaces the document's chunks (old ones stay as `re_segment` until indexing completes). */
  #loadSegments(ds: DatasetRecord, doc: DocumentRecord): void {
    const now = nowSeconds();
    const economy = ds.indexing_technique === 'economy';
    const fresh = (doc.pending ?? []).map((chunk, i): SegmentRecord => {
      const text = chunk.answer ? `${chunk.content}${chunk.answer}` : chunk.content;
      const segmentId = uuid();
      return {
        id: segmentId,
        position: i + 1,
        content: chunk.content,
        answer: chunk.answer,
        word_count: wordCount(chunk.content) + (chunk.answer ? wordCount(chunk.answer) : 0),
        tokens: economy ? 0 : estimateTokens(text),
        keywords: economy ? extractKeywords(text) : [],
        index_node_id: uuid(),
        index_node_hash: textHash(chunk.content),
        hit_count: 0,
        enabled: true,
        disabled_at: null,
        disabled_by: null,
        status: 'indexing',
        created_by: doc.created_by,
        created_at: now,
        updated_at: now,
        updated_by: null,
        indexing_at: now,
        completed_at: null,
        error: null,
        stopped_at: null,
        child_chunks: chunk.children.map((content, j) => ({
          id: uuid(),
          segment_id: segmentId,
          content,
          position: j + 1,
          word_count: wordCount(content),
          type: 'automatic',
          created_at: now,
          updated_at: now,
        })),
      };
    });
    doc.pending = null;
    doc.segments = [...doc.segments.filter((s) => s.status === 're_segment'), ...fresh];
  }

  /** Completes the new chunks in up to four batches across the indexing stage. */
  #completeSegments(ds: DatasetRecord, doc: DocumentRecord, run: number): void {
    const pending = doc.segments.filter((s) => s.status === 'indexing');
    const batches = Math.max(1, Math.min(4, pending.length));
    const per = Math.ceil(pending.length / batches);
    const delay = this.options.stageDelayMs / batches;
    const next = (k: number) =>
      this.#later(delay, () => {
        if (doc.run !== run) return;
        const now = nowSeconds();
        for (const s of pending.slice(k * per, (k + 1) * per)) {
          if (s.status !== 'indexing') continue;
          s.status = 'completed';
          s.completed_at = now;
        }
        if (k + 1 < batches) return next(k + 1);
        doc.segments = doc.segments.filter((s) => s.status !== 're_segment');
        doc.indexing_status = 'completed';
        doc.completed_at = now;
        ds.updated_at = now;
      });
    next(0);
  }

  /** A fixture document: chunked and indexed at load. */
  #indexNow(ds: DatasetRecord, doc: DocumentRecord): void {
    const now = doc.created_at;
    try {
      doc.pending = chunkText(doc.text, doc.rule, doc.doc_form, this.options.maxSegmentationTokens);
      this.#loadSegments(ds, doc);
      for (const s of doc.segments) {
        s.status = 'completed';
        s.created_at = s.updated_at = s.indexing_at = s.completed_at = now;
      }
      Object.assign(doc, {
        indexing_status: 'completed',
        processing_started_at: now,
        parsing_completed_at: now,
        cleaning_completed_at: now,
        splitting_completed_at: now,
        completed_at: now,
      } satisfies Partial<DocumentRecord>);
    } catch (error) {
      this.#fail(doc, error);
    }
  }

  #fromFixture(d: FixtureDataset): DatasetRecord {
    const created = d.created_at ?? nowSeconds();
    const pipeline = d.pipeline ? this.#fixture?.pipelines.find((p) => p.id === d.pipeline || p.name === d.pipeline) : undefined;
    const ds: DatasetRecord = {
      id: d.id,
      name: d.name,
      description: d.description,
      provider: d.provider,
      permission: d.permission,
      partial_members: d.permission === 'partial_members' ? [...d.partial_member_list] : [],
      indexing_technique: d.provider === 'external' ? null : d.indexing_technique,
      embedding_model: d.indexing_technique === 'high_quality' ? d.embedding_model : null,
      embedding_model_provider: d.indexing_technique === 'high_quality' ? d.embedding_model_provider : null,
      retrieval_model: d.retrieval_model ?? null,
      summary_index_setting: null,
      chunk_structure: d.chunk_structure,
      created_by: d.created_by ?? this.owner.id,
      updated_by: d.created_by ?? this.owner.id,
      created_at: created,
      updated_at: created,
      app_count: d.app_count,
      tags: d.tags.flatMap((ref) => this.#tags.filter((t) => t.id === ref || t.name === ref).map((t) => t.id)),
      pipeline_id: pipeline?.id ?? null,
      runtime_mode: d.runtime_mode ?? (pipeline ? 'rag_pipeline' : null),
      icon_info: d.icon_info,
      doc_metadata: d.doc_metadata.map((f) => ({ ...f })),
      built_in_field_enabled: d.built_in_field_enabled,
      enable_api: d.enable_api,
      is_multimodal: d.is_multimodal,
      external: d.provider === 'external' ? { api_id: d.external_knowledge_api_id!, knowledge_id: d.external_knowledge_id! } : null,
      external_retrieval_model: d.provider === 'external' ? { ...DEFAULT_EXTERNAL_RETRIEVAL } : null,
      latest_rule: null,
      documents: [],
    };
    if (d.documents.length) {
      ds.latest_rule = { id: uuid(), rule: resolveRule(d.process_rule, d.doc_form) };
      d.documents.forEach((fd, i) => {
        const docCreated = fd.created_at ?? created;
        const doc: DocumentRecord = {
          id: fd.id ?? uuid(),
          position: i + 1,
          name: fd.name,
          text: fd.text,
          batch: batchId(),
          doc_form: d.doc_form,
          doc_language: d.doc_language,
          process_rule_id: ds.latest_rule!.id,
          rule: ds.latest_rule!.rule,
          upload_file: uploadFile(fd.name, fd.text, ds.created_by, docCreated),
          created_by: ds.created_by,
          created_at: docCreated,
          updated_at: docCreated,
          ...NOT_YET_INDEXED,
          paused_at: null,
          enabled: fd.enabled,
          disabled_at: fd.enabled ? null : docCreated,
          disabled_by: fd.enabled ? null : ds.created_by,
          archived: fd.archived,
          archived_at: fd.archived ? docCreated : null,
          archived_by: fd.archived ? ds.created_by : null,
          hit_count: fd.hit_count,
          segments: [],
          pending: null,
          busy: false,
          run: 0,
        };
        this.#indexNow(ds, doc);
        ds.documents.push(doc);
      });
    }
    return ds;
  }
}

export type { DatasetRecord, DocumentRecord };

function docWordCount(doc: DocumentRecord): number {
  return liveSegments(doc).reduce((sum, s) => sum + s.word_count, 0);
}

function archivedImmutable(): ApiError {
  return new ApiError(403, 'archived_document_immutable', 'The archived document is not editable.');
}

function summarySetting(s: { enable: boolean; model_name?: string | null; model_provider_name?: string | null; summary_prompt?: string | null }): SummaryIndexSetting {
  return { enable: s.enable, model_name: s.model_name ?? '', model_provider_name: s.model_provider_name ?? '', summary_prompt: s.summary_prompt ?? '' };
}

function uploadFile(name: string, text: string, createdBy: string, createdAt: number): DocumentRecord['upload_file'] {
  return {
    id: uuid(),
    name: name.slice(0, 200),
    size: Buffer.byteLength(text, 'utf8'),
    extension: 'txt',
    mime_type: 'text/plain',
    created_by: createdBy,
    created_at: createdAt,
  };
}

function segmentJSON(s: SegmentRecord, documentId: string): Segment {
  return {
    id: s.id,
    position: s.position,
    document_id: documentId,
    content: s.content,
    answer: s.answer,
    word_count: s.word_count,
    tokens: s.tokens,
    keywords: [...s.keywords],
    index_node_id: s.index_node_id,
    index_node_hash: s.index_node_hash,
    hit_count: s.hit_count,
    enabled: s.enabled,
    disabled_at: s.disabled_at,
    disabled_by: s.disabled_by,
    status: s.status,
    created_by: s.created_by,
    created_at: s.created_at,
    updated_at: s.updated_at,
    updated_by: s.updated_by,
    indexing_at: s.indexing_at,
    completed_at: s.completed_at,
    error: s.error,
    stopped_at: s.stopped_at,
    child_chunks: s.child_chunks.map((c) => ({ ...c })),
  };
}
