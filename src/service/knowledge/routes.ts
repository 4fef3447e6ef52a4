/**
 * The knowledge routes (service-api.md endpoints 1–7, dify-wire.md §7, dify-wire-knowledge.md):
 * knowledge bases, documents and retrieval here; chunks in `routes-chunks.ts`; tags, metadata and
 * the models listing in `routes-workspace.ts`. Every route takes a knowledge key and makes the
 * checks of `route-kit.ts` first.
 */
import type { DocumentDisplayStatus, DocumentStatusAction } from '../../protocol/index.js';
import { KNOWLEDGE_OPERATIONS } from '../../protocol/knowledge-operations.js';
import { ApiError, badParam } from '../errors.js';
import { json, readJsonObject } from '../http.js';
import type { Router } from '../router.js';
import { createDataset, deleteDataset, listDatasets, metadataFields, updateDataset, checkDatasetModel } from './datasets.js';
import { documentFile, readDocumentUpload } from './document-files.js';
import {
  deleteDocument,
  indexingStatus,
  listDocuments,
  requireDocument,
  saveDocument,
  updateDocument,
  updateDocumentStatus,
} from './documents.js';
import type { DatasetRecord } from './records.js';
import { retrieve } from './retrieval.js';
import { listPaging } from './paging.js';
import { idParam, knowledgeRoute, noContent, requireEmbeddingProvider, type Call, type KnowledgeRouteDeps } from './route-kit.js';
import { registerChunkRoutes } from './routes-chunks.js';
import { registerDownloadRoutes } from './routes-downloads.js';
import { registerWorkspaceRoutes } from './routes-workspace.js';
import { datasetJSON, documentDetailJSON, type DocumentDetailView } from './serialise.js';
import type { KnowledgeStore } from './store.js';
import {
  boolParam,
  checkRetrievalModel,
  createByFileDataSchema,
  createByTextSchema,
  createDatasetSchema,
  documentStatusSchema,
  MAX_QUERY_CHARS,
  parseOrThrow,
  retrieveSchema,
  updateByFileDataSchema,
  updateByTextSchema,
  updateDatasetSchema,
  validationMessage,
  type RetrievalModelInput,
} from './validation.js';

export type { KnowledgeRouteDeps } from './route-kit.js';

const STATUS_ACTIONS: readonly string[] = ['enable', 'disable', 'archive', 'un_archive'];
const DISPLAY_STATUSES: readonly string[] = ['queuing', 'indexing', 'paused', 'error', 'available', 'disabled', 'archived'];
const DISPLAY_STATUS_ALIASES: Readonly<Record<string, string>> = { active: 'available', enabled: 'available' };
const DETAIL_VIEWS: readonly string[] = ['all', 'only', 'without'];

export function registerKnowledgeRoutes<C>(router: Router<C>, deps: KnowledgeRouteDeps): void {
  const { store } = deps;
  const route = knowledgeRoute(router, deps);
  // Registered before `/datasets/:dataset_id`, which would otherwise see `tags` as an id.
  registerWorkspaceRoutes(route, store, deps.tenantId);

  route(KNOWLEDGE_OPERATIONS.listDatasets, ({ url }) => {
    const query = {
      paging: listPaging(url),
      keyword: url.searchParams.get('keyword') || undefined,
      include_all: boolParam(url, 'include_all', false),
      tag_ids: url.searchParams.getAll('tag_ids').flatMap((v) => v.split(',')).filter(Boolean),
    };
    return json(listDatasets(store, query));
  });

  route(KNOWLEDGE_OPERATIONS.createDataset, async ({ request }) => {
    const body = parseOrThrow(createDatasetSchema, await readJsonObject(request), 'DatasetCreatePayload');
    if (body.retrieval_model) checkRetrieval(store, body.retrieval_model, null);
    if (body.embedding_model && body.embedding_model_provider) {
      store.registry.require('text-embedding', body.embedding_model_provider, body.embedding_model);
    }
    return json(createDataset(store, body));
  });

  route(KNOWLEDGE_OPERATIONS.getDataset, ({ dataset }) => json(datasetJSON(dataset, 'detail', store)));

  route(KNOWLEDGE_OPERATIONS.updateDataset, async ({ request, dataset }) => {
    const body = parseOrThrow(updateDatasetSchema, await readJsonObject(request), 'DatasetUpdatePayload');
    if (body.retrieval_model) checkRetrieval(store, body.retrieval_model, dataset);
    // A model named in the request must exist even where the technique leaves it unused.
    if (body.embedding_model && body.embedding_model_provider) {
      store.registry.require('text-embedding', body.embedding_model_provider, body.embedding_model);
    }
    return json(updateDataset(store, dataset, body));
  });

  route(KNOWLEDGE_OPERATIONS.deleteDataset, ({ dataset }) => {
    deleteDataset(store, dataset);
    return noContent();
  });

  // Documents

  const createByText = async ({ request, dataset }: Call) => {
    const body = parseOrThrow(createByTextSchema, await readJsonObject(request), 'DocumentTextCreatePayload');
    if (body.retrieval_model) checkRetrieval(store, body.retrieval_model, dataset);
    requireEmbeddingProvider(store, dataset);
    return json(saveDocument(store, dataset, body));
  };
  route(KNOWLEDGE_OPERATIONS.createDocumentByText, createByText);
  route(KNOWLEDGE_OPERATIONS.createDocumentByTextLegacy, createByText);

  const createByFile = async ({ request, dataset }: Call) => {
    if (dataset.provider === 'external') throw badParam('External datasets are not supported.');
    const { data, files, fileFields } = await readDocumentUpload(request, true);
    if (!dataset.indexing_technique && !data.indexing_technique) throw badParam('indexing_technique is required.');
    requireEmbeddingProvider(store, dataset);
    const file = (await documentFile(files, fileFields, true))!;
    const body = parseOrThrow(createByFileDataSchema, data, 'KnowledgeConfig');
    if (body.retrieval_model) checkRetrieval(store, body.retrieval_model, dataset);
    if (!body.original_document_id && !dataset.latest_rule && !body.process_rule) throw badParam('process_rule is required.');
    const docForm = data.doc_form === undefined ? (dataset.chunk_structure ?? dataset.documents[0]?.doc_form ?? body.doc_form) : body.doc_form;
    return json(saveDocument(store, dataset, { ...body, doc_form: docForm, name: file.name, text: file.text, file }));
  };
  route(KNOWLEDGE_OPERATIONS.createDocumentByFile, createByFile);
  route(KNOWLEDGE_OPERATIONS.createDocumentByFileLegacy, createByFile);

  const updateByText = async ({ request, params, dataset }: Call) => {
    const body = parseOrThrow(updateByTextSchema, await readJsonObject(request), 'DocumentTextUpdate');
    if (body.retrieval_model) checkRetrieval(store, body.retrieval_model, dataset);
    requireEmbeddingProvider(store, dataset);
    const document = requireDocument(dataset, idParam(params, 'document_id'));
    const text = body.text ? { name: body.name!, text: body.text } : { name: body.name ?? undefined };
    return json(updateDocument(store, dataset, document, { ...text, process_rule: body.process_rule, doc_form: body.doc_form, doc_language: body.doc_language, retrieval_model: body.retrieval_model }));
  };
  route(KNOWLEDGE_OPERATIONS.updateDocumentByText, updateByText);
  route(KNOWLEDGE_OPERATIONS.updateDocumentByTextLegacy, updateByText);

  const updateByFile = async ({ request, params, dataset }: Call) => {
    if (dataset.provider === 'external') throw badParam('External datasets are not supported.');
    const { data, files, fileFields } = await readDocumentUpload(request, false);
    const file = await documentFile(files, fileFields, false);
    const body = parseOrThrow(updateByFileDataSchema, data, 'KnowledgeConfig');
    if (body.retrieval_model) checkRetrieval(store, body.retrieval_model, dataset);
    requireEmbeddingProvider(store, dataset);
    const document = requireDocument(dataset, idParam(params, 'document_id'));
    const replacement = file ? { name: file.name, text: file.text, file } : { name: body.name ?? undefined };
    return json(updateDocument(store, dataset, document, { ...replacement, process_rule: body.process_rule, doc_form: body.doc_form, doc_language: body.doc_language, retrieval_model: body.retrieval_model }));
  };
  route(KNOWLEDGE_OPERATIONS.updateDocumentByFile, updateByFile);
  route(KNOWLEDGE_OPERATIONS.updateDocumentByFileLegacy, updateByFile);
  route(KNOWLEDGE_OPERATIONS.patchDocument, updateByFile);

  route(KNOWLEDGE_OPERATIONS.listDocuments, ({ url, dataset }) =>
    json(
      listDocuments(dataset, {
        paging: listPaging(url),
        keyword: url.searchParams.get('keyword') || undefined,
        status: displayStatusFilter(url.searchParams.get('status')),
      }),
    ),
  );

  route(KNOWLEDGE_OPERATIONS.getDocument, ({ url, params, dataset }) => {
    const document = requireDocument(dataset, idParam(params, 'document_id'));
    const view = url.searchParams.get('metadata') ?? 'all';
    if (!DETAIL_VIEWS.includes(view)) throw new ApiError(400, 'invalid_metadata', `Invalid metadata value: ${view}`);
    return json(documentDetailJSON(document, dataset, view as DocumentDetailView));
  });

  route(KNOWLEDGE_OPERATIONS.deleteDocument, ({ params, dataset }) => {
    deleteDocument(dataset, idParam(params, 'document_id'));
    return noContent();
  });

  route(KNOWLEDGE_OPERATIONS.updateDocumentStatus, async ({ request, params, dataset }) => {
    checkDatasetModel(store, dataset);
    const body = parseOrThrow(documentStatusSchema, await readJsonObject(request), 'DocumentStatusPayload');
    const action = params.action ?? '';
    if (!STATUS_ACTIONS.includes(action)) throw new ApiError(400, 'invalid_action', 'Invalid action.');
    updateDocumentStatus(store, dataset, action as DocumentStatusAction, body.document_ids);
    return json({ result: 'success' });
  }, { rateLimited: false });

  route(KNOWLEDGE_OPERATIONS.getIndexingStatus, ({ params, dataset }) =>
    json({ data: indexingStatus(dataset, params.batch ?? '') }),
  );

  registerDownloadRoutes(route, deps.uploads);
  registerChunkRoutes(route, store);

  // Retrieval

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
  route(KNOWLEDGE_OPERATIONS.retrieve, retrieveRoute);
  route(KNOWLEDGE_OPERATIONS.hitTesting, retrieveRoute);

  route(KNOWLEDGE_OPERATIONS.listDatasourcePlugins, ({ url, dataset }) =>
    json(store.datasourcePlugins(dataset, boolParam(url, 'is_published', true))),
  );
}

/**
 * The list's `status` filter as `DocumentService.normalize_display_status` reads it: any case, two
 * aliases of `available`; anything else filters nothing (no error).
 */
function displayStatusFilter(raw: string | null): DocumentDisplayStatus | undefined {
  const status = raw?.toLowerCase() ?? '';
  const normalized = DISPLAY_STATUS_ALIASES[status] ?? status;
  return DISPLAY_STATUSES.includes(normalized) ? (normalized as DocumentDisplayStatus) : undefined;
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
