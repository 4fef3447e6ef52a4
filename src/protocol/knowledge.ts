/** Knowledge-side resources and request bodies (service-api.md endpoints 1–7, dify-wire.md §7). */

export type IndexingTechnique = 'high_quality' | 'economy';
export type DatasetPermission = 'only_me' | 'all_team_members' | 'partial_members';
export type DatasetProvider = 'vendor' | 'external';
export type DocForm = 'text_model' | 'hierarchical_model' | 'qa_model';
export type SearchMethod = 'keyword_search' | 'semantic_search' | 'full_text_search' | 'hybrid_search';
export type RerankingMode = 'reranking_model' | 'weighted_score';

export type StringComparisonOperator =
  | 'contains' | 'not contains' | 'start with' | 'end with' | 'is' | 'is not' | 'empty' | 'not empty' | 'in' | 'not in';
export type NumericComparisonOperator = '=' | '≠' | '>' | '<' | '≥' | '≤';
export type TimeComparisonOperator = 'before' | 'after';
export type ComparisonOperator = StringComparisonOperator | NumericComparisonOperator | TimeComparisonOperator;

export interface MetadataCondition {
  name: string;
  comparison_operator: ComparisonOperator;
  /** String for most string operators, strings for `in`/`not in`, a number for numeric ones, omitted for `empty`/`not empty`. */
  value?: string | string[] | number | null;
}

export interface MetadataFilteringConditions {
  logical_operator?: 'and' | 'or';
  conditions?: MetadataCondition[] | null;
}

export interface RerankingModel {
  reranking_model_name: string;
  /** `<organization>/<plugin_name>/<provider_name>`. */
  reranking_provider_name: string;
}

export interface RetrievalWeights {
  weight_type?: 'semantic_first' | 'keyword_first' | 'customized';
  keyword_setting?: { keyword_weight: number };
  vector_setting?: { vector_weight: number; embedding_model_name: string; embedding_provider_name: string };
}

export interface RetrievalModel {
  search_method: SearchMethod;
  reranking_enable: boolean;
  top_k: number;
  score_threshold_enabled: boolean;
  score_threshold?: number | null;
  /** Required when `reranking_enable` is true. */
  reranking_mode?: RerankingMode | null;
  reranking_model?: RerankingModel;
  weights?: RetrievalWeights | null;
  metadata_filtering_conditions?: MetadataFilteringConditions | null;
}

export interface SummaryIndexSetting {
  enable: boolean;
  model_name: string;
  model_provider_name: string;
  summary_prompt: string;
}

export interface IconInfo { icon: string; icon_background: string; icon_type: string; icon_url: string }

export interface ExternalKnowledgeInfo {
  external_knowledge_api_endpoint: string;
  external_knowledge_api_id: string;
  external_knowledge_api_name: string;
  external_knowledge_id: string;
}

export interface ExternalRetrievalModel { score_threshold: number; score_threshold_enabled: boolean; top_k: number }

export interface DocMetadataField { id: string; name: string; type: string }

/** Metadata field types; each admits the comparison operators of its kind. */
export type MetadataFieldType = 'string' | 'number' | 'time';

/** Tag as bound to a knowledge base. */
export interface DatasetTag { id: string; name: string; type: string }

/** A knowledge base as the service answers it. */
export interface Dataset {
  id: string;
  name: string;
  description: string;
  provider: DatasetProvider;
  permission: DatasetPermission;
  /** Always on the update answer; on details only for `partial_members`. */
  partial_member_list?: string[] | null;
  indexing_technique: IndexingTechnique | null;
  embedding_model: string | null;
  embedding_model_provider: string | null;
  embedding_available: boolean;
  doc_form: DocForm | null;
  chunk_structure: string | null;
  data_source_type: string | null;
  document_count: number;
  total_documents: number;
  total_available_documents: number;
  word_count: number;
  app_count: number;
  author_name: string;
  maintainer: string | null;
  created_by: string;
  updated_by: string;
  created_at: number;
  updated_at: number;
  built_in_field_enabled: boolean;
  doc_metadata: DocMetadataField[];
  enable_api: boolean;
  is_multimodal: boolean;
  is_published: boolean;
  pipeline_id: string | null;
  runtime_mode: string | null;
  icon_info: IconInfo | null;
  external_knowledge_info: ExternalKnowledgeInfo | null;
  external_retrieval_model: ExternalRetrievalModel | null;
  retrieval_model_dict: RetrievalModel;
  summary_index_setting: SummaryIndexSetting | null;
  tags: DatasetTag[];
}

/** `POST /datasets`. */
export interface CreateDatasetRequest {
  name: string;
  description?: string;
  indexing_technique?: IndexingTechnique | null;
  permission?: DatasetPermission;
  provider?: DatasetProvider;
  embedding_model?: string;
  embedding_model_provider?: string;
  external_knowledge_api_id?: string;
  external_knowledge_id?: string;
  retrieval_model?: RetrievalModel;
  summary_index_setting?: SummaryIndexSetting | null;
}

/** `GET /datasets` query. */
export interface DatasetListQuery {
  page?: number;
  /** At most 100; default 20. */
  limit?: number;
  /** Case-insensitive substring of the name. */
  keyword?: string;
  /** Include knowledge bases private to other members. */
  include_all?: boolean;
  tag_ids?: string[];
}

/** A page of a page-numbered listing of the knowledge side. */
export interface KnowledgePage<T> {
  data: T[];
  has_more: boolean;
  limit: number;
  total: number;
  page: number;
}

/** `PATCH /datasets/{dataset_id}`: only fields present change. */
export interface UpdateDatasetRequest {
  name?: string;
  description?: string;
  indexing_technique?: IndexingTechnique;
  permission?: DatasetPermission;
  partial_member_list?: { user_id: string }[];
  embedding_model?: string;
  embedding_model_provider?: string;
  external_knowledge_api_id?: string;
  external_knowledge_id?: string;
  external_retrieval_model?: ExternalRetrievalModel;
  retrieval_model?: RetrievalModel;
}

export type PreProcessingRuleId = 'remove_stopwords' | 'remove_extra_spaces' | 'remove_urls_emails';

export interface Segmentation {
  /** Fixed separator; `\\n` in the text stands for a newline. Default `\n`. */
  separator?: string;
  /** Chunk size in tokens, 50 to 4000. */
  max_tokens: number;
  /** Tokens shared by neighbouring chunks; default 0. */
  chunk_overlap?: number;
}

export interface ProcessRule {
  mode: 'automatic' | 'custom' | 'hierarchical';
  rules?: {
    pre_processing_rules?: { id: PreProcessingRuleId; enabled: boolean }[];
    segmentation?: Segmentation;
    parent_mode?: 'full-doc' | 'paragraph';
    subchunk_segmentation?: Segmentation;
  };
}

/** `POST /datasets/{dataset_id}/document/create-by-text`. */
export interface CreateDocumentByTextRequest {
  name: string;
  text: string;
  /** Required on a knowledge base's first document; later documents inherit it. */
  indexing_technique?: IndexingTechnique;
  doc_form?: DocForm;
  doc_language?: string;
  process_rule?: ProcessRule;
  retrieval_model?: RetrievalModel;
  embedding_model?: string;
  embedding_model_provider?: string;
  original_document_id?: string;
}

export type IndexingStatus = 'waiting' | 'parsing' | 'cleaning' | 'splitting' | 'indexing' | 'completed' | 'error' | 'paused';
export type DocumentDisplayStatus = 'queuing' | 'indexing' | 'paused' | 'error' | 'available' | 'disabled' | 'archived';

export interface DatasetDocument {
  id: string;
  position: number;
  data_source_type: string;
  data_source_info: Record<string, unknown> | null;
  data_source_detail_dict: Record<string, unknown> | null;
  dataset_process_rule_id: string | null;
  name: string;
  created_from: 'api' | (string & {});
  created_by: string;
  created_at: number;
  tokens: number;
  indexing_status: IndexingStatus;
  error: string | null;
  enabled: boolean;
  disabled_at: number | null;
  disabled_by: string | null;
  archived: boolean;
  display_status: DocumentDisplayStatus;
  word_count: number;
  hit_count: number;
  doc_form: DocForm;
  doc_metadata: { id: string; name: string; type: string; value: unknown }[];
  summary_index_status: string | null;
  need_summary: boolean;
}

/** `GET /datasets/{dataset_id}/documents` query. */
export interface DocumentListQuery {
  page?: number;
  limit?: number;
  /** Substring of the document name. */
  keyword?: string;
  /** A display status to filter by. */
  status?: DocumentDisplayStatus;
}

/** `GET …/documents/{document_id}/download`: a signed, expiring link that downloads the document's original file. */
export interface DocumentDownloadUrl { url: string }

/** `POST …/documents/download-zip`: 1 to 100 ids of the knowledge base's documents; the answer is a ZIP of their files. */
export interface DocumentsZipRequest { document_ids: string[] }

/** `GET …/documents/{document_id}/upload-file` (older builds): the document's uploaded file and signed links to it. */
export interface DocumentUploadFile {
  id: string;
  name: string;
  size: number;
  extension: string;
  /** Signed preview link; `download_url` is the same with `&as_attachment=true`. */
  url: string;
  download_url: string;
  mime_type: string;
  created_by: string;
  /** Epoch seconds as a float (Dify's `datetime.timestamp()`). */
  created_at: number;
}

/** Answer of create-by-text: the document and the batch id used to follow indexing. */
export interface CreateDocumentResponse { document: DatasetDocument; batch: string }

export interface DocumentIndexingStatus {
  id: string;
  indexing_status: IndexingStatus;
  processing_started_at: number | null;
  parsing_completed_at: number | null;
  cleaning_completed_at: number | null;
  splitting_completed_at: number | null;
  completed_at: number | null;
  paused_at: number | null;
  error: string | null;
  stopped_at: number | null;
  completed_segments: number;
  total_segments: number;
}

/** `GET /datasets/{dataset_id}/documents/{batch}/indexing-status`. */
export interface IndexingStatusResponse { data: DocumentIndexingStatus[] }

export type DocumentStatusAction = 'enable' | 'disable' | 'archive' | 'un_archive';

/** Answer of operations that only confirm. */
export interface SimpleResult { result: 'success' }

/** `PATCH /datasets/{dataset_id}/documents/status/{action}`. */
export interface DocumentStatusRequest { document_ids: string[] }

/** A chunk of a document. */
export interface Segment {
  id: string;
  position: number;
  document_id: string;
  content: string;
  answer: string | null;
  word_count: number;
  tokens: number;
  keywords: string[];
  index_node_id: string;
  index_node_hash: string;
  hit_count: number;
  enabled: boolean;
  disabled_at: number | null;
  disabled_by: string | null;
  status: 'waiting' | 'indexing' | 'completed' | 'error' | 're_segment';
  created_by: string;
  created_at: number;
  indexing_at: number | null;
  completed_at: number | null;
  error: string | null;
  stopped_at: number | null;
  updated_at: number;
  updated_by: string | null;
  /** Child chunks of a parent chunk (`hierarchical_model`); empty otherwise. */
  child_chunks: ChildChunk[];
  /** The content with the links to its images signed (Dify's `get_sign_content`): the content itself for text. */
  sign_content: string | null;
  /** Images attached to the chunk. */
  attachments: { id: string; name: string; size: number; extension: string; mime_type: string; source_url: string }[];
  /** The chunk's summary, when the knowledge base keeps a summary index. */
  summary: string | null;
}

/** A child chunk of a parent chunk. */
export interface ChildChunk {
  id: string;
  segment_id: string;
  content: string;
  position: number;
  word_count: number;
  type: 'automatic' | 'customized';
  created_at: number;
  updated_at: number;
}

/** `GET /datasets/{dataset_id}/documents/{document_id}/segments` query. */
export interface SegmentListQuery {
  page?: number;
  limit?: number;
  keyword?: string;
  /** Segment statuses to keep. */
  status?: Segment['status'][];
}

export interface SegmentListResponse extends KnowledgePage<Segment> { doc_form: DocForm }

/** `GET /datasets/tags` item. */
export interface KnowledgeTag {
  id: string;
  name: string;
  type: 'knowledge';
  /** Numeric text. */
  binding_count: string;
}

export type DatasourceType = 'local_file' | 'online_document' | 'online_drive' | 'website_crawl';

export interface DatasourceCredential { id: string; name: string; type: string; is_default: boolean }

/** `GET /datasets/{dataset_id}/pipeline/datasource-plugins` item. */
export interface DatasourceNode {
  node_id: string;
  plugin_id: string;
  provider_name: string;
  title: string;
  datasource_type: DatasourceType;
  credentials: DatasourceCredential[];
  /** The pipeline variables referenced by the node's datasource parameters. */
  user_input_variables: RagPipelineVariable[];
}

/** A knowledge pipeline input variable, as the pipeline defines it. */
export interface RagPipelineVariable {
  /** Node the variable belongs to, or `shared`. */
  belong_to_node_id: string;
  type: 'text-input' | 'paragraph' | 'select' | 'number' | 'checkbox' | 'file' | 'file-list' | (string & {});
  label: string;
  variable: string;
  required: boolean;
  max_length?: number | null;
  default_value?: string | number | boolean | null;
  placeholder?: string | null;
  unit?: string | null;
  tooltips?: string | null;
  options?: string[];
  allowed_file_types?: string[];
  allowed_file_extensions?: string[];
  allowed_file_upload_methods?: string[];
}

/** `GET /datasets/{dataset_id}/pipeline/datasource-plugins` query. */
export interface DatasourcePluginsQuery {
  /** Published version (default) or the draft. */
  is_published?: boolean;
}

// ---------------------------------------------------------------------------------------------
// Retrieval (hit testing)

/** `POST /datasets/{dataset_id}/retrieve`. */
export interface RetrieveRequest {
  /** At most 250 characters. */
  query: string;
  /** Omitted: the knowledge base's own retrieval settings. */
  retrieval_model?: RetrievalModel | null;
  external_retrieval_model?: ExternalRetrievalModel | null;
  attachment_ids?: string[] | null;
}

/** The document a retrieved chunk belongs to. */
export interface RetrievedDocument {
  id: string;
  data_source_type: string;
  name: string;
  doc_type: string | null;
  /** The document's metadata values by field name, or null when it has none. */
  doc_metadata: Record<string, string | number | null> | null;
}

/** A retrieved chunk: the chunk's fields (its child chunks are on the record) and its document. */
export interface RetrievedSegment extends Omit<Segment, 'child_chunks' | 'attachments' | 'summary'> {
  document: RetrievedDocument;
}

/** A child chunk that matched (`hierarchical_model` knowledge bases). */
export interface RetrievedChildChunk { id: string; content: string; position: number; score: number }

export interface RetrievalRecord {
  segment: RetrievedSegment;
  /** The matching child chunks, best first; empty unless the document is `hierarchical_model`. */
  child_chunks: RetrievedChildChunk[];
  /** Relevance in [0, 1]; `keyword_search` gives 0 (keyword hits carry no score). */
  score: number | null;
  tsne_position: null;
  files: { id: string; name: string; size: number; extension: string; mime_type: string; source_url: string }[];
  summary: string | null;
}

export interface RetrieveResponse {
  query: { content: string };
  /** Best first, at most `top_k`. */
  records: RetrievalRecord[];
}

// ---------------------------------------------------------------------------------------------
// Documents by file, document detail

/** `POST /datasets/{dataset_id}/document/create-by-file`: the `data` part (the file is the `file` part). */
export type CreateDocumentByFileData = Omit<CreateDocumentByTextRequest, 'name' | 'text'>;

/** `POST /datasets/{dataset_id}/documents/{document_id}/update-by-text`: what is present changes; the document is re-indexed. */
export interface UpdateDocumentByTextRequest {
  /** Required with `text`. */
  name?: string;
  text?: string;
  process_rule?: ProcessRule;
  doc_form?: DocForm;
  doc_language?: string;
  retrieval_model?: RetrievalModel;
}

/** `…/update-by-file`: the `data` part. */
export type UpdateDocumentByFileData = Omit<UpdateDocumentByTextRequest, 'name' | 'text'> & { name?: string };

export interface DocumentProcessRule { mode: ProcessRule['mode']; rules: NonNullable<ProcessRule['rules']> }

/** `GET /datasets/{dataset_id}/documents/{document_id}` (`metadata=all`). */
export interface DocumentDetail {
  id: string;
  position: number;
  data_source_type: string;
  data_source_info: Record<string, unknown> | null;
  dataset_process_rule_id: string | null;
  dataset_process_rule: (DocumentProcessRule & { id: string }) | null;
  document_process_rule: DocumentProcessRule | null;
  name: string;
  created_from: string;
  created_by: string;
  created_at: number;
  tokens: number;
  indexing_status: IndexingStatus;
  completed_at: number | null;
  updated_at: number;
  /** Seconds from the start of processing to completion. */
  indexing_latency: number | null;
  error: string | null;
  enabled: boolean;
  disabled_at: number | null;
  disabled_by: string | null;
  archived: boolean;
  doc_type: string | null;
  doc_metadata: { id: string; name: string; type: string; value: unknown }[];
  segment_count: number;
  average_segment_length: number;
  hit_count: number;
  display_status: DocumentDisplayStatus;
  doc_form: DocForm;
  doc_language: string;
  summary_index_status: string | null;
  need_summary: boolean;
}

/** `metadata` query of the document detail. */
export type DocumentDetailMetadata = 'all' | 'only' | 'without';

// ---------------------------------------------------------------------------------------------
// Chunks written through the API

export interface NewSegment { content: string; answer?: string; keywords?: string[] }

/** `POST …/documents/{document_id}/segments`. */
export interface CreateSegmentsRequest { segments: NewSegment[] }
export interface SegmentsResponse { data: Segment[]; doc_form: DocForm }

/** `GET`/`POST …/segments/{segment_id}`. */
export interface SegmentResponse { data: Segment; doc_form: DocForm }

/** `POST …/segments/{segment_id}`. */
export interface UpdateSegmentRequest {
  segment: {
    content?: string;
    answer?: string;
    keywords?: string[];
    /** false takes the chunk out of the index. */
    enabled?: boolean;
    /** Split a `hierarchical_model` parent chunk's children again from its new content. */
    regenerate_child_chunks?: boolean;
  };
}

export interface ChildChunkListQuery { page?: number; limit?: number; keyword?: string }
export interface ChildChunkPage { data: ChildChunk[]; total: number; total_pages: number; page: number; limit: number }
export interface ChildChunkResponse { data: ChildChunk }

// ---------------------------------------------------------------------------------------------
// Tags, metadata, models

/** `GET /datasets/{dataset_id}/tags`. */
export interface DatasetTagsResponse { data: { id: string; name: string }[]; total: number }

export interface MetadataField { id: string; name: string; type: MetadataFieldType }

/** `GET /datasets/{dataset_id}/metadata`. */
export interface MetadataFieldsResponse {
  doc_metadata: (MetadataField & { count: number })[];
  built_in_field_enabled: boolean;
}

/** `GET /datasets/{dataset_id}/metadata/built-in`. */
export interface BuiltInMetadataFields { fields: { name: string; type: MetadataFieldType }[] }

/** `POST /datasets/{dataset_id}/documents/metadata`. */
export interface DocumentMetadataRequest {
  operation_data: {
    document_id: string;
    metadata_list: { id: string; name: string; value: string | number | null }[];
    /** false (default): the list replaces the document's values; true: only the fields listed change. */
    partial_update?: boolean;
  }[];
}

export type ModelType = 'text-embedding' | 'rerank' | 'llm' | 'tts' | 'speech2text' | 'moderation';

export interface I18nText { en_US: string; zh_Hans: string }

export interface ProviderModel {
  model: string;
  label: I18nText;
  model_type: ModelType;
  features: string[] | null;
  fetch_from: 'predefined-model' | 'customizable-model';
  model_properties: Record<string, unknown>;
  status: string;
  deprecated: boolean;
  load_balancing_enabled: boolean;
  has_invalid_load_balancing_configs: boolean;
}

/** `GET /workspaces/current/models/model-types/{model_type}` item: a provider and its models of that type. */
export interface ModelProvider {
  /** The value to send as `embedding_model_provider` / `reranking_provider_name`. */
  provider: string;
  label: I18nText;
  icon_small: I18nText | null;
  icon_small_dark: I18nText | null;
  status: string;
  tenant_id: string;
  models: ProviderModel[];
}
