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
import { relayError } from './errors.js';
import type { RelayStore, RunStartRecord } from './store.js';
import { DOCUMENT_TYPES } from './upstream-answers.js';

/** What a browser may send as `Idempotency-Key`. */
export const IDEMPOTENCY_KEY = /^[A-Za-z0-9_-]{1,128}$/;

/** How often a repeated key looks again for the run its first request is starting. */
const RUN_START_POLL_MS = 50;

/** What the relay's options and state give run starts. */
export interface RunStartPolicy {
  store: RelayStore;
  /** Runs one store call within the relay's store time limit. */
  guarded<T>(call: () => Promise<T> | T, what: string): Promise<T>;
  /** Logs store trouble (at most once per interval per code). */
  storeTrouble(code: string, message: string, error?: unknown): void;
  /** How long a record lasts. */
  recordTtlMs: number;
  /** How long a repeated key waits for the run its first request is starting. */
  waitMs: number;
  /** How long a record may stay pending before it counts as unknown. */
  pendingLimitMs: number;
}

/** The relay's side of one run start, its upstream request already prepared. */
export interface RunStartSteps {
  /** Sends the start upstream (giving up when `signal` aborts): the answer, or the refusal when none came. */
  send(signal: AbortSignal): Promise<Response | { refusal: Response }>;
  /** The upstream's answer as the browser gets it. */
  answer(upstream: Response): Promise<Response>;
  /** A repeated key whose run is known: that run's events, from a snapshot of its state. */
  follow(runId: string): Promise<Response>;
}

export class RunStarts {
  readonly #policy: RunStartPolicy;

  constructor(policy: RunStartPolicy) {
    this.#policy = policy;
  }

  /**
   * The first request with `recordKey` starts the run, every later one follows it. When the
   * store fails the start is refused rather than risk a second run.
   */
  async start(recordKey: string, fingerprint: string, signal: AbortSignal, steps: RunStartSteps): Promise<Response> {
    const { store, guarded, recordTtlMs, waitMs, pendingLimitMs } = this.#policy;
    const unavailable = (error: unknown) => {
      this.#policy.storeTrouble('relay_store_failed', 'The relay store failed on a run start with an Idempotency-Key; such starts are refused until it is back.', error);
      return relayError(503, 'relay_store_unavailable', 'The run cannot be started safely just now; try again shortly.', { 'Retry-After': '1' });
    };
    const mine: RunStartRecord = { owner: crypto.randomUUID(), fingerprint, state: 'pending', claimedAt: Date.now() };
    const deadline = Date.now() + waitMs;
    for (;;) {
      let held: RunStartRecord | null;
      try {
        held = await guarded(() => store.claimRunStart(recordKey, mine, recordTtlMs), 'Claiming an Idempotency-Key');
      } catch (error) {
        // A claim that timed out may still have landed: give it back, or the key would stay pending.
        void guarded(() => store.releaseRunStart(recordKey, mine.owner), 'Releasing an Idempotency-Key').catch(() => undefined);
        return unavailable(error);
      }
      if (!held) return this.#claimed(recordKey, mine, signal, steps);
      // Someone else holds the key: wait (bounded) for its run id; a released claim is claimed anew.
      for (;;) {
        if (held.fingerprint !== fingerprint) return relayError(422, 'idempotency_key_reused', 'This Idempotency-Key was used for a different run start; use a new key for a new run.');
        if (held.state === 'started') {
          if (held.runId) return steps.follow(held.runId);
          return relayError(409, 'run_already_started', 'A message was already sent with this Idempotency-Key; its answer is in the conversation.', {}, {
            ...(held.conversationId ? { conversation_id: held.conversationId } : {}),
            ...(held.messageId ? { message_id: held.messageId } : {}),
          });
        }
        if (held.state === 'unknown' || Date.now() - held.claimedAt > pendingLimitMs) {
          return relayError(409, 'run_start_unknown', 'A run may have started with this Idempotency-Key, but its id was never seen; start a new run with a new key to run again.');
        }
        if (Date.now() >= deadline || signal.aborted) {
          return relayError(409, 'run_start_pending', 'A run is being started with this Idempotency-Key; try again shortly.', { 'Retry-After': '1' });
        }
        await new Promise((resolve) => setTimeout(resolve, RUN_START_POLL_MS));
        try {
          held = await guarded(() => store.getRunStart(recordKey), 'Reading an Idempotency-Key');
        } catch (error) {
          return unavailable(error);
        }
        if (!held) break;
      }
    }
  }

  /** The first attempt with a key: forward, watch for the run id, record it; release the key when no run was made. */
  async #claimed(recordKey: string, mine: RunStartRecord, signal: AbortSignal, steps: RunStartSteps): Promise<Response> {
    const { store, guarded, storeTrouble, recordTtlMs, pendingLimitMs } = this.#policy;
    const release = () => guarded(() => store.releaseRunStart(recordKey, mine.owner), 'Releasing an Idempotency-Key').catch((error: unknown) => storeTrouble('relay_store_failed', 'The relay store failed to release an Idempotency-Key.', error));
    const write = (record: RunStartRecord) =>
      guarded(() => store.updateRunStart(recordKey, record, recordTtlMs), 'Recording a run start').then(
        () => undefined,
        (error: unknown) => storeTrouble('relay_store_failed', 'The relay store failed to record a run start.', error),
      );
    // Not tied to the browser: the upstream is read until the run is recorded, even after it
    // leaves; but an upstream that has not answered within the pending limit, with the browser
    // gone, is given up (the key then stays unknown: the request did reach it).
    const givingUp = new AbortController();
    const giveUp = setTimeout(() => signal.aborted && givingUp.abort(), pendingLimitMs);
    let sent: Awaited<ReturnType<RunStartSteps['send']>>;
    try {
      sent = await steps.send(givingUp.signal);
    } catch (error) {
      await release();
      throw error;
    } finally {
      clearTimeout(giveUp);
    }
    if ('refusal' in sent) {
      if (givingUp.signal.aborted) await write({ ...mine, state: 'unknown' });
      else await release();
      return sent.refusal;
    }
    const contentType = sent.headers.get('content-type') ?? '';
    if (!sent.ok || !sent.body || !/^\s*text\/event-stream\b/i.test(contentType)) {
      // An error answer made no run; neither did a gateway's page. Anything else 2xx might have.
      if (!sent.ok || DOCUMENT_TYPES.test(contentType)) await release();
      else await write({ ...mine, state: 'unknown' });
      return steps.answer(sent);
    }
    let record = mine;
    const watched = watchRunStart(sent.body, signal, pendingLimitMs, {
      onIds: (ids) => write((record = { ...record, ...ids, state: 'started' })),
      onFailedStart: release,
      onLost: () => write((record = { ...record, state: 'unknown' })),
    });
    return steps.answer(new Response(watched, { status: sent.status, headers: sent.headers }));
  }
}

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
