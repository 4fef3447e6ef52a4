/** Chunk and child-chunk routes (`segment.py`), in the real service's order of checks. */
import { KNOWLEDGE_OPERATIONS } from '../../protocol/knowledge-operations.js';
import { notFound } from '../errors.js';
import { json, readJsonObject } from '../http.js';
import { checkDatasetModel } from './datasets.js';
import { deleteSegment, listSegments, requireDocument } from './documents.js';
import { idParam, MAX_LIMIT, noContent, requireEmbeddingProvider, type Route } from './route-kit.js';
import {
  createChildChunk,
  createSegments,
  deleteChildChunk,
  findSegment,
  listChildChunks,
  requireChildChunk,
  requireSegment,
  requireWritableDocument,
  updateChildChunk,
  updateSegment,
} from './segments.js';
import { segmentJSON } from './serialise.js';
import type { KnowledgeStore } from './store.js';
import { childChunkSchema, intParam, parseOrThrow, parsePayload, segmentsCreateSchema, segmentUpdateSchema } from './validation.js';

/** A query integer that falls back to its default when malformed, as the child-chunk listing reads them. */
function lenientInt(url: URL, name: string, fallback: number): number {
  const value = Number.parseInt(url.searchParams.get(name) ?? '', 10);
  return Number.isFinite(value) && value >= 1 ? value : fallback;
}

export function registerChunkRoutes(route: Route, store: KnowledgeStore): void {
  route(KNOWLEDGE_OPERATIONS.listSegments, ({ url, params, dataset }) => {
    const document = requireDocument(dataset, idParam(params, 'document_id'));
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

  route(KNOWLEDGE_OPERATIONS.createSegments, async ({ request, params, dataset }) => {
    const document = requireDocument(dataset, idParam(params, 'document_id'));
    requireWritableDocument(document);
    requireEmbeddingProvider(store, dataset);
    // The real service answers an invalid chunk payload with a bare `{"error": …}`.
    const parsed = parsePayload(segmentsCreateSchema, await readJsonObject(request), 'SegmentCreatePayload');
    if (!parsed.ok) return json({ error: parsed.message }, 400);
    return json({ data: createSegments(store, dataset, document, parsed.data.segments), doc_form: document.doc_form });
  });

  route(KNOWLEDGE_OPERATIONS.getSegment, ({ params, dataset }) => {
    checkDatasetModel(store, dataset);
    const document = requireDocument(dataset, idParam(params, 'document_id'));
    const segment = requireSegment(document, idParam(params, 'segment_id'));
    return json({ data: segmentJSON(segment, document.id), doc_form: document.doc_form });
  });

  route(KNOWLEDGE_OPERATIONS.updateSegment, async ({ request, params, dataset }) => {
    checkDatasetModel(store, dataset);
    const document = requireDocument(dataset, idParam(params, 'document_id'));
    requireEmbeddingProvider(store, dataset);
    const segment = requireSegment(document, idParam(params, 'segment_id'));
    const body = parseOrThrow(segmentUpdateSchema, await readJsonObject(request), 'SegmentUpdatePayload');
    return json({ data: updateSegment(store, dataset, document, segment, body.segment), doc_form: document.doc_form });
  });

  route(KNOWLEDGE_OPERATIONS.deleteSegment, ({ params, dataset }) => {
    checkDatasetModel(store, dataset);
    const document = requireDocument(dataset, idParam(params, 'document_id'));
    deleteSegment(document, idParam(params, 'segment_id'));
    // The seed says 200 (it wins over the real service's 204); the body is Dify's usual success one.
    return json({ result: 'success' });
  });

  // Child chunks: listing and adding look the parent chunk up by its id alone.

  route(KNOWLEDGE_OPERATIONS.listChildChunks, ({ url, params, dataset }) => {
    requireDocument(dataset, idParam(params, 'document_id'));
    const { segment } = findSegment(dataset, idParam(params, 'segment_id'));
    return json(
      listChildChunks(segment, {
        page: lenientInt(url, 'page', 1),
        limit: Math.min(lenientInt(url, 'limit', 20), MAX_LIMIT),
        keyword: url.searchParams.get('keyword') || undefined,
      }),
    );
  });

  route(KNOWLEDGE_OPERATIONS.createChildChunk, async ({ request, params, dataset }) => {
    requireDocument(dataset, idParam(params, 'document_id'));
    const { doc, segment } = findSegment(dataset, idParam(params, 'segment_id'));
    requireEmbeddingProvider(store, dataset);
    const body = parseOrThrow(childChunkSchema, await readJsonObject(request), 'ChildChunkCreatePayload');
    return json({ data: createChildChunk(doc, segment, body.content) });
  });

  route(KNOWLEDGE_OPERATIONS.updateChildChunk, async ({ request, params, dataset }) => {
    const document = requireDocument(dataset, idParam(params, 'document_id'));
    const segment = requireSegment(document, idParam(params, 'segment_id'));
    const child = requireChildChunk(segment, idParam(params, 'child_chunk_id'));
    const body = parseOrThrow(childChunkSchema, await readJsonObject(request), 'ChildChunkUpdatePayload');
    return json({ data: updateChildChunk(document, child, body.content) });
  });

  route(KNOWLEDGE_OPERATIONS.deleteChildChunk, ({ params, dataset }) => {
    const document = requireDocument(dataset, idParam(params, 'document_id'));
    const { doc, segment } = findSegment(dataset, idParam(params, 'segment_id'));
    if (doc !== document) throw notFound('Document not found.');
    requireChildChunk(segment, idParam(params, 'child_chunk_id'));
    deleteChildChunk(document, segment, idParam(params, 'child_chunk_id'));
    return noContent();
  });
}
