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
 *   *    /api/qa/…                 the embedded service's QA controls (embedded service only)
 */
import { getRequestListener } from '@hono/node-server';
import { randomBytes } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { createRelay, type Relay } from '../src/relay/index.js';
import { toNodeListener, type NodeListener } from '../src/relay/node.js';
import { loadFixture } from '../src/service/fixture.js';
import { startService, type RunningService } from '../src/service/server.js';

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
}

/** An app as the QA page sees it: never its key. */
export interface DemoApp {
  /** The app's handle in `/api/session?app=` and `/api/relay/<id>/`. */
  id: string;
  name: string;
  mode: string;
  /** `GET /parameters`' `user_input_form`: the inputs a run (or a chat message) takes. */
  user_input_form: unknown[];
}

export interface AppsAnswer {
  /** `embedded`: the embedded service (QA controls available); `upstream`: a real deployment. */
  upstream: 'embedded' | 'upstream';
  /** The QA controls' availability; when `false`, `qa_unavailable` says why. */
  qa: boolean;
  qa_unavailable?: string;
  default_app: string;
  apps: DemoApp[];
}

export interface HostBackend {
  /** Handles `/api/…`; answers `false` for anything else. */
  handle(req: IncomingMessage, res: ServerResponse): boolean;
  readonly upstreamUrl: string;
  readonly service: RunningService | undefined;
  /** The apps and their relays' mount paths. */
  apps(): Promise<AppsAnswer>;
  close(): Promise<void>;
}

export const API_PATH = '/api';
export const RELAY_PATH = '/api/relay';
export const SESSION_PATH = '/api/session';
export const APPS_PATH = '/api/apps';
export const QA_PATH = '/api/qa';
/** The demo's stand-in for a real login: the user's id in a cookie. */
export const USER_COOKIE = 'demo_user';
/** The embedded service's QA admin endpoint, relative to its origin (loopback only). */
export const SERVICE_ADMIN_PATH = '/__qa';

const DEFAULT_APP_KEY = 'app-demo-workflow';
const UPSTREAM_APP_ID = 'app';
const NO_STORE = { 'Cache-Control': 'no-store' };

interface MountedApp {
  id: string;
  key: string;
  name: string;
  mode: string;
  relay: Relay;
  relayListener: NodeListener;
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
  const apps: MountedApp[] = appList.map((a) => {
    const relay = createRelay({ upstreamUrl: upstream, apiKey: a.key, secret, app: a.id, basePath: `${RELAY_PATH}/${encodeURIComponent(a.id)}` });
    return { ...a, relay, relayListener: toNodeListener(relay) };
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
      if (request.method !== 'POST') return problem(405, 'method_not_allowed', 'Use POST.');
      const asked = url.searchParams.get('app');
      const app = asked === null ? defaultApp : byId.get(encodeURIComponent(asked));
      if (!app) return problem(404, 'not_found', `No app "${asked}" here; GET ${APPS_PATH} lists them.`);
      return app.relay.sessionResponse({ user: userFromCookie(request.headers.get('cookie')) });
    }
    if (path === APPS_PATH) {
      if (request.method !== 'GET') return problem(405, 'method_not_allowed', 'Use GET.');
      return Response.json(await describe(), { headers: NO_STORE });
    }
    if (path === QA_PATH || path.startsWith(`${QA_PATH}/`)) {
      if (!service) return problem(404, 'not_found', 'QA controls exist only with the embedded service (UPSTREAM_URL is set).');
      return forwardToAdmin(request, service, path.slice(QA_PATH.length));
    }
    return problem(404, 'not_found', 'No such route.');
  });

  return {
    upstreamUrl: upstream,
    service,
    apps: describe,
    handle(req, res) {
      const path = (req.url ?? '/').split('?')[0]!;
      if (path !== API_PATH && !path.startsWith(`${API_PATH}/`)) return false;
      const relayed = path.startsWith(`${RELAY_PATH}/`) ? byId.get(path.slice(RELAY_PATH.length + 1).split('/')[0]!) : undefined;
      void (relayed ? relayed.relayListener(req, res) : listener(req, res));
      return true;
    },
    close: async () => {
      await service?.close();
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
        user_input_form: Array.isArray(parameters?.user_input_form) ? parameters.user_input_form : [],
      };
    }),
  );
  return {
    upstream: embedded ? 'embedded' : 'upstream',
    qa: embedded,
    ...(embedded ? {} : { qa_unavailable: 'The QA controls drive the embedded service; this demo talks to a real deployment (UPSTREAM_URL).' }),
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

/** Passes a QA control on to the embedded service's admin endpoint, which listens on loopback only. */
async function forwardToAdmin(request: Request, service: RunningService, rest: string): Promise<Response> {
  const target = new URL(SERVICE_ADMIN_PATH + rest, new URL(service.url).origin);
  target.search = new URL(request.url).search;
  const hasBody = request.method !== 'GET' && request.method !== 'HEAD';
  try {
    const answer = await fetch(target, {
      method: request.method,
      headers: { 'Content-Type': request.headers.get('content-type') ?? 'application/json' },
      body: hasBody ? await request.text() : undefined,
    });
    return new Response(answer.body, { status: answer.status, headers: { 'Content-Type': answer.headers.get('content-type') ?? 'application/json', ...NO_STORE } });
  } catch {
    return problem(502, 'upstream_unavailable', 'The embedded service could not be reached.');
  }
}

function problem(status: number, code: string, message: string): Response {
  return Response.json({ code, message, status }, { status, headers: NO_STORE });
}

function userFromCookie(cookie: string | null): string {
  const match = cookie?.split(/;\s*/).find((c) => c.startsWith(`${USER_COOKIE}=`));
  const value = match ? decodeURIComponent(match.slice(USER_COOKIE.length + 1)) : '';
  return /^[\w.@-]{1,64}$/.test(value) ? value : 'demo-user';
}
