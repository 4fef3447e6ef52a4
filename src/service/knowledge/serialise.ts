/**
 * Records to the wire: pure functions of a record (and, for knowledge bases, the workspace facts
 * they show), with no clock and no store.
 */
import type {
  Dataset,
  DatasetDocument,
  DocumentDetail,
  DocForm,
  DocumentIndexingStatus,
  KnowledgeTag,
  RetrievalModel,
  Segment,
} from '../../protocol/index.js';
import type { ModelRegistry } from './models.js';
import {
  DEFAULT_EXTERNAL_RETRIEVAL,
  displayStatus,
  docWordCount,
  isAvailable,
  liveSegments,
  type Account,
  type DatasetRecord,
  type DocumentRecord,
  type SegmentRecord,
  type TagRecord,
  type UploadFileRecord,
} from './records.js';
import type { RetrievalModelInput } from './validation.js';

/** What a knowledge base's wire form shows beyond its own record. */
export interface WorkspaceView {
  registry: ModelRegistry;
  accounts: ReadonlyMap<string, Account>;
  tags: readonly TagRecord[];
  externalApi(id: string): { id: string; name: string; endpoint: string } | undefined;
  pipelinePublished(id: string): boolean;
}

export type DatasetVariant = 'list' | 'detail' | 'create' | 'update';

export const DEFAULT_RETRIEVAL_MODEL: RetrievalModel = {
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

export function retrievalModelDict(stored: RetrievalModelInput | null): RetrievalModel {
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

export function datasetJSON(ds: DatasetRecord, variant: DatasetVariant, view: WorkspaceView): Dataset {
  const docs = ds.documents;
  const embeddingAvailable =
    ds.indexing_technique === 'high_quality' ? view.registry.isAvailable('text-embedding', ds.embedding_model_provider, ds.embedding_model) : true;
  let provider = ds.embedding_model_provider;
  // The list answers the full provider id; details keep the stored (possibly legacy short) form.
  if (variant === 'list' && provider && ds.indexing_technique === 'high_quality') {
    provider = view.registry.find('text-embedding', provider, ds.embedding_model)?.provider ?? provider;
    if (!provider.includes('/')) provider = `${view.registry.defaultOrganization}/${provider}/${provider}`;
  }
  const retrieval = retrievalModelDict(ds.retrieval_model);
  if (variant === 'detail' && ds.indexing_technique === 'economy') retrieval.search_method = 'keyword_search';
  const api = ds.external ? view.externalApi(ds.external.api_id) : undefined;
  const creator = view.accounts.get(ds.created_by);
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
      const tag = view.tags.find((t) => t.id === id);
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
    is_published: ds.pipeline_id ? view.pipelinePublished(ds.pipeline_id) : false,
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

/** A document's metadata values as `[{id, name, type, value}]`, in the knowledge base's field order. */
export function documentMetadataJSON(doc: DocumentRecord, fields: DatasetRecord['doc_metadata']): DatasetDocument['doc_metadata'] {
  return fields.filter((f) => doc.metadata.has(f.id)).map((f) => ({ id: f.id, name: f.name, type: f.type, value: doc.metadata.get(f.id) ?? null }));
}

/** An upload file as the document wire forms show it (its bytes stay in the store). */
export function uploadFileJSON({ bytes: _, ...view }: UploadFileRecord): Omit<UploadFileRecord, 'bytes'> {
  return view;
}

export function documentJSON(doc: DocumentRecord, fields: DatasetRecord['doc_metadata'] = []): DatasetDocument {
  return {
    id: doc.id,
    position: doc.position,
    data_source_type: 'upload_file',
    data_source_info: { upload_file_id: doc.upload_file.id },
    data_source_detail_dict: { upload_file: uploadFileJSON(doc.upload_file) },
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
    // Summed over the chunks, as the detail's: Dify reads both from the chunks (`get_hit_count`).
    hit_count: liveSegments(doc).reduce((sum, s) => sum + s.hit_count, 0),
    doc_form: doc.doc_form,
    doc_metadata: documentMetadataJSON(doc, fields),
    summary_index_status: null,
    need_summary: false,
  };
}

export type DocumentDetailView = 'all' | 'only' | 'without';

/** `GET /datasets/{id}/documents/{document_id}`: everything, only the metadata, or all but it. */
export function documentDetailJSON(doc: DocumentRecord, ds: DatasetRecord, metadata: DocumentDetailView): DocumentDetail | Pick<DocumentDetail, 'id' | 'doc_type' | 'doc_metadata'> {
  const meta = { doc_type: null, doc_metadata: documentMetadataJSON(doc, ds.doc_metadata) };
  if (metadata === 'only') return { id: doc.id, ...meta };
  const live = liveSegments(doc);
  const wordCount = docWordCount(doc);
  const rule = { mode: doc.rule.mode, rules: structuredClone(doc.rule.rules) } as DocumentDetail['document_process_rule'] & {};
  const detail: DocumentDetail = {
    id: doc.id,
    position: doc.position,
    data_source_type: 'upload_file',
    data_source_info: { upload_file: uploadFileJSON(doc.upload_file) },
    dataset_process_rule_id: doc.process_rule_id,
    dataset_process_rule: { id: doc.process_rule_id, ...rule },
    document_process_rule: rule,
    name: doc.name,
    created_from: 'api',
    created_by: doc.created_by,
    created_at: doc.created_at,
    tokens: live.reduce((sum, s) => sum + s.tokens, 0),
    indexing_status: doc.indexing_status,
    completed_at: doc.completed_at,
    updated_at: doc.updated_at,
    indexing_latency: doc.completed_at !== null && doc.processing_started_at !== null ? doc.completed_at - doc.processing_started_at : null,
    error: doc.error,
    enabled: doc.enabled,
    disabled_at: doc.disabled_at,
    disabled_by: doc.disabled_by,
    archived: doc.archived,
    segment_count: live.length,
    average_segment_length: live.length ? Math.floor(wordCount / live.length) : 0,
    hit_count: live.reduce((sum, s) => sum + s.hit_count, 0),
    display_status: displayStatus(doc),
    doc_form: doc.doc_form,
    doc_language: doc.doc_language,
    summary_index_status: null,
    need_summary: false,
    ...meta,
  };
  if (metadata === 'without') {
    const { doc_type: _type, doc_metadata: _metadata, ...rest } = detail;
    return rest as DocumentDetail;
  }
  return detail;
}

export function indexingStatusJSON(d: DocumentRecord): DocumentIndexingStatus {
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
}

export function segmentJSON(s: SegmentRecord, documentId: string): Segment {
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
    sign_content: s.content,
    attachments: [],
    summary: null,
  };
}

export function tagJSON(t: TagRecord, datasets: readonly DatasetRecord[]): KnowledgeTag {
  return { id: t.id, name: t.name, type: 'knowledge', binding_count: String(datasets.filter((d) => d.tags.includes(t.id)).length) };
}
