/**
 * Chunks and child chunks written through the API: added chunks are indexed at once (the real
 * service embeds them in the request), edited chunks are re-indexed, disabled ones leave the index.
 */
import type { ChildChunk, Segment } from '../../protocol/index.js';
import { badParam, notFound } from '../errors.js';
import { pythonStrip } from '../python-str.js';
import { nowSeconds } from '../ids.js';
import { childChunksOf, estimateTokens, extractKeywords, textHash, wordCount } from './chunking.js';
import { newChildChunk, newSegment } from './indexing.js';
import { archivedImmutable, type DatasetRecord, type DocumentRecord, type SegmentRecord } from './records.js';
import { segmentJSON } from './serialise.js';
import type { KnowledgeState } from './state.js';

export interface NewSegmentInput { content: string; answer?: string | null; keywords?: string[] | null }

export interface SegmentUpdateInput {
  content?: string | null;
  answer?: string | null;
  keywords?: string[] | null;
  enabled?: boolean | null;
  regenerate_child_chunks: boolean;
}

export function requireSegment(doc: DocumentRecord, segmentId: string): SegmentRecord {
  const segment = doc.segments.find((s) => s.id === segmentId);
  if (!segment) throw notFound('Segment not found.');
  return segment;
}

/** The document a chunk id belongs to, anywhere in the knowledge base (child-chunk routes look chunks up by id alone). */
export function findSegment(ds: DatasetRecord, segmentId: string): { doc: DocumentRecord; segment: SegmentRecord } {
  for (const doc of ds.documents) {
    const segment = doc.segments.find((s) => s.id === segmentId);
    if (segment) return { doc, segment };
  }
  throw notFound('Segment not found.');
}

/** Adding chunks needs a completed, enabled document (404s, as the real service answers). */
export function requireWritableDocument(doc: DocumentRecord): void {
  if (doc.indexing_status !== 'completed') throw notFound('Document is not completed.');
  if (!doc.enabled) throw notFound('Document is disabled.');
}

/** `segment_create_args_validate` for each chunk (its messages confirmed in Dify's source), then the chunks, indexed and completed. */
export function createSegments(state: KnowledgeState, ds: DatasetRecord, doc: DocumentRecord, items: NewSegmentInput[]): Segment[] {
  for (const item of items) {
    if (doc.doc_form === 'qa_model' && !item.answer) throw badParam('Answer is required');
    if (doc.doc_form === 'qa_model' && !pythonStrip(item.answer!)) throw badParam('Answer is empty');
    if (!pythonStrip(item.content)) throw badParam('Content is empty');
  }
  const now = nowSeconds();
  let position = doc.segments.reduce((max, s) => Math.max(max, s.position), 0);
  const created = items.map((item) => {
    const segment = newSegment(ds, {
      position: ++position,
      content: item.content,
      answer: doc.doc_form === 'qa_model' ? (item.answer ?? null) : null,
      children: doc.doc_form === 'hierarchical_model' ? childChunksOf(item.content, doc.rule) : [],
      created_by: state.owner.id,
      now,
      keywords: item.keywords?.length ? [...item.keywords] : undefined,
    });
    segment.status = 'completed';
    segment.completed_at = now;
    return segment;
  });
  doc.segments.push(...created);
  doc.updated_at = now;
  return created.map((s) => segmentJSON(s, doc.id));
}

export function updateSegment(state: KnowledgeState, ds: DatasetRecord, doc: DocumentRecord, segment: SegmentRecord, input: SegmentUpdateInput): Segment {
  if (doc.archived) throw archivedImmutable();
  if (segment.status === 'indexing') throw badParam('Segment is indexing, please try again later');
  const now = nowSeconds();
  if (input.enabled === false) {
    // Disabling only takes the chunk out of the index; the rest of the request is ignored.
    if (segment.enabled) Object.assign(segment, { enabled: false, disabled_at: now, disabled_by: state.owner.id, updated_at: now, updated_by: state.owner.id });
    return segmentJSON(segment, doc.id);
  }
  if (!segment.enabled && input.enabled !== true) throw badParam("Can't update disabled segment");
  if (doc.doc_form === 'qa_model' && input.answer === '') throw badParam('Answer is required');
  // An empty content keeps the old one, as Dify's `SegmentService.update_segment` does (`args.content or segment.content`).
  const content = input.content || segment.content;
  const answer = doc.doc_form === 'qa_model' ? (input.answer ?? segment.answer) : null;
  const economy = ds.indexing_technique === 'economy';
  const text = answer ? `${content}${answer}` : content;
  Object.assign(segment, {
    content,
    answer,
    word_count: wordCount(content) + (answer ? wordCount(answer) : 0),
    tokens: economy ? 0 : estimateTokens(text),
    keywords: input.keywords ? [...input.keywords] : economy && content !== segment.content ? extractKeywords(text) : segment.keywords,
    index_node_hash: textHash(content),
    enabled: true,
    disabled_at: null,
    disabled_by: null,
    updated_at: now,
    updated_by: state.owner.id,
  } satisfies Partial<SegmentRecord>);
  if (doc.doc_form === 'hierarchical_model' && input.regenerate_child_chunks) {
    segment.child_chunks = childChunksOf(content, doc.rule).map((c, i) => newChildChunk(segment.id, c, i + 1, 'automatic', now));
  }
  doc.updated_at = now;
  return segmentJSON(segment, doc.id);
}

export function listChildChunks(segment: SegmentRecord, query: { page: number; limit: number; keyword?: string }) {
  let list = [...segment.child_chunks].sort((a, b) => a.position - b.position);
  if (query.keyword) list = list.filter((c) => c.content.includes(query.keyword!));
  const total = list.length;
  return {
    data: list.slice((query.page - 1) * query.limit, query.page * query.limit).map((c) => ({ ...c })),
    total,
    total_pages: Math.ceil(total / query.limit),
    page: query.page,
    limit: query.limit,
  };
}

export function createChildChunk(doc: DocumentRecord, segment: SegmentRecord, content: string): ChildChunk {
  if (doc.archived) throw archivedImmutable();
  const now = nowSeconds();
  const position = segment.child_chunks.reduce((max, c) => Math.max(max, c.position), 0) + 1;
  const child = newChildChunk(segment.id, content, position, 'customized', now);
  segment.child_chunks.push(child);
  segment.updated_at = now;
  return { ...child };
}

export function requireChildChunk(segment: SegmentRecord, childId: string): SegmentRecord['child_chunks'][number] {
  const child = segment.child_chunks.find((c) => c.id === childId);
  if (!child) throw notFound('Child chunk not found.');
  return child;
}

export function updateChildChunk(doc: DocumentRecord, child: SegmentRecord['child_chunks'][number], content: string): ChildChunk {
  if (doc.archived) throw archivedImmutable();
  Object.assign(child, { content, word_count: wordCount(content), type: 'customized', updated_at: nowSeconds() } satisfies Partial<ChildChunk>);
  return { ...child };
}

export function deleteChildChunk(doc: DocumentRecord, segment: SegmentRecord, childId: string): void {
  if (doc.archived) throw archivedImmutable();
  segment.child_chunks = segment.child_chunks.filter((c) => c.id !== childId);
  segment.updated_at = nowSeconds();
}
