/**
 * The sample host backend: what a customer's server does to embed the elements. It decides who
 * the user is with its own authentication (here, a demo cookie), answers the elements'
 * `session-url`, and mounts the relay. With no `UPSTREAM_URL` it also starts the embedded service.
 */
import { getRequestListener } from '@hono/node-server';
import { randomBytes } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { createRelay } from '../src/relay/index.js';
import { toNodeListener } from '../src/relay/node.js';
import { loadFixture } from '../src/service/fixture.js';
import { startService, type RunningService } from '../src/service/server.js';

export interface HostBackendOptions {
  /** A real deployment's API base; when absent the embedded service is started. */
  upstreamUrl?: string;
  /** The app's key; default `app-demo-workflow` (embedded service). */
  apiKey?: string;
  /** Port of the embedded service; 0 picks a free one. */
  servicePort?: number;
  fixturePath?: string;
  /** Keep-alive interval of the embedded service's streams. */
  pingIntervalMs?: number;
}

export interface HostBackend {
  /** Handles `/api/session` and `/api/relay/*`; answers `false` for anything else. */
  handle(req: IncomingMessage, res: ServerResponse): boolean;
  readonly upstreamUrl: string;
  readonly service: RunningService | undefined;
  close(): Promise<void>;
}

export const RELAY_PATH = '/api/relay';
export const SESSION_PATH = '/api/session';
/** The demo's stand-in for a real login: the user's id in a cookie. */
export const USER_COOKIE = 'demo_user';

export async function createHostBackend(options: HostBackendOptions = {}): Promise<HostBackend> {
  let service: RunningService | undefined;
  let upstreamUrl = options.upstreamUrl;
  if (!upstreamUrl) {
    const fixture = await loadFixture(options.fixturePath);
    service = await startService({ fixture, port: options.servicePort ?? 5001, pingIntervalMs: options.pingIntervalMs });
    upstreamUrl = service.url;
  }
  const relay = createRelay({
    upstreamUrl,
    apiKey: options.apiKey ?? 'app-demo-workflow',
    // A real backend keeps its secret in configuration; the demo makes one per start.
    secret: process.env.RELAY_SECRET ?? randomBytes(32).toString('base64url'),
    basePath: RELAY_PATH,
  });
  const relayListener = toNodeListener(relay);
  const sessionListener = getRequestListener((request) => {
    if (request.method !== 'POST') {
      return Response.json({ code: 'method_not_allowed', message: 'Use POST.', status: 405 }, { status: 405 });
    }
    return relay.sessionResponse({ user: userFromCookie(request.headers.get('cookie')) });
  });

  return {
    upstreamUrl,
    service,
    handle(req, res) {
      const path = (req.url ?? '/').split('?')[0]!;
      if (path === SESSION_PATH) {
        void sessionListener(req, res);
        return true;
      }
      if (path.startsWith(`${RELAY_PATH}/`)) {
        void relayListener(req, res);
        return true;
      }
      return false;
    },
    close: async () => {
      await service?.close();
    },
  };
}

function userFromCookie(cookie: string | null): string {
  const match = cookie?.split(/;\s*/).find((c) => c.startsWith(`${USER_COOKIE}=`));
  const value = match ? decodeURIComponent(match.slice(USER_COOKIE.length + 1)) : '';
  return /^[\w.@-]{1,64}$/.test(value) ? value : 'demo-user';
}
