/**
 * Follows a run for the form: starts it (or attaches to `run-id`), reads its events until it
 * finishes, reconnects with a state snapshot when the stream drops, hands each new event over in
 * order (see `EventGate`: replays dropped, events held while a submission is in flight), and
 * aborts when the host leaves the page (not when it is only moved).
 */
import type { ReactiveController, ReactiveControllerHost } from 'lit';
import { ServiceError } from '../../client/errors.js';
import type { Transport } from '../../client/transport.js';
import { readRunEvents, type RunEvent } from '../../protocol/index.js';
import { pathOf, RUN_WORKFLOW_PATH, WORKFLOW_EVENTS_PATH } from '../../protocol/paths.js';
import { EventGate } from './event-gate.js';

type Host = ReactiveControllerHost & HTMLElement & { readonly hasUpdated: boolean };

export interface RunStreamOptions {
  /** Each new event, in order, while the connection is not aborted; a promise it returns holds the next. */
  event(event: RunEvent, signal: AbortSignal): unknown;
  /** A stream is attached (again). */
  open(): void;
  /** The host came back into the page after its connection was aborted: connect again. */
  resume(): void;
  /** What to say when the service stays out of reach. */
  unavailable(): string;
}


export class RunStream implements ReactiveController {
  /** How long a connection may go without an event (a ping is one) before it counts as lost. */
  static silenceMs = 45_000;

  /** The run followed ('' until its first event names it). */
  runId = '';
  /** The run finished (or failed): there is nothing more to follow. */
  ended = false;
  readonly #host: Host;
  readonly #options: RunStreamOptions;
  readonly #gate: EventGate;
  #abort = new AbortController();
  /** The `Idempotency-Key` of the run being started: one per start, the same on each of its retries. */
  #startKey = '';
  /**
   * Reconnects in a row that brought nothing new, on connections that did not last: a connection
   * pinged after its first event has lived through a keep-alive interval, so its end is no
   * failure. (The service closes an events stream after 300 s without an event: a form waiting
   * for its human longer than that reconnects every 300 s, and must not run out of tries.)
   */
  #tries = 0;
  /** Settles once a stream is attached; a new one waits while there is none. */
  #open = deferred();

  constructor(host: Host, options: RunStreamOptions) {
    (this.#host = host).addController(this);
    this.#options = options;
    this.#gate = new EventGate((event) => {
      if (event.event !== 'ping') this.#tries = 0;
      return this.#options.event(event, this.#abort.signal);
    });
  }

  /** Forgets the run: the next `follow` starts `runId` (or a new run), and shows everything again. */
  reset(runId: string): void {
    this.runId = runId;
    this.#startKey = '';
    this.ended = false;
    this.#gate.reset();
  }

  /** Aborts the connection under way and answers the next one's signal; `again` is a user's retry. */
  restart(again?: boolean): AbortSignal {
    this.#abort.abort();
    if (again) this.#tries = 0;
    this.#gate.detach();
    this.#detached();
    return (this.#abort = new AbortController()).signal;
  }

  /** The current connection's signal. */
  get signal(): AbortSignal {
    return this.#abort.signal;
  }

  abort(): void {
    this.#abort.abort();
  }

  /** Runs `work` once a stream is attached (events reach only listeners attached before the run resumes); the run's events wait for it. */
  hold<T>(work: () => Promise<T>, signal: AbortSignal): Promise<T> {
    const open = this.#open.promise;
    return this.#gate.hold(
      new Promise<void>((resolve, reject) => {
        if (signal.aborted) return reject(signal.reason);
        signal.addEventListener('abort', () => reject(signal.reason), {
          once: true,
        });
        void open.then(resolve);
      }).then(work),
    );
  }

  /** An event the host could not handle: a replay of it is handled again. */
  forget(event: RunEvent): void {
    this.#gate.forget(event);
  }

  /**
   * Reads the run's events until it finishes: first from the run's start (`start` holds its
   * inputs; the relay sets `user`, so the one here only satisfies the shape), then from the
   * events endpoint with `continue_on_pause` (one stream across consecutive forms) and
   * `include_state_snapshot` (a dropped stream loses nothing; what was seen is dropped).
   *
   * A start that drops before its first event (which names the run) is sent again as it was,
   * with the same `Idempotency-Key`: the relay starts a run at most once per key and answers a
   * repeat with that run's events, or `409 run_start_pending` (with `Retry-After`) while the
   * first attempt has not learned the run's id yet.
   */
  async follow(api: Transport, start: Record<string, unknown> | undefined, signal: AbortSignal): Promise<void> {
    let failure: unknown = new ServiceError({
      code: 'upstream_unavailable',
      message: this.#options.unavailable(),
      status: 0,
    });
    // A connection that dies without closing (a laptop back from sleep, a network that lost it)
    // would leave the form deaf to the run: the service pings every 10 s, so a connection silent
    // for `silenceMs` is given up (`connection`) and the run followed again.
    let connection: AbortController;
    let timer: ReturnType<typeof setTimeout> | undefined;
    const lost = () => connection.abort();
    const heard = () => (clearTimeout(timer), (timer = setTimeout(lost, RunStream.silenceMs)));
    signal.addEventListener('abort', lost);
    // A signal aborted before the call fires no listener: nothing is asked for then.
    while (!this.ended && !signal.aborted) {
      let wait = 0;
      connection = new AbortController();
      heard();
      try {
        const starting = !!start && !this.runId;
        const { url, init } = await (starting
          ? api.prepare('POST', RUN_WORKFLOW_PATH, {
              json: { inputs: start, response_mode: 'streaming', user: '' },
              headers: {
                Accept: 'text/event-stream',
                'Idempotency-Key': (this.#startKey ||= randomKey()),
              },
              signal: connection.signal,
            })
          : api.prepare('GET', pathOf(WORKFLOW_EVENTS_PATH, this.runId), {
              query: { include_state_snapshot: true, continue_on_pause: true },
              headers: { Accept: 'text/event-stream' },
              signal: connection.signal,
            }));
        const response = await fetch(url, init);
        if (!response.ok) {
          wait = Number(response.headers.get('Retry-After')) * 1000;
          throw await ServiceError.fromResponse(response);
        }
        this.#open.resolve();
        this.#options.open();
        let first = true;
        for await (const event of readRunEvents(response.body!)) {
          heard();
          if (event.event === 'ping' && !first) this.#tries = 0;
          first = false;
          this.runId ||= (event as { workflow_run_id?: string }).workflow_run_id ?? '';
          // Known here, not once handled: a submission may hold the handling while the stream ends.
          if (event.event === 'workflow_finished' || event.event === 'error') this.ended = true;
          this.#gate.push(event, signal);
          // A start's stream ends at the pause; only the events stream goes on past it, across
          // forms. A submission waits for that one, or the resumed run's events are lost.
          if (starting && event.event === 'workflow_paused') {
            this.#detached();
            break;
          }
        }
      } catch (error) {
        if (signal.aborted) return;
        const { status, code } = error as ServiceError;
        // A refusal asking again cannot change ends here; the start's own "not yet" is waited out.
        if (status >= 400 && status < 500 && status !== 429 && code !== 'run_start_pending') throw error;
        if (error instanceof ServiceError) failure = error;
      } finally {
        clearTimeout(timer);
      }
      this.#detached();
      if (signal.aborted || this.ended) return;
      if (this.#tries > 3) throw failure;
      await new Promise((resolve) => setTimeout(resolve, Math.min(wait, 30_000) || (this.#tries && 250 * 2 ** this.#tries)));
      this.#tries++;
    }
  }

  /** No stream is attached now: a submission waits for the next. */
  #detached(): void {
    if (this.#open.done) this.#open = deferred();
  }

  /** A move (removed and added again in one task) keeps its connection: a run being started has no id yet, so starting over would start a second run. */
  hostConnected(): void {
    if (this.#host.hasUpdated && this.#abort.signal.aborted) this.#options.resume();
  }

  hostDisconnected(): void {
    queueMicrotask(() => this.#host.isConnected || this.#abort.abort());
  }
}

function deferred(): {
  promise: Promise<void>;
  resolve(): void;
  done: boolean;
} {
  const open = { done: false } as {
    promise: Promise<void>;
    resolve(): void;
    done: boolean;
  };
  open.promise = new Promise<void>((resolve) => (open.resolve = () => ((open.done = true), resolve())));
  return open;
}

/** A random key, also where `crypto.randomUUID` is missing (a page served over plain http). */
function randomKey(): string {
  return crypto.randomUUID?.() ?? crypto.getRandomValues(new Uint32Array(4)).join('-');
}
