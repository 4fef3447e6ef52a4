/**
 * Mounting the relay and its session endpoint in Node's http server, Express or Connect: the
 * relay's web-standard handlers behind `(req, res)` listeners (through @hono/node-server), with
 * what those frameworks do to a request undone.
 */
import { getRequestListener } from '@hono/node-server';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { hardened, relayError } from './errors.js';
import { nodeRelayListener } from './node-pipe.js';
import { relayCore, type Relay } from './relay.js';
import type { SessionIdentity } from './session-endpoint.js';

export type NodeListener = (req: IncomingMessage, res: ServerResponse) => Promise<void>;

type FetchHandler = (request: Request) => Response | Promise<Response>;

/**
 * The host's authentication on Node: the user for a signed-in `req` (Express's `req.user`, a
 * cookie…), or `null`. `Req` is the request as the host's framework hands it (by default with the
 * `user` a login middleware such as Passport sets); name your own where it differs.
 */
export type NodeSessionAuthenticator<Req extends IncomingMessage = SignedInRequest> = (
  req: Req,
  asked: { runId?: string },
) => SessionIdentity | string | null | undefined | Promise<SessionIdentity | string | null | undefined>;

/** A Node request after a login middleware: `user` set when signed in (Passport's convention). */
export type SignedInRequest = IncomingMessage & { user?: { id?: string } };

type FrameworkRequest = IncomingMessage & { originalUrl?: string; _body?: boolean; body?: unknown; rawBody?: Buffer };

/**
 * A `(req, res)` listener for the relay (or any fetch handler), streaming both ways. Given the
 * relay itself (not its `fetch`), requests are piped straight through Node's streams
 * (node-pipe.ts) with the relay's own checks; what that path does not carry takes the fetch handler.
 */
export function toNodeListener(handler: Pick<Relay, 'fetch'> | FetchHandler): NodeListener {
  const handle: FetchHandler = typeof handler === 'function' ? handler : (request) => handler.fetch(request);
  const viaFetch = getRequestListener((request) => handle(request), { errorHandler: adapterError }) as NodeListener;
  const core = typeof handler === 'function' ? undefined : relayCore(handler);
  return adopting(core ? nodeRelayListener(core, viaFetch) : viaFetch);
}

/**
 * The session endpoint as a `(req, res)` listener, for hosts whose authentication lives on the
 * Node request (Express middleware, sessions): `app.post('/api/session', requireLogin,
 * toNodeSessionListener(relay, (req) => req.user?.id))`.
 */
export function toNodeSessionListener<Req extends IncomingMessage = SignedInRequest>(relay: Pick<Relay, 'sessionHandler'>, authenticate: NodeSessionAuthenticator<Req>): NodeListener {
  const listener = getRequestListener((request, env) => relay.sessionHandler((_request, asked) => authenticate(env.incoming as Req, asked))(request), { errorHandler: adapterError });
  return adopting(listener as NodeListener);
}

/**
 * What the adapter could not hand to the handler (a request it cannot make a web `Request` of:
 * a backslash in the path, a Host header that is no host), or a handler that threw: answered in
 * the relay's words, as data, rather than the adapter's bare status.
 */
function adapterError(error: unknown): Response {
  if (error instanceof Error && error.name === 'RequestError') return hardened(relayError(400, 'invalid_param', 'The request line or its Host header is malformed.'));
  console.error(error);
  return hardened(relayError(500, 'internal_server_error', 'The relay failed on this request.'));
}

function adopting(listener: NodeListener): NodeListener {
  return async (req: FrameworkRequest, res) => {
    const refusal = adopt(req);
    if (refusal) {
      res.writeHead(refusal.status, { 'Content-Type': 'application/json', 'Cache-Control': 'no-store', 'X-Content-Type-Options': 'nosniff' });
      res.end(JSON.stringify(refusal));
      return;
    }
    await listener(req, res);
  };
}

type Refusal = { code: 'internal_server_error' | 'invalid_param'; message: string; status: 500 | 400 };

/** Undoes what a framework did to `req` before the relay saw it; answers why not when it can't. */
function adopt(req: FrameworkRequest): Refusal | undefined {
  // Express and Connect strip the mount path from `req.url` under `app.use(path, …)`; the relay
  // matches on the full path (its `basePath`), which they keep in `originalUrl`.
  if (typeof req.originalUrl === 'string') req.url = req.originalUrl;
  // `_body` is body-parser 1's mark (Express 4); `readableDidRead` catches any consumer.
  if ((req._body === true || req.readableDidRead) && req.rawBody === undefined) {
    // A body parser ran first and consumed the stream. A parsed JSON body can be sent on as JSON
    // again (the relay rewrites it anyway); anything else is gone.
    if (req.body === undefined || !/\bjson\b/i.test(String(req.headers['content-type'] ?? ''))) {
      const message = 'A body parser consumed this request before the relay: mount the relay before express.urlencoded() and similar parsers.';
      return { code: 'internal_server_error', message, status: 500 };
    }
    try {
      req.rawBody = Buffer.from(JSON.stringify(req.body ?? {}));
    } catch {
      // A body nested too deep to serialize again (RangeError): a rejection here would be an
      // unhandled one under Express 4, which ends the process.
      return { code: 'invalid_param', message: 'The JSON body nests too deeply.', status: 400 };
    }
  }
  return undefined;
}
