/**
 * Typed operations of the knowledge side of the API (knowledge bases, documents, chunks, tags,
 * pipeline datasource listing). Server-side only: it takes a knowledge API key, which must never
 * reach a browser; import it from `hitl-elements/client/knowledge`, not from the app-side entry.
 */
import type {
  BuiltInMetadataFields,
  ChildChunkListQuery,
  ChildChunkPage,
  ChildChunkResponse,
  CreateDocumentByFileData,
  CreateSegmentsRequest,
  DatasetTagsResponse,
  DocumentDetail,
  DocumentDetailMetadata,
  DocumentDownloadUrl,
  DocumentUploadFile,
  DocumentMetadataRequest,
  MetadataField,
  MetadataFieldsResponse,
  MetadataFieldType,
  ModelProvider,
  ModelType,
  SegmentResponse,
  SegmentsResponse,
  UpdateDocumentByFileData,
  UpdateDocumentByTextRequest,
  UpdateSegmentRequest,
  CreateDatasetRequest,
  CreateDocumentByTextRequest,
  CreateDocumentResponse,
  Dataset,
  DatasetDocument,
  DatasetListQuery,
  DatasourceNode,
  DatasourcePluginsQuery,
  DocumentIndexingStatus,
  DocumentListQuery,
  DocumentStatusAction,
  IndexingStatusResponse,
  KnowledgePage,
  KnowledgeTag,
  RetrieveRequest,
  RetrieveResponse,
  SegmentListQuery,
  SegmentListResponse,
  SimpleResult,
  UpdateDatasetRequest,
} from '../protocol/index.js';
import { KNOWLEDGE_OPERATIONS } from '../protocol/knowledge-operations.js';
import { requestOf } from '../protocol/operations.js';
import { Transport, type Query, type TransportOptions } from './transport.js';

export type KnowledgeClientOptions = TransportOptions;

/** `updateDataset` answers the detail with `partial_member_list` always present. */
export type UpdatedDataset = Dataset & { partial_member_list: string[] | null };

export interface WaitForIndexingOptions {
  /** Poll interval; default 100 ms. */
  intervalMs?: number;
  /** Give up after this long; default 60 s. */
  timeoutMs?: number;
  signal?: AbortSignal;
}

/** Appends repeated parameters (`tag_ids=a&tag_ids=b`), which `Query` cannot express. */
function withRepeated(path: string, name: string, values: readonly string[] | undefined): string {
  if (!values?.length) return path;
  const params = new URLSearchParams();
  for (const v of values) params.append(name, v);
  return `${path}?${params}`;
}

/** A document upload: the `file` part (when given) and the settings as the JSON `data` part. */
function fileForm(file: Blob | undefined, filename: string | undefined, data: object): FormData {
  const form = new FormData();
  if (file) form.append('file', file, filename);
  form.append('data', JSON.stringify(data));
  return form;
}

const TERMINAL: ReadonlySet<string> = new Set(['completed', 'error', 'paused']);

export class KnowledgeClient {
  readonly transport: Transport;

  constructor(options: KnowledgeClientOptions) {
    this.transport = new Transport(options);
  }

  // Knowledge bases

  /** `GET /datasets`: knowledge bases, newest first. */
  listDatasets(query: DatasetListQuery = {}, signal?: AbortSignal): Promise<KnowledgePage<Dataset>> {
    const { tag_ids, ...rest } = query;
    const [method, path] = requestOf(KNOWLEDGE_OPERATIONS.listDatasets);
    return this.transport.json(method, withRepeated(path, 'tag_ids', tag_ids), { query: rest as Query, signal });
  }

  /** `POST /datasets`: an empty knowledge base. */
  createDataset(body: CreateDatasetRequest, signal?: AbortSignal): Promise<Dataset> {
    return this.transport.json(...requestOf(KNOWLEDGE_OPERATIONS.createDataset), { json: body, signal });
  }

  /** `GET /datasets/{dataset_id}`. */
  getDataset(datasetId: string, signal?: AbortSignal): Promise<Dataset> {
    return this.transport.json(...requestOf(KNOWLEDGE_OPERATIONS.getDataset, datasetId), { signal });
  }

  /** `PATCH /datasets/{dataset_id}`: only the fields present change. */
  updateDataset(datasetId: string, body: UpdateDatasetRequest, signal?: AbortSignal): Promise<UpdatedDataset> {
    return this.transport.json(...requestOf(KNOWLEDGE_OPERATIONS.updateDataset, datasetId), { json: body, signal });
  }

  /** `DELETE /datasets/{dataset_id}`: the knowledge base and everything in it (409 while an app uses it). */
  async deleteDataset(datasetId: string, signal?: AbortSignal): Promise<void> {
    await this.transport.send(...requestOf(KNOWLEDGE_OPERATIONS.deleteDataset, datasetId), { signal });
  }

  // Documents

  /** `POST /datasets/{dataset_id}/document/create-by-text`: indexing continues in the background under `batch`. */
  createDocumentByText(datasetId: string, body: CreateDocumentByTextRequest, signal?: AbortSignal): Promise<CreateDocumentResponse> {
    return this.transport.json(...requestOf(KNOWLEDGE_OPERATIONS.createDocumentByText, datasetId), { json: body, signal });
  }

  /**
   * `POST /datasets/{dataset_id}/document/create-by-file`: a document from a text file (txt, md,
   * markdown, mdx, csv, html, htm, vtt, properties; at most 15 MB), named after the file.
   */
  createDocumentByFile(datasetId: string, file: Blob, filename: string, data: CreateDocumentByFileData = {}, signal?: AbortSignal): Promise<CreateDocumentResponse> {
    return this.transport.json(...requestOf(KNOWLEDGE_OPERATIONS.createDocumentByFile, datasetId), { body: fileForm(file, filename, data), signal });
  }

  /** `POST /datasets/{dataset_id}/documents/{document_id}/update-by-text`: new text (with its name), rules or language; re-indexed under a new batch. */
  updateDocumentByText(datasetId: string, documentId: string, body: UpdateDocumentByTextRequest, signal?: AbortSignal): Promise<CreateDocumentResponse> {
    return this.transport.json(...requestOf(KNOWLEDGE_OPERATIONS.updateDocumentByText, datasetId, documentId), { json: body, signal });
  }

  /** `POST /datasets/{dataset_id}/documents/{document_id}/update-by-file`: a replacement file and/or new settings; re-indexed. */
  updateDocumentByFile(
    datasetId: string,
    documentId: string,
    file: { file: Blob; filename: string } | null,
    data: UpdateDocumentByFileData = {},
    signal?: AbortSignal,
  ): Promise<CreateDocumentResponse> {
    return this.transport.json(...requestOf(KNOWLEDGE_OPERATIONS.updateDocumentByFile, datasetId, documentId), {
      body: fileForm(file?.file, file?.filename, data),
      signal,
    });
  }

  /** `GET /datasets/{dataset_id}/documents/{document_id}`: `metadata` `all` (default), `only` or `without`. */
  getDocument(datasetId: string, documentId: string, metadata: DocumentDetailMetadata = 'all', signal?: AbortSignal): Promise<DocumentDetail> {
    return this.transport.json(...requestOf(KNOWLEDGE_OPERATIONS.getDocument, datasetId, documentId), { query: { metadata }, signal });
  }

  /** `DELETE /datasets/{dataset_id}/documents/{document_id}` (not while it is being indexed, nor archived). */
  async deleteDocument(datasetId: string, documentId: string, signal?: AbortSignal): Promise<void> {
    await this.transport.send(...requestOf(KNOWLEDGE_OPERATIONS.deleteDocument, datasetId, documentId), { signal });
  }

  /** `GET /datasets/{dataset_id}/documents/{document_id}/download`: a signed link (valid minutes) that downloads the document's original file. */
  getDocumentDownloadUrl(datasetId: string, documentId: string, signal?: AbortSignal): Promise<DocumentDownloadUrl> {
    return this.transport.json(...requestOf(KNOWLEDGE_OPERATIONS.getDocumentDownloadUrl, datasetId, documentId), { signal });
  }

  /**
   * `POST /datasets/{dataset_id}/documents/download-zip`: the raw response, a ZIP of the documents'
   * original files (1 to 100 ids; duplicate names get ` (1)`, ` (2)`… before the extension), so it
   * can be streamed to disk; `Content-Disposition` names it. Errors throw like every other call.
   */
  downloadDocumentsZip(datasetId: string, documentIds: string[], signal?: AbortSignal): Promise<Response> {
    return this.transport.send(...requestOf(KNOWLEDGE_OPERATIONS.downloadDocumentsZip, datasetId), { json: { document_ids: documentIds }, signal });
  }

  /** `GET /datasets/{dataset_id}/documents/{document_id}/upload-file` (older builds): the document's file and signed links to it. */
  getDocumentUploadFile(datasetId: string, documentId: string, signal?: AbortSignal): Promise<DocumentUploadFile> {
    return this.transport.json(...requestOf(KNOWLEDGE_OPERATIONS.getDocumentUploadFile, datasetId, documentId), { signal });
  }

  /** `GET /datasets/{dataset_id}/documents`. */
  listDocuments(datasetId: string, query: DocumentListQuery = {}, signal?: AbortSignal): Promise<KnowledgePage<DatasetDocument>> {
    return this.transport.json(...requestOf(KNOWLEDGE_OPERATIONS.listDocuments, datasetId), { query: query as Query, signal });
  }

  /** `GET /datasets/{dataset_id}/documents/{batch}/indexing-status`. */
  getIndexingStatus(datasetId: string, batch: string, signal?: AbortSignal): Promise<IndexingStatusResponse> {
    return this.transport.json(...requestOf(KNOWLEDGE_OPERATIONS.getIndexingStatus, datasetId, batch), { signal });
  }

  /** Polls the indexing status of a batch until every document completed, failed or paused. */
  async waitForIndexing(datasetId: string, batch: string, options: WaitForIndexingOptions = {}): Promise<DocumentIndexingStatus[]> {
    const interval = options.intervalMs ?? 100;
    const deadline = Date.now() + (options.timeoutMs ?? 60_000);
    for (;;) {
      const { data } = await this.getIndexingStatus(datasetId, batch, options.signal);
      if (data.every((d) => TERMINAL.has(d.indexing_status))) return data;
      if (Date.now() > deadline) throw new Error(`Indexing of batch ${batch} did not finish in time.`);
      await new Promise<void>((resolve, reject) => {
        const signal = options.signal;
        const onAbort = () => {
          clearTimeout(timer);
          reject(signal?.reason);
        };
        const timer = setTimeout(() => {
          signal?.removeEventListener('abort', onAbort);
          resolve();
        }, interval);
        signal?.addEventListener('abort', onAbort, { once: true });
      });
    }
  }

  /** `PATCH /datasets/{dataset_id}/documents/status/{action}`. */
  updateDocumentStatus(datasetId: string, action: DocumentStatusAction, documentIds: string[], signal?: AbortSignal): Promise<SimpleResult> {
    return this.transport.json(...requestOf(KNOWLEDGE_OPERATIONS.updateDocumentStatus, datasetId, action), {
      json: { document_ids: documentIds },
      signal,
    });
  }

  // Chunks

  /** `GET /datasets/{dataset_id}/documents/{document_id}/segments`. */
  listSegments(datasetId: string, documentId: string, query: SegmentListQuery = {}, signal?: AbortSignal): Promise<SegmentListResponse> {
    const { status, ...rest } = query;
    const [method, path] = requestOf(KNOWLEDGE_OPERATIONS.listSegments, datasetId, documentId);
    return this.transport.json(method, withRepeated(path, 'status', status), { query: rest as Query, signal });
  }

  /** `POST /datasets/{dataset_id}/documents/{document_id}/segments`: chunks added to a completed, enabled document, indexed at once. */
  createSegments(datasetId: string, documentId: string, body: CreateSegmentsRequest, signal?: AbortSignal): Promise<SegmentsResponse> {
    return this.transport.json(...requestOf(KNOWLEDGE_OPERATIONS.createSegments, datasetId, documentId), { json: body, signal });
  }

  /** `GET …/segments/{segment_id}`. */
  getSegment(datasetId: string, documentId: string, segmentId: string, signal?: AbortSignal): Promise<SegmentResponse> {
    return this.transport.json(...requestOf(KNOWLEDGE_OPERATIONS.getSegment, datasetId, documentId, segmentId), { signal });
  }

  /** `POST …/segments/{segment_id}`: new content, answer or keywords (re-indexed), or `enabled`. */
  updateSegment(datasetId: string, documentId: string, segmentId: string, body: UpdateSegmentRequest, signal?: AbortSignal): Promise<SegmentResponse> {
    return this.transport.json(...requestOf(KNOWLEDGE_OPERATIONS.updateSegment, datasetId, documentId, segmentId), { json: body, signal });
  }

  /** `GET …/segments/{segment_id}/child_chunks`. */
  listChildChunks(datasetId: string, documentId: string, segmentId: string, query: ChildChunkListQuery = {}, signal?: AbortSignal): Promise<ChildChunkPage> {
    return this.transport.json(...requestOf(KNOWLEDGE_OPERATIONS.listChildChunks, datasetId, documentId, segmentId), { query: query as Query, signal });
  }

  /** `POST …/segments/{segment_id}/child_chunks`. */
  createChildChunk(datasetId: string, documentId: string, segmentId: string, content: string, signal?: AbortSignal): Promise<ChildChunkResponse> {
    return this.transport.json(...requestOf(KNOWLEDGE_OPERATIONS.createChildChunk, datasetId, documentId, segmentId), { json: { content }, signal });
  }

  /** `PATCH …/child_chunks/{child_chunk_id}`. */
  updateChildChunk(datasetId: string, documentId: string, segmentId: string, childChunkId: string, content: string, signal?: AbortSignal): Promise<ChildChunkResponse> {
    return this.transport.json(...requestOf(KNOWLEDGE_OPERATIONS.updateChildChunk, datasetId, documentId, segmentId, childChunkId), { json: { content }, signal });
  }

  /** `DELETE …/child_chunks/{child_chunk_id}`. */
  async deleteChildChunk(datasetId: string, documentId: string, segmentId: string, childChunkId: string, signal?: AbortSignal): Promise<void> {
    await this.transport.send(...requestOf(KNOWLEDGE_OPERATIONS.deleteChildChunk, datasetId, documentId, segmentId, childChunkId), { signal });
  }

  /** `DELETE /datasets/{dataset_id}/documents/{document_id}/segments/{segment_id}` (200 per the seed; a real deployment answers 204). */
  async deleteSegment(datasetId: string, documentId: string, segmentId: string, signal?: AbortSignal): Promise<void> {
    await this.transport.send(...requestOf(KNOWLEDGE_OPERATIONS.deleteSegment, datasetId, documentId, segmentId), { signal });
  }

  // Retrieval

  /**
   * `POST /datasets/{dataset_id}/retrieve`: the chunks that best answer `query` (at most 250
   * characters), best first. Without `retrieval_model` the knowledge base's own settings apply.
   */
  retrieve(datasetId: string, body: RetrieveRequest, signal?: AbortSignal): Promise<RetrieveResponse> {
    return this.transport.json(...requestOf(KNOWLEDGE_OPERATIONS.retrieve, datasetId), { json: body, signal });
  }

  // Tags and pipelines

  /** `GET /datasets/tags`: the workspace's knowledge tags. */
  listTags(signal?: AbortSignal): Promise<KnowledgeTag[]> {
    return this.transport.json(...requestOf(KNOWLEDGE_OPERATIONS.listTags), { signal });
  }

  /** `POST /datasets/tags`: a new knowledge tag (name 1–50 characters, unique). */
  createTag(name: string, signal?: AbortSignal): Promise<KnowledgeTag> {
    return this.transport.json(...requestOf(KNOWLEDGE_OPERATIONS.createTag), { json: { name }, signal });
  }

  /** `PATCH /datasets/tags`: renames a tag. */
  renameTag(tagId: string, name: string, signal?: AbortSignal): Promise<KnowledgeTag> {
    return this.transport.json(...requestOf(KNOWLEDGE_OPERATIONS.renameTag), { json: { tag_id: tagId, name }, signal });
  }

  /** `DELETE /datasets/tags`: the tag and its bindings. */
  async deleteTag(tagId: string, signal?: AbortSignal): Promise<void> {
    await this.transport.send(...requestOf(KNOWLEDGE_OPERATIONS.deleteTag), { json: { tag_id: tagId }, signal });
  }

  /** `POST /datasets/tags/binding`: tags a knowledge base (unknown tag ids are ignored). */
  async bindTags(datasetId: string, tagIds: string[], signal?: AbortSignal): Promise<void> {
    await this.transport.send(...requestOf(KNOWLEDGE_OPERATIONS.bindTags), { json: { tag_ids: tagIds, target_id: datasetId }, signal });
  }

  /** `POST /datasets/tags/unbinding`. */
  async unbindTags(datasetId: string, tagIds: string[], signal?: AbortSignal): Promise<void> {
    await this.transport.send(...requestOf(KNOWLEDGE_OPERATIONS.unbindTags), { json: { tag_ids: tagIds, target_id: datasetId }, signal });
  }

  /** `GET /datasets/{dataset_id}/tags`: the knowledge base's tags. */
  getDatasetTags(datasetId: string, signal?: AbortSignal): Promise<DatasetTagsResponse> {
    return this.transport.json(...requestOf(KNOWLEDGE_OPERATIONS.getDatasetTags, datasetId), { signal });
  }

  // Metadata

  /** `POST /datasets/{dataset_id}/metadata`: a metadata field. */
  createMetadataField(datasetId: string, field: { type: MetadataFieldType; name: string }, signal?: AbortSignal): Promise<MetadataField> {
    return this.transport.json(...requestOf(KNOWLEDGE_OPERATIONS.createMetadataField, datasetId), { json: field, signal });
  }

  /** `GET /datasets/{dataset_id}/metadata`: the fields, each with how many documents hold a value. */
  listMetadataFields(datasetId: string, signal?: AbortSignal): Promise<MetadataFieldsResponse> {
    return this.transport.json(...requestOf(KNOWLEDGE_OPERATIONS.listMetadataFields, datasetId), { signal });
  }

  /** `PATCH /datasets/{dataset_id}/metadata/{metadata_id}`: renames a field (documents keep their values). */
  renameMetadataField(datasetId: string, metadataId: string, name: string, signal?: AbortSignal): Promise<MetadataField> {
    return this.transport.json(...requestOf(KNOWLEDGE_OPERATIONS.renameMetadataField, datasetId, metadataId), { json: { name }, signal });
  }

  /** `DELETE /datasets/{dataset_id}/metadata/{metadata_id}`: the field and every document's value for it. */
  async deleteMetadataField(datasetId: string, metadataId: string, signal?: AbortSignal): Promise<void> {
    await this.transport.send(...requestOf(KNOWLEDGE_OPERATIONS.deleteMetadataField, datasetId, metadataId), { signal });
  }

  /** `GET /datasets/{dataset_id}/metadata/built-in`. */
  listBuiltInMetadataFields(datasetId: string, signal?: AbortSignal): Promise<BuiltInMetadataFields> {
    return this.transport.json(...requestOf(KNOWLEDGE_OPERATIONS.listBuiltInMetadataFields, datasetId), { signal });
  }

  /** `POST /datasets/{dataset_id}/metadata/built-in/{enable|disable}`. */
  setBuiltInMetadata(datasetId: string, enabled: boolean, signal?: AbortSignal): Promise<SimpleResult> {
    return this.transport.json(...requestOf(KNOWLEDGE_OPERATIONS.setBuiltInMetadata, datasetId, enabled ? 'enable' : 'disable'), { signal });
  }

  /** `POST /datasets/{dataset_id}/documents/metadata`: documents' metadata values. */
  updateDocumentMetadata(datasetId: string, body: DocumentMetadataRequest, signal?: AbortSignal): Promise<SimpleResult> {
    return this.transport.json(...requestOf(KNOWLEDGE_OPERATIONS.updateDocumentMetadata, datasetId), { json: body, signal });
  }

  // Models

  /** `GET /workspaces/current/models/model-types/{model_type}`: providers and their models of that type. */
  listModels(modelType: ModelType, signal?: AbortSignal): Promise<{ data: ModelProvider[] }> {
    return this.transport.json(...requestOf(KNOWLEDGE_OPERATIONS.listModels, modelType), { signal });
  }

  /** `GET /datasets/{dataset_id}/pipeline/datasource-plugins`: published version by default. */
  listDatasourcePlugins(datasetId: string, query: DatasourcePluginsQuery = {}, signal?: AbortSignal): Promise<DatasourceNode[]> {
    return this.transport.json(...requestOf(KNOWLEDGE_OPERATIONS.listDatasourcePlugins, datasetId), {
      query: { is_published: query.is_published },
      signal,
    });
  }
}
