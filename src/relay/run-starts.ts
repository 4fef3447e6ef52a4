/**
 * A run is started at most once per `Idempotency-Key`. The first request with a key claims
 * `(app, user, key)` in the relay store and goes upstream; the relay watches the answer for the
 * first event naming the run (`workflow_run_id`, with `task_id` and `conversation_id`) and records
 * it, reading the upstream on its own until then even when the browser has gone. A repeated key
 * follows the recorded run (`GET /workflow/{run}/events` with the state snapshot) instead of
 * starting another. No upstream endpoint of our own: it works against a real Dify.
 */
import { runEventFeed, type RunEvent } from '../protocol/index.js';
import { hexDigest } from './bytes.js';
import type { RunStartRecord } from './store.js';

/** What a browser may send as `Idempotency-Key`. */
export const IDEMPOTENCY_KEY = /^[A-Za-z0-9_-]{1,128}$/;

/** Hash of what makes two run starts "the same": the route and the body, keys in any order. */
export async function runStartFingerprint(path: string, body: unknown): Promise<string> {
  return hexDigest('SHA-256', `${path}\n${canonicalJson(body)}`);
}

function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  if (value !== null && typeof value === 'object') {
    const entries = Object.keys(value as object)
      .sort()
      .map((k) => `${JSON.stringify(k)}:${canonicalJson((value as Record<string, unknown>)[k])}`);
    return `{${entries.join(',')}}`;
  }
  return JSON.stringify(value) ?? 'null';
}

/** The ids a run event carries, when it names the run (or, in a chat app without a workflow, the message). */
export function idsOf(event: RunEvent): Pick<RunStartRecord, 'runId' | 'taskId' | 'conversationId' | 'messageId'> | undefined {
  const e = event as unknown as Record<string, unknown>;
  const text = (v: unknown) => (typeof v === 'string' && v ? v : undefined);
  const runId = text(e.workflow_run_id);
  const taskId = text(e.task_id);
  if (!runId && !taskId) return undefined;
  const ids: Pick<RunStartRecord, 'runId' | 'taskId' | 'conversationId' | 'messageId'> = {};
  if (runId) ids.runId = runId;
  if (taskId) ids.taskId = taskId;
  const conversationId = text(e.conversation_id);
  if (conversationId) ids.conversationId = conversationId;
  const messageId = text(e.message_id);
  if (messageId) ids.messageId = messageId;
  return ids;
}

export interface RunStartWatchHooks {
  /** The first event naming the run (or a later one adding the run id to a chat message's ids). */
  onIds(ids: Pick<RunStartRecord, 'runId' | 'taskId' | 'conversationId' | 'messageId'>): Promise<void>;
  /** The upstream reported an error before naming any run: no run exists, the key may be used again. */
  onFailedStart(): Promise<void>;
  /** The stream ended, broke off or outlasted `limitMs` before naming the run. */
  onLost(): Promise<void>;
}

/**
 * The upstream's SSE body for the browser, watched for the run's ids. When the browser leaves
 * (the returned stream is cancelled, or `clientSignal` aborts) before the run is recorded, the
 * upstream is read on (and dropped) until it is, for at most `limitMs` from the start.
 */
export function watchRunStart(upstream: ReadableStream<Uint8Array>, clientSignal: AbortSignal, limitMs: number, hooks: RunStartWatchHooks): ReadableStream<Uint8Array> {
  const reader = upstream.getReader();
  /** `open` until the run is named (or known not to exist); then the browser alone decides how long to read. */
  let phase: 'open' | 'named' | 'settled' = 'open';
  let detached = false;
  let pendingWrite: Promise<void> = Promise.resolve();
  const settle = (work: () => Promise<void>) => {
    pendingWrite = pendingWrite.then(work).catch(() => undefined);
  };
  const feed = runEventFeed((event) => {
    if (phase === 'settled') return;
    const ids = idsOf(event);
    if (ids) {
      // A chat app without a workflow names its message first; a run id, when one comes, completes the record.
      if (phase === 'open' || ids.runId) settle(() => hooks.onIds(ids));
      phase = ids.runId ? 'settled' : 'named';
      clearTimeout(limit);
    } else if (event.event === 'error' && phase === 'open') {
      phase = 'settled';
      clearTimeout(limit);
      settle(() => hooks.onFailedStart());
    }
  });
  const lose = () => {
    if (phase !== 'open') return;
    phase = 'settled';
    settle(() => hooks.onLost());
  };
  const limit = setTimeout(() => {
    lose();
    if (detached) void reader.cancel().catch(() => undefined);
  }, limitMs);
  (limit as { unref?: () => void }).unref?.();

  async function next() {
    try {
      const result = await reader.read();
      if (result.done) {
        feed(new Uint8Array([10, 10]));
        lose();
        clearTimeout(limit);
      } else feed(result.value);
      return result;
    } catch (error) {
      lose();
      clearTimeout(limit);
      throw error;
    }
  }

  /** The browser has gone: read on until the run is named, then let go of the upstream. */
  const detach = () => {
    if (detached) return;
    detached = true;
    void (async () => {
      try {
        while (phase === 'open' && !(await next()).done);
      } catch {
        // broken off: `next` recorded it
      }
      clearTimeout(limit);
      await pendingWrite;
      await reader.cancel().catch(() => undefined);
    })();
  };
  // The browser may have left while the upstream was still answering.
  if (clientSignal.aborted) detach();
  else clientSignal.addEventListener('abort', detach, { once: true });

  return new ReadableStream<Uint8Array>({
    async pull(controller) {
      if (detached) return;
      const { done, value } = await next();
      if (done) {
        await pendingWrite;
        controller.close();
      } else controller.enqueue(value);
    },
    cancel() {
      detach();
    },
  });
}
