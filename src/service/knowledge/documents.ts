/** Documents and their chunks: creation (and re-indexing), listing, status actions, chunk changes. */
import type {
  DatasetDocument,
  DocForm,
  DocumentDisplayStatus,
  DocumentIndexingStatus,
  DocumentStatusAction,
  IndexingTechnique,
  KnowledgePage,
  SegmentListResponse,
} from '../../protocol/index.js';
import { ApiError, badParam, notFound } from '../errors.js';
import { nowSeconds, uuid } from '../ids.js';
import { embeddingOrDefault } from './datasets.js';
import { pageOf, type Paging } from './paging.js';
import { checkProcessRule, resolveRule, type ProcessRuleInput } from './process-rules.js';
import {
  archivedImmutable,
  batchId,
  displayStatus,
  DOC_FORMS,
  newDocument,
  textFile,
  uploadFile,
  type DatasetRecord,
  type DocumentRecord,
  type UploadFileRecord,
} from './records.js';
import { documentJSON, indexingStatusJSON, segmentJSON } from './serialise.js';
import type { KnowledgeState } from './state.js';
import type { RetrievalModelInput } from './validation.js';

export interface SaveDocumentInput {
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
  /** The uploaded file a document by file comes from; by text, a text file of the text. */
  file?: { extension: string; mime_type: string; bytes: Uint8Array };
}

export function requireDocument(ds: DatasetRecord, documentId: string): DocumentRecord {
  const doc = ds.documents.find((d) => d.id === documentId);
  if (!doc) throw notFound('Document not found.');
  return doc;
}

/** Creates a document, or re-indexes `original_document_id` with new text; indexing runs in the background. */
export function saveDocument(state: KnowledgeState, ds: DatasetRecord, input: SaveDocumentInput): { document: DatasetDocument; batch: string } {
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
    embedding = { model: input.embedding_model, provider: state.registry.require('text-embedding', input.embedding_model_provider, input.embedding_model) };
  }
  const technique = ds.indexing_technique ?? input.indexing_technique!;
  if (!ds.indexing_technique && technique === 'high_quality' && !embedding && !(ds.embedding_model && ds.embedding_model_provider)) {
    embedding = embeddingOrDefault(state);
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
  const file: UploadFileRecord = input.file
    ? uploadFile(input.name, input.file.bytes, state.owner.id, now, input.file.extension, input.file.mime_type)
    : textFile(input.name, input.text, state.owner.id, now);
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
    doc.upload_file = file;
    for (const s of doc.segments) s.status = 're_segment';
  } else {
    doc = newDocument({
      position: ds.documents.reduce((max, d) => Math.max(max, d.position), 0) + 1,
      name: input.name,
      text: input.text,
      batch,
      doc_form: docForm,
      doc_language: input.doc_language,
      rule: ruleRecord,
      upload_file: file,
      created_by: state.owner.id,
      created_at: now,
    });
    ds.documents.push(doc);
  }
  state.indexer.start(ds, doc);
  ds.updated_at = now;
  return { document: documentJSON(doc, ds.doc_metadata), batch };
}

export function listDocuments(ds: DatasetRecord, query: { paging: Paging; keyword?: string; status?: DocumentDisplayStatus }): KnowledgePage<DatasetDocument> {
  let list = [...ds.documents].sort((a, b) => b.created_at - a.created_at || b.position - a.position);
  if (query.keyword) list = list.filter((d) => d.name.includes(query.keyword!));
  if (query.status) list = list.filter((d) => displayStatus(d) === query.status);
  // Dify's `len(documents) == query_params.limit`: a full page says there is more, even the last.
  const { items, ...page } = pageOf(list, query.paging);
  return { data: items.map((d) => documentJSON(d, ds.doc_metadata)), ...page };
}

export function indexingStatus(ds: DatasetRecord, batch: string): DocumentIndexingStatus[] {
  const docs = ds.documents.filter((d) => d.batch === batch);
  if (!docs.length) throw notFound('Documents not found.');
  return docs.map(indexingStatusJSON);
}

export function updateDocumentStatus(state: KnowledgeState, ds: DatasetRecord, action: DocumentStatusAction, ids: string[]): void {
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
      doc.disabled_by = state.owner.id;
      changed = true;
    } else if (action === 'archive' && !doc.archived) {
      doc.archived = true;
      doc.archived_at = now;
      doc.archived_by = state.owner.id;
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
    // Set to take no time, it is done at once: a zero-delay timer could still be pending when the
    // next request arrives, and refuse it as busy.
    const ms = state.indexer.options.statusReindexMs;
    if (ms <= 0) continue;
    doc.busy = true;
    state.indexer.after(ms, () => {
      doc.busy = false;
    });
  }
}

export function listSegments(doc: DocumentRecord, query: { page: number; limit: number; keyword?: string; status: string[] }): SegmentListResponse {
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
    // Dify's `len(segments) == limit`: a full page says there is more, even the last.
    has_more: items.length === query.limit,
    limit: query.limit,
    page: query.page,
  };
}

export function deleteSegment(doc: DocumentRecord, segmentId: string): void {
  const index = doc.segments.findIndex((s) => s.id === segmentId);
  if (index < 0) throw notFound('Segment not found.');
  if (doc.archived) throw archivedImmutable();
  doc.segments.splice(index, 1);
  doc.updated_at = nowSeconds();
}

/** States during which a document cannot be deleted. */
const INDEXING_STATES: ReadonlySet<string> = new Set(['parsing', 'cleaning', 'splitting', 'indexing']);

export function deleteDocument(ds: DatasetRecord, documentId: string): void {
  const doc = ds.documents.find((d) => d.id === documentId);
  if (!doc) throw notFound('Document Not Exists.');
  if (doc.archived) throw archivedImmutable();
  if (INDEXING_STATES.has(doc.indexing_status)) throw new ApiError(400, 'document_indexing', 'Cannot delete document during indexing.');
  ds.documents.splice(ds.documents.indexOf(doc), 1);
  doc.run++; // a pending indexing run of it stops
  ds.updated_at = nowSeconds();
}

/**
 * Re-indexes a document with what the request changes (`update-by-text`, `update-by-file`):
 * its name, text (or file), rules or language; the rest is kept. Only an available document can
 * be updated.
 */
export function updateDocument(
  state: KnowledgeState,
  ds: DatasetRecord,
  doc: DocumentRecord,
  input: Partial<Pick<SaveDocumentInput, 'name' | 'text' | 'file' | 'process_rule' | 'retrieval_model'>> & { doc_form?: string | null; doc_language?: string | null },
): { document: DatasetDocument; batch: string } {
  return saveDocument(state, ds, {
    name: input.name ?? doc.name,
    text: input.text ?? doc.text,
    file: input.file ?? (input.text === undefined ? { extension: doc.upload_file.extension, mime_type: doc.upload_file.mime_type, bytes: doc.upload_file.bytes } : undefined),
    process_rule: input.process_rule,
    original_document_id: doc.id,
    doc_form: input.doc_form ?? doc.doc_form,
    doc_language: input.doc_language ?? doc.doc_language,
    retrieval_model: input.retrieval_model,
  });
}
