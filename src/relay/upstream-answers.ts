/**
 * What the relay makes of the upstream's answers and failures, whichever transport carries them:
 * bodies passed on scrubbed (and how to hear when each ends, for its stream slot), a silent or
 * unreachable upstream answered in the relay's own words, breaks reported without ids or tokens.
 */
import { relayError } from './errors.js';
import type { MultipartError } from './multipart.js';
import type { KeyScrubber } from './redact.js';
import type { RelayLogEntry } from './relay.js';
import type { RelayRoute } from './routes.js';

/** Types a browser would run as a page: never what the API answers, so never passed on. */
export const DOCUMENT_TYPES = /^\s*(text\/html|application\/xhtml\+xml|image\/svg\+xml)\b/i;

/**
 * The upstream bodies the relay passes on, and how to hear when each ends: the stream slot rides
 * on the stream layer that is there anyway rather than wrapping the answer in one more.
 */
export const bodyEnds = new WeakMap<Response, (callback: () => void) => void>();

/**
 * `answer`, with `release` called once its body has ended, broken off or been cancelled, or the
 * browser has left (whichever comes first): a stream slot lives exactly as long as the stream.
 * Answers the relay made itself (errors, refusals) are complete already: released at once.
 */
export function releasingWhenDone(answer: Response, release: () => void, signal: AbortSignal): Response {
  const onEnd = bodyEnds.get(answer);
  if (!onEnd) {
    release();
    return answer;
  }
  signal.addEventListener('abort', release, { once: true });
  onEnd(release);
  return answer;
}

/** The answer to an upload the rewriter refused while it streamed. */
export function uploadRefusal(failure: MultipartError): Response {
  return relayError(failure.status, failure.status === 413 ? 'payload_too_large' : 'invalid_param', failure.message);
}

/** The code fetch (undici) puts on a failure's cause (`ECONNREFUSED`, `UND_ERR_BODY_TIMEOUT`…), if any. */
function causeCode(error: unknown): string | undefined {
  const code = (error as { cause?: { code?: unknown } } | null)?.cause?.code;
  return typeof code === 'string' ? code : undefined;
}

/** A short, secret-free reason for a failed upstream fetch (`ECONNREFUSED`, `timeout`…). */
export function failureReason(error: unknown): string {
  return causeCode(error) ?? (error instanceof Error ? error.name : 'unknown error');
}

/**
 * An upstream body as the browser gets it: scrubbed of the key (one stream layer over fetch's,
 * not one per job), and simply ending when the browser leaves: the client's abort also aborts the
 * upstream fetch, and that abort must not surface as a stream error (which Node servers log as a
 * failed response on every closed tab). An upstream that breaks off while the browser is still
 * there does surface, so the browser sees a broken stream rather than a clean end; the error is
 * the relay's own, naming the route template, so whatever the server logs holds no ids or tokens.
 */
export function scrubbedBody(
  body: ReadableStream<Uint8Array>,
  scrubber: KeyScrubber,
  signal: AbortSignal,
  route: string,
  silence: { ms: number; giveUp: (() => void) | undefined },
): { stream: ReadableStream<Uint8Array>; onEnd(callback: () => void): void } {
  const reader = body.getReader();
  let ended = false;
  let callback: (() => void) | undefined;
  const end = () => {
    if (ended) return;
    ended = true;
    callback?.();
  };
  const stream = new ReadableStream<Uint8Array>({
    async pull(controller) {
      try {
        for (;;) {
          // The upstream gone silent this long while the browser waits: the fetch is given up.
          const timer = silence.giveUp && setTimeout(silence.giveUp, silence.ms);
          const { done, value } = await reader.read().finally(() => clearTimeout(timer));
          if (done) {
            end();
            const rest = scrubber.flush();
            if (rest.length) controller.enqueue(rest);
            controller.close();
            return;
          }
          const out = scrubber.push(value);
          // A chunk that may end in the start of the key is held back until the next one.
          if (out.length) return controller.enqueue(out);
        }
      } catch (error) {
        end();
        if (signal.aborted) controller.close();
        else controller.error(brokeOff(route, error));
      }
    },
    cancel(reason) {
      end();
      return reader.cancel(reason);
    },
  });
  return {
    stream,
    onEnd(next) {
      callback = next;
      if (ended) next();
    },
  };
}

/** What Node's fetch waits on a silent upstream (undici's `headersTimeout` and `bodyTimeout`). */
export const UPSTREAM_TIMEOUT_MS = 300_000;

/** A silent upstream given up, as fetch reports it (so logs read the same with either transport). */
export function upstreamTimeout(code: 'UND_ERR_HEADERS_TIMEOUT' | 'UND_ERR_BODY_TIMEOUT'): Error {
  return Object.assign(new TypeError('fetch failed'), { cause: Object.assign(new Error('The upstream service went silent.'), { code }) });
}

export function isUpstreamTimeout(error: unknown): boolean {
  const code = causeCode(error);
  return code === 'UND_ERR_HEADERS_TIMEOUT' || code === 'UND_ERR_BODY_TIMEOUT';
}

/** The answer to a request that got no answer from upstream (logged): `504` when it went silent, else `502`. */
export function upstreamFailure(route: RelayRoute, error: unknown, log: (entry: RelayLogEntry) => void): Response {
  const timedOut = isUpstreamTimeout(error);
  log({ level: 'warn', code: 'upstream_unavailable', message: `The upstream service ${timedOut ? 'did not answer in time' : 'could not be reached'} for ${route.method} ${route.name} (${failureReason(error)}).` });
  return timedOut ? relayError(504, 'upstream_unavailable', 'The upstream service did not answer in time.') : relayError(502, 'upstream_unavailable', 'The upstream service could not be reached.');
}

/** The error a stream broken off upstream ends with: names the route template, never ids or tokens. */
export function brokeOff(route: string, error: unknown): Error {
  return new Error(`The upstream stream for ${route} broke off (${failureReason(error)}).`);
}

export function genericCode(status: number): 'upstream_unavailable' | 'unknown' {
  return status >= 500 ? 'upstream_unavailable' : 'unknown';
}
