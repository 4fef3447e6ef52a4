/**
 * Server-sent events on the wire (dify-wire.md §4.1): one JSON object per `data:` frame, and a
 * bare `event: ping` keep-alive. Parsing uses the line and message parser of
 * @microsoft/fetch-event-source, which the elements ship anyway, so browsers carry one parser;
 * `#sse-parse` picks its CommonJS build on Node and its ES module build elsewhere.
 */
import { getLines, getMessages } from '#sse-parse';
import type { RunEvent } from './events.js';

/** A frame as an SSE parser hands it over. */
export interface SseMessage {
  event?: string | undefined;
  data: string;
}

/**
 * The run event a frame carries, or `undefined` for a frame that is not one (an empty or
 * non-JSON data line). A bare `event: ping` frame becomes `{ event: 'ping' }`.
 */
export function toRunEvent(message: SseMessage): RunEvent | undefined {
  if (message.event === 'ping' && !message.data) return { event: 'ping' };
  if (!message.data) return undefined;
  let parsed: unknown;
  try {
    parsed = JSON.parse(message.data);
  } catch {
    return undefined;
  }
  if (typeof parsed !== 'object' || parsed === null || typeof (parsed as { event?: unknown }).event !== 'string') {
    return undefined;
  }
  return parsed as RunEvent;
}

/**
 * A push parser: feed it the bytes of a `text/event-stream` as they arrive, and it calls
 * `onEvent` with each run event (`ping` keep-alives included) as soon as its frame is complete.
 */
export function runEventFeed(onEvent: (event: RunEvent) => void): (chunk: Uint8Array) => void {
  return getLines(
    getMessages(
      () => undefined,
      () => undefined,
      (message) => {
        const event = toRunEvent(message);
        if (event) onEvent(event);
      },
    ),
  );
}

/** Reads a `text/event-stream` body as typed run events, `ping` keep-alives included. */
export async function* readRunEvents(body: ReadableStream<Uint8Array>): AsyncGenerator<RunEvent, void, undefined> {
  const queue: RunEvent[] = [];
  const feed = runEventFeed((event) => queue.push(event));
  const reader = body.getReader();
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      feed(value);
      while (queue.length) yield queue.shift()!;
    }
    // A stream may end without the blank line after its last frame.
    feed(new Uint8Array([10, 10]));
    while (queue.length) yield queue.shift()!;
  } finally {
    await reader.cancel().catch(() => undefined);
    reader.releaseLock();
  }
}

/** The bytes of one frame, as the real service writes them. */
export function formatSseFrame(event: RunEvent): string {
  if (event.event === 'ping') return 'event: ping\n\n';
  return `data: ${JSON.stringify(event)}\n\n`;
}
