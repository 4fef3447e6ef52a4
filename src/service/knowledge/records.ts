/**
 * The knowledge store's records: knowledge bases, documents and chunks as the store keeps them,
 * and the small facts derived from a record that several parts need (display status, live chunks).
 */
import { randomInt } from 'node:crypto';
import type {
  Dataset,
  DatasetPermission,
  DocForm,
  DocumentDisplayStatus,
  DocumentIndexingStatus,
  IndexingTechnique,
  MetadataFieldType,
  Segment,
  SummaryIndexSetting,
  UploadedFile,
} from '../../protocol/index.js';
import { ApiError } from '../errors.js';
import { storedFileName } from '../files/file-types.js';
import { uuid } from '../ids.js';
import type { Chunk, ResolvedProcessRule } from './chunking.js';
import type { RetrievalModelInput } from './validation.js';

export interface Account { id: string; name: string; email: string }

export interface TagRecord { id: string; name: string }

/** A chunk as stored; what the wire derives from it (its document, signed content, attachments, summary) is added by `segmentJSON`. */
export type SegmentRecord = Omit<Segment, 'document_id' | 'sign_content' | 'attachments' | 'summary'>;

/** The indexing fields of a document queued for (re-)indexing. */
export const NOT_YET_INDEXED = {
  indexing_status: 'waiting',
  processing_started_at: null,
  parsing_completed_at: null,
  cleaning_completed_at: null,
  splitting_completed_at: null,
  completed_at: null,
  stopped_at: null,
  error: null,
} as const;

/**
 * A document's uploaded file (Dify's `UploadFile` row, the one an app upload is, and its stored
 * object): what the wire shows of it, and its original bytes, which the download routes serve.
 */
export type UploadFileRecord = Pick<UploadedFile, 'id' | 'name' | 'size' | 'extension' | 'mime_type' | 'created_by' | 'created_at'> & { bytes: Uint8Array };

/** A document as stored; its indexing fields are those the indexing-status route answers. */
export interface DocumentRecord extends Omit<DocumentIndexingStatus, 'id' | 'completed_segments' | 'total_segments'> {
  id: string;
  position: number;
  name: string;
  text: string;
  batch: string;
  doc_form: DocForm;
  doc_language: string;
  process_rule_id: string;
  rule: ResolvedProcessRule;
  upload_file: UploadFileRecord;
  created_by: string;
  created_at: number;
  updated_at: number;
  enabled: boolean;
  disabled_at: number | null;
  disabled_by: string | null;
  archived: boolean;
  archived_at: number | null;
  archived_by: string | null;
  /** Metadata values by field id. */
  metadata: Map<string, string | number | null>;
  segments: SegmentRecord[];
  /** Chunks computed at `splitting`, turned into segments at `indexing`. */
  pending: Chunk[] | null;
  /** An enable/disable/archive/un_archive is being applied to the index. */
  busy: boolean;
  /** Bumped when a new indexing run starts, so that timers of an older run do nothing. */
  run: number;
}

export interface MetadataFieldRecord { id: string; name: string; type: MetadataFieldType }

export interface DatasetRecord {
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
  doc_metadata: MetadataFieldRecord[];
  built_in_field_enabled: boolean;
  enable_api: boolean;
  is_multimodal: boolean;
  external: { api_id: string; knowledge_id: string } | null;
  external_retrieval_model: { top_k: number; score_threshold: number; score_threshold_enabled: boolean } | null;
  latest_rule: { id: string; rule: ResolvedProcessRule } | null;
  documents: DocumentRecord[];
  /** Queries asked of it (the real service's `DatasetQuery` rows). */
  queries: DatasetQueryRecord[];
}

export interface DatasetQueryRecord { id: string; content: string; source: 'hit_testing'; created_by: string; created_at: number }

export const DEFAULT_EXTERNAL_RETRIEVAL = { top_k: 2, score_threshold: 0, score_threshold_enabled: false };

export const DOC_FORMS: readonly string[] = ['text_model', 'hierarchical_model', 'qa_model'];

/** `time.strftime("%Y%m%d%H%M%S") + str(random.randint(100000, 999999))`. */
export function batchId(): string {
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

export const isAvailable = (doc: DocumentRecord) => doc.indexing_status === 'completed' && doc.enabled && !doc.archived;
/** Chunks that count: those of a re-indexing run's predecessor (`re_segment`) do not. */
export const liveSegments = (doc: DocumentRecord) => doc.segments.filter((s) => s.status !== 're_segment');

export function docWordCount(doc: DocumentRecord): number {
  return liveSegments(doc).reduce((sum, s) => sum + s.word_count, 0);
}

export function archivedImmutable(): ApiError {
  return new ApiError(403, 'archived_document_immutable', 'The archived document is not editable.');
}

export const duplicateName = () => new ApiError(409, 'dataset_name_duplicate', 'The dataset name already exists. Please modify your dataset name.');

export function summarySetting(s: { enable: boolean; model_name?: string | null; model_provider_name?: string | null; summary_prompt?: string | null }): SummaryIndexSetting {
  return { enable: s.enable, model_name: s.model_name ?? '', model_provider_name: s.model_provider_name ?? '', summary_prompt: s.summary_prompt ?? '' };
}

/** A new upload file, named and sized as `FileService.upload_file` does (`size` in bytes). */
export function uploadFile(name: string, bytes: Uint8Array, createdBy: string, createdAt: number, extension: string, mimeType: string): UploadFileRecord {
  return { id: uuid(), name: storedFileName(name), size: bytes.byteLength, extension, mime_type: mimeType, created_by: createdBy, created_at: createdAt, bytes };
}

/**
 * The text file a document created by text is saved as, as `FileService.upload_text` makes it:
 * its UTF-8 bytes, but its `size` the text's length in characters and its name cut to 200 of them.
 */
export function textFile(name: string, text: string, createdBy: string, createdAt: number): UploadFileRecord {
  const file = uploadFile('', new TextEncoder().encode(text), createdBy, createdAt, 'txt', 'text/plain');
  return { ...file, name: [...name].slice(0, 200).join(''), size: [...text].length };
}

/** A new document record, queued for indexing. */
export function newDocument(
  fields: Pick<DocumentRecord, 'position' | 'name' | 'text' | 'batch' | 'doc_form' | 'doc_language' | 'upload_file' | 'created_by' | 'created_at'> &
    Partial<Pick<DocumentRecord, 'id' | 'enabled' | 'archived'>> & { rule: { id: string; rule: ResolvedProcessRule } },
): DocumentRecord {
  const enabled = fields.enabled ?? true;
  const archived = fields.archived ?? false;
  return {
    id: fields.id ?? uuid(),
    position: fields.position,
    name: fields.name,
    text: fields.text,
    batch: fields.batch,
    doc_form: fields.doc_form,
    doc_language: fields.doc_language,
    process_rule_id: fields.rule.id,
    rule: fields.rule.rule,
    upload_file: fields.upload_file,
    created_by: fields.created_by,
    created_at: fields.created_at,
    updated_at: fields.created_at,
    ...NOT_YET_INDEXED,
    paused_at: null,
    enabled,
    disabled_at: enabled ? null : fields.created_at,
    disabled_by: enabled ? null : fields.created_by,
    archived,
    archived_at: archived ? fields.created_at : null,
    archived_by: archived ? fields.created_by : null,
    metadata: new Map(),
    segments: [],
    pending: null,
    busy: false,
    run: 0,
  };
}
