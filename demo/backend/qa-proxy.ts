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
 * "Cut the next stream" is built from the service's stream cut, which applies to every stream
 * opened while it is set: the proxy sets it, and clears it once the next stream has opened. A cut
 * that stayed would also cut the element's reconnection, whose state snapshot replays the run
 * from its start, so it could never catch up.
 */
import { NO_STORE, problem } from './http.js';

const SEGMENT = /^[A-Za-z0-9_-]{1,128}$/;

export const SERVICE_ADMIN_PATH = '/_qa';

export interface QaProxy {
  /** Handles `/api/qa…`; `rest` is the path after `/api/qa`. */
  handle(request: Request, rest: string): Promise<Response>;
  /** Called by the host backend each time the relay has opened a run stream upstream. */
  streamOpened(): Promise<void>;
}

export function createQaProxy(serviceOrigin: string): QaProxy {
  // The cut setting to restore once the next stream has opened, while a one-off cut is armed.
  let armed: { restore: number | null } | undefined;

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
      const restore = armed ? armed.restore : ((await settings()).cutStreamAfter as number | null);
      const answer = await pass(await admin('PATCH', '/settings', JSON.stringify({ cutStreamAfter: body.after })));
      if (answer.ok) armed = { restore };
      return answer;
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
    async streamOpened() {
      if (!armed) return;
      const { restore } = armed;
      armed = undefined;
      await admin('PATCH', '/settings', JSON.stringify({ cutStreamAfter: restore })).catch(() => undefined);
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
