/** Mounts the relay (or any fetch handler) in Node's http server, Express or Connect. */
import { getRequestListener } from '@hono/node-server';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Relay } from './relay.js';

export type NodeListener = (req: IncomingMessage, res: ServerResponse) => Promise<void>;

/** A `(req, res)` listener for the relay's proxy, streaming both ways. */
export function toNodeListener(handler: Pick<Relay, 'fetch'>): NodeListener {
  return getRequestListener((request) => handler.fetch(request)) as NodeListener;
}
