/**
 * The knowledge routes (service-api.md endpoints 1–7, dify-wire.md §7), all under `/datasets`
 * and all taking a knowledge key.
 *
 * Order of checks, like the real service: route (knowledge ids are UUIDs, else 404), key (401),
 * key scope (403), knowledge base (404 / 403), the subscription's rate limit on writes (403), then
 * the body and the operation itself.
 */
import type { DocumentDisplayStatus, DocumentStatusAction } from '../../protocol/index.js';
import { ApiError, NOT_FOUND_TEXT } from '../errors.js';
import { json, readJsonObject } from '../http.js';
import type { Params, Router } from '../router.js';
import { requireAllAccess, requireDatasetAccess, type KeyRing, type SlidingWindowLimit } from './access.js';
import { UUID_PATTERN } from './fixture-schema.js';
import { NO_EMBEDDING_MODEL } from './models.js';
import { checkDatasetModel, createDataset, listDatasets, metadataFields, updateDataset } from './datasets.js';
import { deleteSegment, indexingStatus, listDocuments, listSegments, requireDocument, saveDocument, updateDocumentStatus } from './documents.js';
import type { DatasetRecord } from './records.js';
import { retrieve } from './retrieval.js';
import { datasetJSON, tagJSON } from './serialise.js';
import type { KnowledgeStore } from './store.js';
import {
  boolParam,
  checkRetrievalModel,
  createByTextSchema,
  createDatasetSchema,
  documentStatusSchema,
  intParam,
  MAX_QUERY_CHARS,
  parseOrThrow,
  retrieveSchema,
  updateDatasetSchema,
  validationMessage,
  type RetrievalModelInput,
} from './validation.js';
import { badParam } from '../errors.js';

export interface KnowledgeRouteDeps {
  store: KnowledgeStore;
  keys: KeyRing;
  /** Null when the subscription has no knowledge rate limit. */
  limit: SlidingWindowLimit | null;
}

interface Call {
  request: Request;
  params: Params;
  url: URL;
  /** Set on routes with a knowledge base id. */
  dataset: DatasetRecord;
}

const STATUS_ACTIONS: readonly string[] = ['enable', 'disable', 'archive', 'un_archive'];
const DISPLAY_STATUSES: readonly string[] = ['queuing', 'indexing', 'paused', 'error', 'available', 'disabled', 'archived'];
const MAX_LIMIT = 100;

export function registerKnowledgeRoutes<C>(router: Router<C>, { store, keys, limit }: KnowledgeRouteDeps): void {
  /**
   * Wraps a handler with the checks every knowledge route makes. The subscription's rate limit
   * counts the writes the real service counts (creating and changing knowledge bases, documents
   * and chunks); document status actions and reads are free.
   */
  const route = (method: string, path: string, handler: (call: Call) => Promise<Response> | Response, { rateLimited = method !== 'GET' } = {}) => {
    router.on(method, path, async (request, params, url) => {
      for (const name of ['dataset_id', 'document_id', 'segment_id']) {
        const value = params[name];
        if (value !== undefined && !UUID_PATTERN.test(value)) throw new ApiError(404, 'not_found', NOT_FOUND_TEXT);
      }
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
    });
  };

  // Registered before `/datasets/:dataset_id`, which would otherwise see `tags` as an id.
  route('GET', '/datasets/tags', () => json(store.tags.map((t) => tagJSON(t, store.datasets))));

  route('GET', '/datasets', ({ url }) => {
    const query = {
      page: intParam(url, 'page', 1, 1),
      limit: Math.min(intParam(url, 'limit', 20, 1), MAX_LIMIT),
      keyword: url.searchParams.get('keyword') || undefined,
      include_all: boolParam(url, 'include_all', false),
      tag_ids: url.searchParams.getAll('tag_ids').flatMap((v) => v.split(',')).filter(Boolean),
    };
    return json(listDatasets(store, query));
  });

  route('POST', '/datasets', async ({ request }) => {
    const body = parseOrThrow(createDatasetSchema, await readJsonObject(request), 'DatasetCreatePayload');
    if (body.retrieval_model) checkRetrieval(store, body.retrieval_model, null);
    if (body.embedding_model && body.embedding_model_provider) {
      store.registry.require('text-embedding', body.embedding_model_provider, body.embedding_model);
    }
    return json(createDataset(store, body));
  });

  route('GET', '/datasets/:dataset_id', ({ dataset }) => json(datasetJSON(dataset, 'detail', store)));

  route('PATCH', '/datasets/:dataset_id', async ({ request, dataset }) => {
    const body = parseOrThrow(updateDatasetSchema, await readJsonObject(request), 'DatasetUpdatePayload');
    if (body.retrieval_model) checkRetrieval(store, body.retrieval_model, dataset);
    // A model named in the request must exist even where the technique leaves it unused.
    if (body.embedding_model && body.embedding_model_provider) {
      store.registry.require('text-embedding', body.embedding_model_provider, body.embedding_model);
    }
    return json(updateDataset(store, dataset, body));
  });

  const createByText = async ({ request, dataset }: Call) => {
    const body = parseOrThrow(createByTextSchema, await readJsonObject(request), 'DocumentTextCreatePayload');
    if (body.retrieval_model) checkRetrieval(store, body.retrieval_model, dataset);
    requireEmbeddingProvider(store, dataset);
    return json(saveDocument(store, dataset, body));
  };
  route('POST', '/datasets/:dataset_id/document/create-by-text', createByText);
  route('POST', '/datasets/:dataset_id/document/create_by_text', createByText);

  route('GET', '/datasets/:dataset_id/documents', ({ url, dataset }) => {
    const status = url.searchParams.get('status') || undefined;
    if (status && !DISPLAY_STATUSES.includes(status)) {
      throw badParam(validationMessage('DocumentListQuery', [{ path: ['status'], message: `Input should be ${DISPLAY_STATUSES.map((s) => `'${s}'`).join(', ')}` }]));
    }
    return json(
      listDocuments(dataset, {
        page: intParam(url, 'page', 1, 1),
        limit: Math.min(intParam(url, 'limit', 20, 1), MAX_LIMIT),
        keyword: url.searchParams.get('keyword') || undefined,
        status: status as DocumentDisplayStatus | undefined,
      }),
    );
  });

  route('PATCH', '/datasets/:dataset_id/documents/status/:action', async ({ request, params, dataset }) => {
    checkDatasetModel(store, dataset);
    const body = parseOrThrow(documentStatusSchema, await readJsonObject(request), 'DocumentStatusPayload');
    const action = params.action ?? '';
    if (!STATUS_ACTIONS.includes(action)) throw new ApiError(400, 'invalid_action', 'Invalid action.');
    updateDocumentStatus(store, dataset, action as DocumentStatusAction, body.document_ids);
    return json({ result: 'success' });
  }, { rateLimited: false });

  route('GET', '/datasets/:dataset_id/documents/:batch/indexing-status', ({ params, dataset }) =>
    json({ data: indexingStatus(dataset, params.batch ?? '') }),
  );

  route('GET', '/datasets/:dataset_id/documents/:document_id/segments', ({ url, params, dataset }) => {
    const document = requireDocument(dataset, params.document_id!.toLowerCase());
    requireEmbeddingProvider(store, dataset);
    return json(
      listSegments(document, {
        page: intParam(url, 'page', 1, 1),
        limit: Math.min(intParam(url, 'limit', 20, 1), MAX_LIMIT),
        keyword: url.searchParams.get('keyword') || undefined,
        status: url.searchParams.getAll('status').flatMap((v) => v.split(',')).filter(Boolean),
      }),
    );
  });

  route('DELETE', '/datasets/:dataset_id/documents/:document_id/segments/:segment_id', ({ params, dataset }) => {
    checkDatasetModel(store, dataset);
    const document = requireDocument(dataset, params.document_id!.toLowerCase());
    deleteSegment(document, params.segment_id!.toLowerCase());
    // The seed says 200 (it wins over the real service's 204); the body is Dify's usual success one.
    return json({ result: 'success' });
  });

  const retrieveRoute = async ({ request, dataset }: Call) => {
    const body = parseOrThrow(retrieveSchema, await readJsonObject(request), 'HitTestingPayload');
    // `hit_testing_args_check`, after the payload's own validation.
    if (!body.query && !body.attachment_ids?.length) throw badParam('Query or attachment_ids is required');
    if ([...body.query].length > MAX_QUERY_CHARS) throw badParam(`Query cannot exceed ${MAX_QUERY_CHARS} characters`);
    if (body.retrieval_model) {
      const issues = checkRetrievalModel(body.retrieval_model, metadataFields(dataset), ['retrieval_model']);
      if (issues.length) throw badParam(validationMessage('HitTestingPayload', issues));
    }
    return json(await retrieve(store, dataset, body));
  };
  route('POST', '/datasets/:dataset_id/retrieve', retrieveRoute);
  route('POST', '/datasets/:dataset_id/hit-testing', retrieveRoute);

  route('GET', '/datasets/:dataset_id/pipeline/datasource-plugins', ({ url, dataset }) =>
    json(store.datasourcePlugins(dataset, boolParam(url, 'is_published', true))),
  );
}

/** Indexing and chunk listing need the knowledge base's embedding model: 400 `provider_not_initialize` without it. */
function requireEmbeddingProvider(store: KnowledgeStore, dataset: DatasetRecord): void {
  try {
    checkDatasetModel(store, dataset);
  } catch {
    throw new ApiError(400, 'provider_not_initialize', NO_EMBEDDING_MODEL);
  }
}

/** The seed's retrieval-model rules, then the availability of the models it names. */
function checkRetrieval(store: KnowledgeStore, model: RetrievalModelInput, dataset: DatasetRecord | null): void {
  const issues = checkRetrievalModel(model, metadataFields(dataset), ['retrieval_model']);
  if (issues.length) throw badParam(validationMessage('RetrievalModel', issues));
  const rm = model.reranking_model;
  if (rm?.reranking_provider_name && rm.reranking_model_name) {
    store.registry.require('rerank', rm.reranking_provider_name, rm.reranking_model_name);
  }
  const vector = model.reranking_mode === 'weighted_score' ? model.weights?.vector_setting : null;
  if (vector?.embedding_provider_name && vector.embedding_model_name) {
    store.registry.require('text-embedding', vector.embedding_provider_name, vector.embedding_model_name);
  }
}
