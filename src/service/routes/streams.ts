/** Serving a run's topic: as an event stream (with QA cuts), or awaited for a blocking answer. */
import type { RunEvent, RunEventName } from '../../protocol/index.js';
import type { ServiceContext } from '../context.js';
import type { RunTopic } from '../runs/topic.js';
import { eventStreamResponse } from '../sse-response.js';

/**
 * Whether `event` ends a stream that ends on `names`. A failed `workflow_finished` ends one too,
 * as Dify's terminal events do: a Chatflow's `error` after it reaches only streams that wait for
 * the `error` (its own start, or `/events` with `continue_on_pause`).
 */
export function endsStream(event: RunEvent, names: readonly RunEventName[]): boolean {
  return names.includes(event.event);
}

/** A live stream of `topic`; `start` runs once the subscription exists, so nothing is missed. */
export function liveStream(
  context: ServiceContext,
  topic: RunTopic,
  terminal: readonly RunEventName[],
  options: { runId?: string; initial?: RunEvent[]; start?: () => void } = {},
): Response {
  const response = eventStreamResponse({
    initial: options.initial,
    subscribe: (send) => topic.subscribe(send),
    isTerminal: (e) => endsStream(e, terminal),
    pingIntervalMs: context.qa.settings.pingIntervalMs,
    idleTimeoutMs: context.qa.settings.streamIdleTimeoutMs,
    cutAfter: context.qa.cutFor(options.runId),
  });
  options.start?.();
  return response;
}

/** Waits for the first terminal event, collecting what a blocking answer needs. */
export function untilTerminal(topic: RunTopic, terminal: readonly RunEventName[], start: () => void): Promise<RunEvent> {
  return new Promise((resolve) => {
    const detach = topic.subscribe((event) => {
      if (endsStream(event, terminal)) {
        detach();
        resolve(event);
      }
    });
    start();
  });
}
