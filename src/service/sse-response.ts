/**
 * A `text/event-stream` response fed by a run's topic: frames go out as they are published,
 * a bare `event: ping` keeps idle connections alive, a stream idle for too long is closed (as
 * the real service closes it), and a client that leaves unsubscribes.
 */
import { formatSseFrame, type RunEvent } from '../protocol/index.js';

export interface EventStreamSource {
  /** Frames to send before live ones (a snapshot, or the one `workflow_finished` of a done run). */
  initial?: RunEvent[];
  /** Attaches to live events; returns the detach function. Omit for a stream of `initial` only. */
  subscribe?: (send: (event: RunEvent) => void) => () => void;
  /** Whether an event ends the stream (sent first, then the stream closes). */
  isTerminal: (event: RunEvent) => boolean;
  pingIntervalMs: number;
  /** Close a live stream once this long passes without an event (pings not counted). */
  idleTimeoutMs?: number | undefined;
  /** QA: close the stream after this many events (pings not counted), as a dropped connection would. */
  cutAfter?: number | undefined;
}

const encoder = new TextEncoder();

export function eventStreamResponse(source: EventStreamSource): Response {
  let detach: (() => void) | undefined;
  let ping: ReturnType<typeof setInterval> | undefined;
  let idle: ReturnType<typeof setTimeout> | undefined;
  const stop = () => {
    detach?.();
    detach = undefined;
    clearInterval(ping);
    clearTimeout(idle);
  };
  const body = new ReadableStream<Uint8Array>({
    start(controller) {
      let open = true;
      let sent = 0;
      const close = () => {
        open = false;
        stop();
        controller.close();
      };
      // The real service's subscriber gives up after its idle timeout without a message; its
      // pings come from elsewhere and do not count.
      const stillWaiting = () => {
        clearTimeout(idle);
        if (source.idleTimeoutMs === undefined || !source.subscribe) return;
        idle = setTimeout(close, source.idleTimeoutMs);
        idle.unref?.();
      };
      const send = (event: RunEvent) => {
        if (!open) return;
        controller.enqueue(encoder.encode(formatSseFrame(event)));
        if (event.event !== 'ping') {
          sent += 1;
          stillWaiting();
        }
        if (source.isTerminal(event) || (source.cutAfter !== undefined && sent >= source.cutAfter)) close();
      };
      // A cut at 0 drops the stream before its first event (the run it opened goes on).
      if (source.cutAfter === 0) return controller.close();
      // Attach before anything is sent, so no event published from now on can be missed.
      if (source.subscribe) detach = source.subscribe(send);
      for (const event of source.initial ?? []) send(event);
      if (open && !source.subscribe) close();
      // A stream already closed (a terminal event first) starts no timers: nothing would clear them.
      if (!open) return;
      stillWaiting();
      ping = setInterval(() => send({ event: 'ping' }), source.pingIntervalMs);
      ping.unref?.();
    },
    cancel() {
      stop();
    },
  });
  return new Response(body, {
    status: 200,
    headers: {
      'Content-Type': 'text/event-stream; charset=utf-8',
      'Cache-Control': 'no-cache',
      Connection: 'keep-alive',
      'X-Accel-Buffering': 'no',
    },
  });
}
