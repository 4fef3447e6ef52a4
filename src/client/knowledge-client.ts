/**
 * Typed operations of the knowledge side of the API (knowledge bases, documents, chunks, tags,
 * pipeline datasource listing). Server-side only: it takes a knowledge API key, which must never
 * reach a browser; import it from `hitl-elements/client/knowledge`, not from the app-side entry.
 */
import type {
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

const seg = encodeURIComponent;

/** Appends repeated parameters (`tag_ids=a&tag_ids=b`), which `Query` cannot express. */
function withRepeated(path: string, name: string, values: readonly string[] | undefined): string {
  if (!values?.length) return path;
  const params = new URLSearchParams();
  for (const v of values) params.append(name, v);
  return `${path}?${params}`;
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
    return this.transport.json('GET', withRepeated('/datasets', 'tag_ids', tag_ids), { query: rest as Query, signal });
  }

  /** `POST /datasets`: an empty knowledge base. */
  createDataset(body: CreateDatasetRequest, signal?: AbortSignal): Promise<Dataset> {
    return this.transport.json('POST', '/datasets', { json: body, signal });
  }

  /** `GET /datasets/{dataset_id}`. */
  getDataset(datasetId: string, signal?: AbortSignal): Promise<Dataset> {
    return this.transport.json('GET', `/datasets/${seg(datasetId)}`, { signal });
  }

  /** `PATCH /datasets/{dataset_id}`: only the fields present change. */
  updateDataset(datasetId: string, body: UpdateDatasetRequest, signal?: AbortSignal): Promise<UpdatedDataset> {
    return this.transport.json('PATCH', `/datasets/${seg(datasetId)}`, { json: body, signal });
  }

  // Documents

  /** `POST /datasets/{dataset_id}/document/create-by-text`: indexing continues in the background under `batch`. */
  createDocumentByText(datasetId: string, body: CreateDocumentByTextRequest, signal?: AbortSignal): Promise<CreateDocumentResponse> {
    return this.transport.json('POST', `/datasets/${seg(datasetId)}/document/create-by-text`, { json: body, signal });
  }

  /** `GET /datasets/{dataset_id}/documents`. */
  listDocuments(datasetId: string, query: DocumentListQuery = {}, signal?: AbortSignal): Promise<KnowledgePage<DatasetDocument>> {
    return this.transport.json('GET', `/datasets/${seg(datasetId)}/documents`, { query: query as Query, signal });
  }

  /** `GET /datasets/{dataset_id}/documents/{batch}/indexing-status`. */
  getIndexingStatus(datasetId: string, batch: string, signal?: AbortSignal): Promise<IndexingStatusResponse> {
    return this.transport.json('GET', `/datasets/${seg(datasetId)}/documents/${seg(batch)}/indexing-status`, { signal });
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
    return this.transport.json('PATCH', `/datasets/${seg(datasetId)}/documents/status/${seg(action)}`, {
      json: { document_ids: documentIds },
      signal,
    });
  }

  // Chunks

  /** `GET /datasets/{dataset_id}/documents/{document_id}/segments`. */
  listSegments(datasetId: string, documentId: string, query: SegmentListQuery = {}, signal?: AbortSignal): Promise<SegmentListResponse> {
    const { status, ...rest } = query;
    const path = withRepeated(`/datasets/${seg(datasetId)}/documents/${seg(documentId)}/segments`, 'status', status);
    return this.transport.json('GET', path, { query: rest as Query, signal });
  }

  /** `DELETE /datasets/{dataset_id}/documents/{document_id}/segments/{segment_id}` (200 per the seed; a real deployment answers 204). */
  async deleteSegment(datasetId: string, documentId: string, segmentId: string, signal?: AbortSignal): Promise<void> {
    await this.transport.send('DELETE', `/datasets/${seg(datasetId)}/documents/${seg(documentId)}/segments/${seg(segmentId)}`, { signal });
  }

  // Retrieval

  /**
   * `POST /datasets/{dataset_id}/retrieve`: the chunks that best answer `query` (at most 250
   * characters), best first. Without `retrieval_model` the knowledge base's own settings apply.
   */
  retrieve(datasetId: string, body: RetrieveRequest, signal?: AbortSignal): Promise<RetrieveResponse> {
    return this.transport.json('POST', `/datasets/${seg(datasetId)}/retrieve`, { json: body, signal });
  }

  // Tags and pipelines

  /** `GET /datasets/tags`: the workspace's knowledge tags. */
  listTags(signal?: AbortSignal): Promise<KnowledgeTag[]> {
    return this.transport.json('GET', '/datasets/tags', { signal });
  }

  /** `GET /datasets/{dataset_id}/pipeline/datasource-plugins`: published version by default. */
  listDatasourcePlugins(datasetId: string, query: DatasourcePluginsQuery = {}, signal?: AbortSignal): Promise<DatasourceNode[]> {
    return this.transport.json('GET', `/datasets/${seg(datasetId)}/pipeline/datasource-plugins`, {
      query: { is_published: query.is_published },
      signal,
    });
  }
}
