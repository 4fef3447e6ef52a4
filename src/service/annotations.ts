/**
 * Annotations and annotation reply, per app, as Dify keeps them (`AppAnnotationService`,
 * `AnnotationReplyFeature`): question/answer pairs an admin writes, and, once annotation reply is
 * enabled, a chat message whose query matches an annotation's question is answered with the
 * annotation's answer instead of the app's own, and the annotation's `hit_count` grows.
 *
 * Dify matches by the embedding of the query against the embeddings of the questions (top 1,
 * above `score_threshold`, a threshold of 0 read as 1). The reference service cannot call an
 * embedding model, so it scores with the knowledge side's deterministic local embedding
 * (`knowledge/embedding.ts`, cosine similarity of stemmed words, word pairs and trigrams), and a
 * query equal to a question up to case and whitespace always scores 1.
 *
 * Enabling and disabling are jobs in Dify (a Celery task reports through Redis): the request
 * answers `waiting`; here the job is done at once, so its status is `completed` straight away,
 * except that disabling an app whose reply is not enabled stays `waiting` for ever, as Dify's
 * `disable_annotation_reply_task` returns early without reporting.
 */
import { uuid } from './ids.js';
import { cosine, embed } from './knowledge/embedding.js';
import { DEFAULT_RETENTION, FinishedQueue } from './retention.js';

export interface AnnotationRecord {
  readonly id: string;
  readonly appId: string;
  question: string;
  answer: string;
  hitCount: number;
  /** Unix seconds. */
  readonly createdAt: number;
  /** The account that wrote it: the workspace owner the app key acts as. */
  readonly accountId: string;
}

export interface ReplySetting {
  readonly scoreThreshold: number;
  readonly embeddingProviderName: string;
  readonly embeddingModelName: string;
}

export interface ReplyJob {
  readonly id: string;
  readonly action: string;
  status: 'waiting' | 'completed' | 'error';
  errorMsg: string;
}

export interface AnnotationOptions {
  /** Annotations kept per app; the oldest go first. Default 10,000. */
  keepPerApp?: number;
  /** Reply jobs remembered (Dify's Redis keys expire); the oldest go first. Default 1,000. */
  keepJobs?: number;
}

/** Texts compared as Dify never would, but as a reader expects: the same words, in any case and spacing. */
const normalized = (text: string) => text.trim().replace(/\s+/g, ' ').toLowerCase();

export class AnnotationStore {
  readonly #byApp = new Map<string, Map<string, AnnotationRecord>>();
  readonly #settings = new Map<string, ReplySetting>();
  readonly #jobs = new Map<string, ReplyJob>();
  readonly #jobOrder: FinishedQueue;
  readonly #keepPerApp: number;

  constructor(options: AnnotationOptions = {}) {
    this.#keepPerApp = options.keepPerApp ?? DEFAULT_RETENTION.annotations;
    this.#jobOrder = new FinishedQueue(options.keepJobs ?? 1_000, (key) => this.#jobs.delete(key));
  }

  /** The app's annotations, newest first; `keyword` matches question or answer, ignoring case. */
  list(appId: string, keyword = ''): AnnotationRecord[] {
    const all = [...(this.#byApp.get(appId)?.values() ?? [])].reverse();
    if (!keyword) return all;
    const needle = keyword.toLowerCase();
    return all.filter((a) => a.question.toLowerCase().includes(needle) || a.answer.toLowerCase().includes(needle));
  }

  get(appId: string, id: string): AnnotationRecord | undefined {
    return this.#byApp.get(appId)?.get(id);
  }

  create(appId: string, question: string, answer: string, accountId: string): AnnotationRecord {
    let annotations = this.#byApp.get(appId);
    if (!annotations) this.#byApp.set(appId, (annotations = new Map()));
    const record: AnnotationRecord = { id: uuid(), appId, question, answer, hitCount: 0, createdAt: Math.floor(Date.now() / 1000), accountId };
    annotations.set(record.id, record);
    while (annotations.size > this.#keepPerApp) annotations.delete(annotations.keys().next().value!);
    return record;
  }

  delete(appId: string, id: string): boolean {
    return this.#byApp.get(appId)?.delete(id) ?? false;
  }

  setting(appId: string): ReplySetting | undefined {
    return this.#settings.get(appId);
  }

  /** Runs an `enable` or `disable` job; `setting` is what `enable` stores. */
  runJob(appId: string, action: 'enable' | 'disable', setting: ReplySetting): ReplyJob {
    const job: ReplyJob = { id: uuid(), action, status: 'waiting', errorMsg: '' };
    const key = `${action}_${job.id}`;
    this.#jobs.set(key, job);
    this.#jobOrder.finished(key);
    if (action === 'enable') {
      this.#settings.set(appId, setting);
      job.status = 'completed';
    } else if (this.#settings.delete(appId)) {
      job.status = 'completed';
    }
    return job;
  }

  /** The job `jobId` of `action` (Dify keys jobs by both: another action's id is no job). */
  job(action: string, jobId: string): ReplyJob | undefined {
    return this.#jobs.get(`${action}_${jobId}`);
  }

  /**
   * The annotation answering `query` when the app's annotation reply is enabled: the best-scoring
   * question at or above the threshold (newest first among equals). A hit is counted.
   */
  match(appId: string, query: string): AnnotationRecord | undefined {
    const setting = this.#settings.get(appId);
    if (!setting || !query) return undefined;
    // `enabled_config["score_threshold"] or 1` (AnnotationReplyFeature.query).
    const threshold = setting.scoreThreshold || 1;
    const wanted = embed(query);
    const same = normalized(query);
    let best: { record: AnnotationRecord; score: number } | undefined;
    for (const record of this.list(appId)) {
      const score = normalized(record.question) === same ? 1 : cosine(wanted, embed(record.question));
      if (score >= threshold - 1e-9 && (!best || score > best.score)) best = { record, score };
    }
    if (best) best.record.hitCount += 1;
    return best?.record;
  }

  clear(): void {
    this.#byApp.clear();
    this.#settings.clear();
    this.#jobs.clear();
    this.#jobOrder.clear();
  }
}
