/**
 * Fault injection for QA: latency, streams cut short or left idle, remote file fetches that fail. Set from
 * the command line at start and changed at run time through the loopback-only `/_qa` endpoint.
 */
export interface QaSettings {
  /** Delay before every response and before every run event, in milliseconds. */
  latencyMs: number;
  /** Close every new event stream after this many events (pings not counted; 0: before the first, the run still started); null: never. */
  cutStreamAfter: number | null;
  /** Make every `remote_url` fetch fail, so submissions naming one are rejected. */
  failRemoteFetch: boolean;
  /** How long a `remote_url` fetch may take before it counts as failed. */
  remoteFetchTimeoutMs: number;
  /** Keep-alive interval of event streams (a bare `event: ping`); the real service pings every 10 s. */
  pingIntervalMs: number;
  /**
   * How long an event stream of a run stays open without an event (pings not counted) before the
   * service closes it: the real service gives up after 300 s (`_topic_msg_generator`'s
   * `idle_timeout`), so a form that waits longer than that loses its stream and must reconnect.
   */
  streamIdleTimeoutMs: number;
  /**
   * What `POST /audio-to-text` answers for audio that carries no transcript tag of its own (the
   * service's own speech does): the words QA says the recording holds; null: `""`, no speech.
   */
  transcript: string | null;
}

export const DEFAULT_QA_SETTINGS: QaSettings = {
  latencyMs: 0,
  cutStreamAfter: null,
  failRemoteFetch: false,
  remoteFetchTimeoutMs: 5000,
  pingIntervalMs: 10_000,
  streamIdleTimeoutMs: 300_000,
  transcript: null,
};

export class QaControls {
  settings: QaSettings;
  /** Cuts that apply to the streams of one run only: run id → events before the cut. */
  readonly #runCuts = new Map<string, number>();

  constructor(initial: Partial<QaSettings> = {}) {
    this.settings = { ...DEFAULT_QA_SETTINGS, ...initial };
  }

  /** Events a new stream of `runId` may carry before it is cut, or undefined for no cut. */
  cutFor(runId: string | undefined): number | undefined {
    const own = runId ? this.#runCuts.get(runId) : undefined;
    return own ?? this.settings.cutStreamAfter ?? undefined;
  }

  cutRun(runId: string, after: number | null): void {
    if (after === null) this.#runCuts.delete(runId);
    else this.#runCuts.set(runId, after);
  }

  get runCuts(): Record<string, number> {
    return Object.fromEntries(this.#runCuts);
  }

  reset(initial: QaSettings): void {
    this.settings = { ...initial };
    this.#runCuts.clear();
  }
}
