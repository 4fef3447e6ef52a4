/**
 * The checks every knowledge route makes, in the real service's order: route (knowledge ids are
 * UUIDs, else 404), key (401), key scope (403), knowledge base (404 / 403), the subscription's
 * rate limit on writes (403); then the handler checks the body and does the operation.
 */
import { UUID_PATTERN, type Operation } from '../../protocol/index.js';
import { ApiError } from '../errors.js';
import type { UploadStore } from '../files/uploads.js';
import type { Params, Router } from '../router.js';
import { requireAllAccess, requireDatasetAccess, type KeyRing, type SlidingWindowLimit } from './access.js';
import { checkDatasetModel } from './datasets.js';
import { NO_EMBEDDING_MODEL } from './models.js';
import type { DatasetRecord } from './records.js';
import type { KnowledgeStore } from './store.js';

export interface KnowledgeRouteDeps {
  store: KnowledgeStore;
  keys: KeyRing;
  /** Null when the subscription has no knowledge rate limit. */
  limit: SlidingWindowLimit | null;
  tenantId: string;
  /** Signs the links to documents' files (the app side's signed preview links). */
  uploads: UploadStore;
}

export interface Call {
  request: Request;
  params: Params;
  url: URL;
  /** Set on routes with a knowledge base id. */
  dataset: DatasetRecord;
}

export type Route = (
  operation: Operation,
  handler: (call: Call) => Promise<Response> | Response,
  options?: { rateLimited?: boolean },
) => void;

/**
 * Path parameters the real service routes as `<uuid:…>`: a segment that is not a UUID matches no
 * such route (so `GET …/documents/download-zip` is the ZIP route's 405, not a document's 404).
 */
export const UUID_SEGMENT = UUID_PATTERN.source.slice(1, -1).replaceAll('a-f', 'a-fA-F');
const UUID_PARAMS = Object.fromEntries(['dataset_id', 'document_id', 'segment_id', 'child_chunk_id', 'metadata_id'].map((name) => [name, UUID_SEGMENT]));

export { MAX_LIMIT } from './paging.js';

/**
 * Wraps handlers with the checks every knowledge route makes. The subscription's rate limit counts
 * the writes the real service counts (by default every method but GET).
 */
export function knowledgeRoute<C>(router: Router<C>, { store, keys, limit }: KnowledgeRouteDeps): Route {
  return (operation, handler, { rateLimited = operation.method !== 'GET' } = {}) => {
    router.on(operation, async (request, params, url) => {
      const key = keys.authenticate(request);
      const datasetId = params.dataset_id;
      let dataset: DatasetRecord | undefined;
      if (datasetId === undefined) {
        requireAllAccess(key);
      } else {
        requireDatasetAccess(key, datasetId.toLowerCase());
        dataset = store.requireDataset(datasetId.toLowerCase());
      }
      if (rateLimited) limit?.hit();
      return handler({ request, params, url, dataset: dataset! });
    }, UUID_PARAMS);
  };
}

/** Indexing and chunk listing need the knowledge base's embedding model: 400 `provider_not_initialize` without it. */
export function requireEmbeddingProvider(store: KnowledgeStore, dataset: DatasetRecord): void {
  try {
    checkDatasetModel(store, dataset);
  } catch {
    throw new ApiError(400, 'provider_not_initialize', NO_EMBEDDING_MODEL);
  }
}

/** A lower-cased id path parameter (ids are UUIDs, matched case-insensitively). */
export const idParam = (params: Params, name: string): string => params[name]!.toLowerCase();

/** The answer of deletions: 204, no body. */
export const noContent = () => new Response(null, { status: 204 });
