/**
 * The QA page's controls, passed on to the embedded service's loopback-only admin endpoint
 * (`/_qa`, see README "QA: the embedded service"). Only the operations the page offers go
 * through, and the answers leave out what a browser has no business seeing (app keys, other
 * users' runs):
 *
 *   GET   /api/qa                           the fault settings
 *   PATCH /api/qa/settings                  latencyMs, failRemoteFetch, cutStreamAfter, …
 *   POST  /api/qa/cut-next-stream {after}   the next run stream opened closes after `after` events (0: before the first)
 *   POST  /api/qa/forms/<token|id>/expire   the form times out now (by id: a form answered by email has no token)
 *   POST  /api/qa/runs/<id>/fail            the run fails as on a provider error
 *   POST  /api/qa/reset                     the service forgets every run and form
 *
 * "Cut the next stream" drops the next event stream the host backend sends a browser, after
 * `after` events, here between the relay and the browser: the network a visitor's connection
 * actually loses. The relay behind it sees its browser go and, for a run start, reads on until it
 * has the run's id, so the element's retry follows that run (README "Starting a run at most
 * once"). The service's own `cutStreamAfter` setting (PATCH /settings) cuts upstream of the relay
 * instead, where a run whose first event never arrived cannot be followed. Only the next stream
 * is cut: a cut that stayed would also cut the element's reconnection, whose state snapshot
 * replays the run from its start, so it could never catch up.
 */
import { NO_STORE, problem } from './http.js';

const SEGMENT = /^[A-Za-z0-9_-]{1,128}$/;

export const SERVICE_ADMIN_PATH = '/_qa';

export interface QaProxy {
  /** Handles `/api/qa…`; `rest` is the path after `/api/qa`. */
  handle(request: Request, rest: string): Promise<Response>;
  /** Every answer the relay gives a browser passes here: the next event stream is cut when a cut is armed. */
  observe(response: Response): Response;
}

/** `body` passed on up to its `after`-th event (an SSE event ends with a blank line), then closed as a dropped connection would. */
function cutAfter(body: ReadableStream<Uint8Array>, after: number): ReadableStream<Uint8Array> {
  const reader = body.getReader();
  const decoder = new TextDecoder();
  const encoder = new TextEncoder();
  let seen = 0;
  let text = '';
  return new ReadableStream<Uint8Array>({
    async pull(controller) {
      if (seen >= after) {
        await reader.cancel();
        return controller.close();
      }
      const { done, value } = await reader.read();
      if (done) return controller.close();
      text += decoder.decode(value, { stream: true }).replace(/\r\n?/g, '\n');
      let end: number;
      while (seen < after && (end = text.indexOf('\n\n')) !== -1) {
        controller.enqueue(encoder.encode(text.slice(0, end + 2)));
        text = text.slice(end + 2);
        seen++;
      }
    },
    cancel: (reason) => reader.cancel(reason),
  });
}

export function createQaProxy(serviceOrigin: string): QaProxy {
  // A one-off cut of the next event stream, while armed.
  let armed: { after: number } | undefined;

  const admin = (method: string, path: string, body?: string) =>
    fetch(new URL(SERVICE_ADMIN_PATH + path, serviceOrigin), {
      method,
      headers: body === undefined ? {} : { 'Content-Type': 'application/json' },
      body,
    });

  async function settings(): Promise<Record<string, unknown>> {
    const state = (await (await admin('GET', '/state')).json()) as { settings: Record<string, unknown> };
    return state.settings;
  }

  async function route(request: Request, rest: string): Promise<Response> {
    const method = request.method;
    if (rest === '' && method === 'GET') return Response.json(await settings(), { headers: NO_STORE });
    if (rest === '/settings' && method === 'PATCH') {
      // The service validates the settings and answers malformed ones with its own 400.
      const answer = await pass(await admin('PATCH', '/settings', await request.text()));
      // A cut set by hand replaces a one-off cut still waiting for its stream.
      if (answer.ok) armed = undefined;
      return answer;
    }
    if (rest === '/cut-next-stream' && method === 'POST') {
      const body = await jsonBody(request);
      if (!body || !Number.isInteger(body.after) || (body.after as number) < 0) return problem(400, 'invalid_param', 'after must be an integer of at least 0.');
      armed = { after: body.after as number };
      return Response.json(await settings(), { headers: NO_STORE });
    }
    const expire = /^\/forms\/([^/]+)\/expire$/.exec(rest);
    if (expire && method === 'POST') {
      if (!SEGMENT.test(expire[1]!)) return problem(400, 'invalid_param', 'A form token or id is letters, digits, `-` or `_`.');
      return pass(await admin('POST', `/forms/${expire[1]}/expire`));
    }
    const fail = /^\/runs\/([^/]+)\/fail$/.exec(rest);
    if (fail && method === 'POST') {
      if (!SEGMENT.test(fail[1]!)) return problem(400, 'invalid_param', 'A run id is letters, digits, `-` or `_`.');
      return pass(await admin('POST', `/runs/${fail[1]}/fail`, '{}'));
    }
    if (rest === '/reset' && method === 'POST') {
      armed = undefined;
      return pass(await admin('POST', '/reset'));
    }
    return problem(404, 'not_found', 'No such QA control.');
  }

  return {
    async handle(request, rest) {
      try {
        return await route(request, rest);
      } catch {
        return problem(502, 'upstream_unavailable', 'The embedded service could not be reached.');
      }
    },
    observe(response) {
      if (!armed || !response.body || !response.headers.get('content-type')?.startsWith('text/event-stream')) return response;
      const { after } = armed;
      armed = undefined;
      return new Response(cutAfter(response.body, after), response);
    },
  };
}

/** The request's JSON object, or undefined when it is not one. */
async function jsonBody(request: Request): Promise<Record<string, unknown> | undefined> {
  try {
    const value: unknown = JSON.parse(await request.text());
    return typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as Record<string, unknown>) : undefined;
  } catch {
    return undefined;
  }
}

/** The admin endpoint's answer, re-sent with only its status and JSON body. */
async function pass(answer: Response): Promise<Response> {
  return new Response(await answer.text(), { status: answer.status, headers: { 'Content-Type': 'application/json', ...NO_STORE } });
}
