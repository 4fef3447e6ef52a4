/**
 * Indexing: a document goes through the real service's states (waiting → parsing → cleaning →
 * splitting → indexing → completed, or error), one configurable delay per state, as one loop over
 * a table of stages. Chunks complete in up to four batches across the indexing stage.
 */
import type { IndexingStatus } from '../../protocol/index.js';
import { nowSeconds, uuid } from '../ids.js';
import { chunkText, estimateTokens, extractKeywords, IndexingError, textHash, wordCount, type Chunk } from './chunking.js';
import { NOT_YET_INDEXED, type DatasetRecord, type DocumentRecord, type SegmentRecord } from './records.js';

export interface IndexerOptions {
  stageDelayMs: number;
  statusReindexMs: number;
  maxSegmentationTokens: number;
}

type Stamp = 'processing_started_at' | 'parsing_completed_at' | 'cleaning_completed_at' | 'splitting_completed_at';

interface Stage {
  /** The state the document enters. */
  status: IndexingStatus;
  /** The time stamp set on entering it. */
  stamp: Stamp;
  /** Work done on entering it; a throw fails the document. */
  work?: (indexer: Indexer, ds: DatasetRecord, doc: DocumentRecord) => void;
}

const STAGES: readonly Stage[] = [
  { status: 'parsing', stamp: 'processing_started_at' },
  { status: 'cleaning', stamp: 'parsing_completed_at' },
  { status: 'splitting', stamp: 'cleaning_completed_at' },
  {
    status: 'indexing',
    stamp: 'splitting_completed_at',
    work: (indexer, ds, doc) => {
      doc.pending = indexer.chunk(doc);
      loadSegments(ds, doc);
    },
  },
];

/** How many batches the indexing stage completes chunks in. */
const MAX_BATCHES = 4;

export class Indexer {
  readonly #waits = new Map<ReturnType<typeof setTimeout>, (elapsed: boolean) => void>();
  #closed = false;

  constructor(readonly options: IndexerOptions) {}

  chunk(doc: DocumentRecord): Chunk[] {
    return chunkText(doc.text, doc.rule, doc.doc_form, this.options.maxSegmentationTokens);
  }

  /** Resolves true after `ms`, or false when pending work is cancelled (`cancel`, `close`). */
  wait(ms: number): Promise<boolean> {
    if (this.#closed) return Promise.resolve(false);
    return new Promise((resolve) => {
      const timer = setTimeout(() => {
        this.#waits.delete(timer);
        resolve(!this.#closed);
      }, ms);
      timer.unref?.();
      this.#waits.set(timer, resolve);
    });
  }

  /** Runs `fn` after `ms` unless cancelled first. */
  after(ms: number, fn: () => void): void {
    void this.wait(ms).then((elapsed) => elapsed && fn());
  }

  /** Stops all pending indexing (the store goes back to the fixture). */
  cancel(): void {
    for (const [timer, resolve] of this.#waits) {
      clearTimeout(timer);
      resolve(false);
    }
    this.#waits.clear();
  }

  close(): void {
    this.#closed = true;
    this.cancel();
  }

  /** Queues the document and runs it through the stages; an older run of it stops. */
  start(ds: DatasetRecord, doc: DocumentRecord): void {
    const run = ++doc.run;
    Object.assign(doc, { ...NOT_YET_INDEXED, pending: null } satisfies Partial<DocumentRecord>);
    void this.#run(ds, doc, run);
  }

  async #run(ds: DatasetRecord, doc: DocumentRecord, run: number): Promise<void> {
    const current = async (ms: number) => (await this.wait(ms)) && doc.run === run;
    for (const stage of STAGES) {
      if (!(await current(this.options.stageDelayMs))) return;
      try {
        doc.indexing_status = stage.status;
        doc[stage.stamp] = nowSeconds();
        stage.work?.(this, ds, doc);
      } catch (error) {
        failDocument(doc, error);
        return;
      }
    }
    const pending = doc.segments.filter((s) => s.status === 'indexing');
    const batches = Math.max(1, Math.min(MAX_BATCHES, pending.length));
    const per = Math.ceil(pending.length / batches);
    for (let k = 0; k < batches; k++) {
      if (!(await current(this.options.stageDelayMs / batches))) return;
      const now = nowSeconds();
      for (const s of pending.slice(k * per, (k + 1) * per)) {
        if (s.status !== 'indexing') continue;
        s.status = 'completed';
        s.completed_at = now;
      }
    }
    const now = nowSeconds();
    doc.segments = doc.segments.filter((s) => s.status !== 're_segment');
    doc.indexing_status = 'completed';
    doc.completed_at = now;
    ds.updated_at = now;
  }

  /** A fixture document: chunked and indexed at once, at its creation time. */
  indexNow(ds: DatasetRecord, doc: DocumentRecord): void {
    const now = doc.created_at;
    try {
      doc.pending = this.chunk(doc);
      loadSegments(ds, doc);
      for (const s of doc.segments) {
        s.status = 'completed';
        s.created_at = s.updated_at = s.indexing_at = s.completed_at = now;
      }
      Object.assign(doc, {
        indexing_status: 'completed',
        processing_started_at: now,
        parsing_completed_at: now,
        cleaning_completed_at: now,
        splitting_completed_at: now,
        completed_at: now,
      } satisfies Partial<DocumentRecord>);
    } catch (error) {
      failDocument(doc, error);
    }
  }
}

function failDocument(doc: DocumentRecord, error: unknown): void {
  if (!(error instanceof IndexingError)) console.error('[service] indexing failed:', error);
  doc.indexing_status = 'error';
  doc.error = error instanceof Error ? error.message : String(error);
  doc.stopped_at = nowSeconds();
  doc.segments = doc.segments.filter((s) => s.status !== 'indexing');
  for (const s of doc.segments) if (s.status === 're_segment') s.status = 'completed';
}

/** A chunk record for `content` (and `answer`), indexed as the knowledge base's technique says. */
export function newSegment(
  ds: DatasetRecord,
  fields: { position: number; content: string; answer: string | null; children: string[]; created_by: string; now: number; keywords?: string[] },
): SegmentRecord {
  const { content, answer, now } = fields;
  const economy = ds.indexing_technique === 'economy';
  const text = answer ? `${content}${answer}` : content;
  const segmentId = uuid();
  return {
    id: segmentId,
    position: fields.position,
    content,
    answer,
    word_count: wordCount(content) + (answer ? wordCount(answer) : 0),
    tokens: economy ? 0 : estimateTokens(text),
    keywords: fields.keywords ?? (economy ? extractKeywords(text) : []),
    index_node_id: uuid(),
    index_node_hash: textHash(content),
    hit_count: 0,
    enabled: true,
    disabled_at: null,
    disabled_by: null,
    status: 'indexing',
    created_by: fields.created_by,
    created_at: now,
    updated_at: now,
    updated_by: null,
    indexing_at: now,
    completed_at: null,
    error: null,
    stopped_at: null,
    child_chunks: fields.children.map((c, j) => newChildChunk(segmentId, c, j + 1, 'automatic', now)),
  };
}

export function newChildChunk(segmentId: string, content: string, position: number, type: 'automatic' | 'customized', now: number): SegmentRecord['child_chunks'][number] {
  return { id: uuid(), segment_id: segmentId, content, position, word_count: wordCount(content), type, created_at: now, updated_at: now };
}

/** Replaces the document's chunks (old ones stay as `re_segment` until indexing completes). */
function loadSegments(ds: DatasetRecord, doc: DocumentRecord): void {
  const now = nowSeconds();
  const fresh = (doc.pending ?? []).map((chunk, i) =>
    newSegment(ds, { position: i + 1, content: chunk.content, answer: chunk.answer, children: chunk.children, created_by: doc.created_by, now }),
  );
  doc.pending = null;
  doc.segments = [...doc.segments.filter((s) => s.status === 're_segment'), ...fresh];
}
