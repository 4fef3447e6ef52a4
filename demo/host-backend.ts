/**
 * The sample host backend: what a customer's server does to embed the elements. It decides who
 * the user is with its own authentication (here, a demo cookie), answers the elements'
 * `session-url`, and mounts one relay per app. With no `UPSTREAM_URL` it also starts the
 * embedded service, serves every app of its fixture, and passes the QA page's controls on to the
 * service's loopback-only admin endpoint.
 *
 *   POST /api/session[?app=<id>]   the session grant `{token, expires_at, relay_url}` for an app
 *   *    /api/relay/<id>/…         that app's relay (the upstream's own paths)
 *   GET  /api/apps                 the apps the QA page offers, with their run inputs
 *   *    /api/qa/…                 the embedded service's QA controls (embedded service, loopback callers)
 */
import { getRequestListener } from '@hono/node-server';
import { randomBytes } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { createRelay } from '../src/relay/index.js';
import { toNodeListener, type NodeListener } from '../src/relay/node.js';
import { loadFixture } from '../src/service/fixture.js';
import { isLoopback } from '../src/service/qa/routes.js';
import { startService, type RunningService } from '../src/service/server.js';
import { NO_STORE, problem } from './backend/http.js';
import { createQaProxy, type QaProxy } from './backend/qa-proxy.js';
import { API_PATH, APPS_PATH, QA_PATH, RELAY_PATH, SESSION_PATH, USER_COOKIE, USER_PATTERN, type AppsAnswer, type DemoApp, type UserInputControl } from './qa/contract.js';

export { RELAY_PATH, SESSION_PATH, USER_COOKIE, type AppsAnswer, type DemoApp } from './qa/contract.js';

export interface HostBackendOptions {
  /** A real deployment's API base; when absent the embedded service is started. */
  upstreamUrl?: string;
  /**
   * With `upstreamUrl`: that deployment's app key. With the embedded service: the key of the app
   * `/api/session` serves when no `app` is asked for (default `app-demo-workflow`).
   */
  apiKey?: string;
  /** Port of the embedded service; 0 picks a free one. */
  servicePort?: number;
  fixturePath?: string;
  /** Keep-alive interval of the embedded service's streams. */
  pingIntervalMs?: number;
  /**
   * A Redis (`redis://…`) for the relays' shared state (`REDIS_URL`), as several instances of
   * this backend behind a load balancer would need; default each relay's own memory.
   */
  redisUrl?: string;
}

export interface HostBackend {
  /** Handles `/api/…`; answers `false` for anything else. */
  handle(req: IncomingMessage, res: ServerResponse): boolean;
  readonly upstreamUrl: string;
  readonly service: RunningService | undefined;
  close(): Promise<void>;
}

const DEFAULT_APP_KEY = 'app-demo-workflow';
const UPSTREAM_APP_ID = 'app';
const QA_UNAVAILABLE = 'The QA controls drive the embedded service; this demo talks to a real deployment (UPSTREAM_URL).';

interface MountedApp {
  id: string;
  key: string;
  name: string;
  mode: string;
  relayListener: NodeListener;
  session: (request: Request) => Promise<Response>;
}

export async function createHostBackend(options: HostBackendOptions = {}): Promise<HostBackend> {
  let service: RunningService | undefined;
  let upstreamUrl = options.upstreamUrl;
  let appList: { id: string; key: string; name: string; mode: string }[];
  if (upstreamUrl) {
    if (!options.apiKey) throw new Error('An upstream deployment needs its app key (APP_API_KEY).');
    appList = [{ id: UPSTREAM_APP_ID, key: options.apiKey, name: '', mode: '' }];
  } else {
    const fixture = await loadFixture(options.fixturePath);
    service = await startService({ fixture, port: options.servicePort ?? 5001, pingIntervalMs: options.pingIntervalMs });
    upstreamUrl = service.url;
    appList = fixture.apps.map((a) => ({ id: a.id, key: a.key, name: a.name, mode: a.mode }));
  }
  const upstream = upstreamUrl.replace(/\/$/, '');
  // A real backend keeps its secret in configuration; the demo makes one per start. Each relay
  // binds its sessions to its own app, so a session of one app is refused by another's relay.
  const secret = process.env.RELAY_SECRET ?? randomBytes(32).toString('base64url');
  const qa: QaProxy | undefined = service ? createQaProxy(new URL(service.url).origin) : undefined;
  // One store serves every app's relay: their keys carry the app.
  const store = options.redisUrl ? (await import('../src/relay/redis.js')).createRedisStore({ url: options.redisUrl }) : undefined;
  const apps: MountedApp[] = appList.map((a) => {
    // A QA person reloads, switches apps and users all day: session grants get a roomy limit here.
    const relay = createRelay({
      upstreamUrl: upstream,
      apiKey: a.key,
      secret,
      app: a.id,
      basePath: `${RELAY_PATH}/${encodeURIComponent(a.id)}`,
      sessionRateLimit: { requests: 600, windowSeconds: 60 },
      store,
    });
    const observed = {
      async fetch(request: Request) {
        return qa!.observe(await relay.fetch(request));
      },
    };
    // The demo's "authentication": the user named by its cookie.
    const session = relay.sessionHandler((request) => userFromCookie(request.headers.get('cookie')));
    return { ...a, relayListener: toNodeListener(qa ? observed : relay), session };
  });
  const wanted = options.upstreamUrl ? options.apiKey : (options.apiKey ?? DEFAULT_APP_KEY);
  const defaultApp = apps.find((a) => a.key === wanted) ?? apps.find((a) => a.mode === 'workflow') ?? apps[0]!;
  const byId = new Map(apps.map((a) => [encodeURIComponent(a.id), a]));

  let described: Promise<AppsAnswer> | undefined;
  const describe = (): Promise<AppsAnswer> => {
    described ??= describeApps(upstream, apps, defaultApp, Boolean(service)).catch((error: unknown) => {
      described = undefined;
      throw error;
    });
    return described;
  };

  const listener = getRequestListener(async (request) => {
    const url = new URL(request.url);
    const path = url.pathname;
    if (path === SESSION_PATH) {
      const asked = url.searchParams.get('app');
      const app = asked === null ? defaultApp : byId.get(encodeURIComponent(asked));
      if (!app) return problem(404, 'not_found', `No app "${asked}" here; GET ${APPS_PATH} lists them.`);
      return app.session(request);
    }
    if (path === APPS_PATH) {
      if (request.method !== 'GET') return problem(405, 'method_not_allowed', 'Use GET.');
      return Response.json(await describe(), { headers: NO_STORE });
    }
    if (path === QA_PATH || path.startsWith(`${QA_PATH}/`)) {
      if (!qa) return problem(404, 'not_found', QA_UNAVAILABLE);
      // Only the QA page itself may change them: another site open in the QA person's browser
      // (also on loopback) must not reset the service or slow it down.
      const site = request.headers.get('sec-fetch-site');
      const origin = request.headers.get('origin');
      if (request.method !== 'GET' && ((site && site !== 'same-origin' && site !== 'none') || (origin && origin !== url.origin))) {
        return problem(403, 'forbidden', 'The QA controls answer the QA page only (same origin).');
      }
      return qa.handle(request, path.slice(QA_PATH.length));
    }
    return problem(404, 'not_found', 'No such route.');
  });

  return {
    upstreamUrl: upstream,
    service,
    handle(req, res) {
      // The path the routes will see: dot segments resolved (`/api/x/../qa` is `/api/qa`).
      const path = new URL(req.url ?? '/', 'http://host').pathname;
      if (path !== API_PATH && !path.startsWith(`${API_PATH}/`)) return false;
      if ((path === QA_PATH || path.startsWith(`${QA_PATH}/`)) && !isLoopback(req.socket.remoteAddress)) {
        // Like the service's own admin endpoint: a demo bound to a public address keeps them to itself.
        res.writeHead(403, { 'Content-Type': 'application/json', ...NO_STORE });
        res.end(JSON.stringify({ code: 'forbidden', message: 'The QA controls answer loopback callers only.', status: 403 }));
        return true;
      }
      const relayed = path.startsWith(`${RELAY_PATH}/`) ? byId.get(path.slice(RELAY_PATH.length + 1).split('/')[0]!) : undefined;
      void (relayed ? relayed.relayListener(req, res) : listener(req, res));
      return true;
    },
    close: async () => {
      await service?.close();
      await store?.close();
    },
  };
}

/** What `/api/apps` answers: each app's name and mode (`/info`) and run inputs (`/parameters`), asked upstream with its key. */
async function describeApps(upstream: string, apps: MountedApp[], defaultApp: MountedApp, embedded: boolean): Promise<AppsAnswer> {
  const described = await Promise.all(
    apps.map(async (app): Promise<DemoApp> => {
      const [info, parameters] = await Promise.all([upstreamJson(upstream, app.key, '/info'), upstreamJson(upstream, app.key, '/parameters')]);
      return {
        id: app.id,
        name: (typeof info?.name === 'string' && info.name) || app.name || 'Configured app',
        mode: (typeof info?.mode === 'string' && info.mode) || app.mode,
        user_input_form: Array.isArray(parameters?.user_input_form) ? (parameters.user_input_form as UserInputControl[]) : [],
      };
    }),
  );
  return {
    upstream: embedded ? 'embedded' : 'upstream',
    qa: embedded,
    ...(embedded ? {} : { qa_unavailable: QA_UNAVAILABLE }),
    default_app: defaultApp.id,
    apps: described,
  };
}

async function upstreamJson(upstream: string, key: string, path: string): Promise<Record<string, unknown> | undefined> {
  try {
    const answer = await fetch(upstream + path, { headers: { Authorization: `Bearer ${key}` }, signal: AbortSignal.timeout(5_000) });
    if (!answer.ok) return undefined;
    const body: unknown = await answer.json();
    return typeof body === 'object' && body !== null ? (body as Record<string, unknown>) : undefined;
  } catch {
    return undefined;
  }
}

function userFromCookie(cookie: string | null): string {
  const match = cookie?.split(/;\s*/).find((c) => c.startsWith(`${USER_COOKIE}=`));
  const value = match ? decodeURIComponent(match.slice(USER_COOKIE.length + 1)) : '';
  return USER_PATTERN.test(value) ? value : 'demo-user';
}
