/**
 * The checks every app route makes before its handler, in the real service's order (its
 * `validate_app_token` decorator, then the handler's first lines): path ids routed as UUIDs (else
 * 404), the app key (401), the JSON body where the operation carries `user` in it, `user` itself,
 * then the app modes the route serves (400 `not_chat_app`…). The knowledge side has its own
 * (`knowledge/route-kit.ts`): other keys, other checks.
 */
import type { AppMode, Operation } from '../../protocol/index.js';
import { authenticateApp } from '../auth.js';
import type { ServiceContext } from '../context.js';
import type { FixtureApp } from '../fixture.js';
import { readJsonObject, requireUser } from '../http.js';
import { optionalUser, requireMode, uuidParams, type ModeCode } from '../params.js';
import type { Params, Router } from '../router.js';
import { UUID_SEGMENT } from '../knowledge/route-kit.js';

export interface AppCall {
  request: Request;
  params: Params;
  url: URL;
  context: ServiceContext;
  app: FixtureApp;
  /** The end user, when the route reads one (`user` option); else `''`. */
  user: string;
  /** The JSON body, for operations that carry `user` in one; else empty. */
  body: Record<string, unknown>;
}

export interface AppRouteOptions {
  /** `required`: 400 without one; `optional`: the shared `DEFAULT-USER` without one. Omitted: not read here. */
  user?: 'required' | 'optional';
  /** The JSON body may be absent (a DELETE, a rename): read as `{}`. */
  optionalBody?: boolean;
  /** The app modes served, and the code refusing the others (default `not_chat_app`). */
  modes?: readonly AppMode[];
  modeCode?: ModeCode;
}

export type AppRoute = (operation: Operation, options: AppRouteOptions, handler: (call: AppCall) => Promise<Response> | Response) => void;

/** Path parameters the real routes declare as `<uuid:…>`: anything else is an unknown URL. */
const UUID_PARAMS = ['conversation_id', 'variable_id', 'message_id'];
/** The same, routed as werkzeug's converter does: a segment that is no (hyphenated) UUID matches no such route. */
const TYPED_UUID_PARAMS = ['annotation_id', 'job_id'];

export function appRoute(router: Router<ServiceContext>): AppRoute {
  return (operation, options, handler) => {
    const uuids = UUID_PARAMS.filter((name) => operation.path.includes(`{${name}}`));
    const typed = Object.fromEntries(TYPED_UUID_PARAMS.filter((name) => operation.path.includes(`{${name}}`)).map((name) => [name, UUID_SEGMENT]));
    router.on(operation, async (request, params, url, context) => {
      uuidParams(params, ...uuids);
      for (const name of Object.keys(typed)) params[name] = params[name]!.toLowerCase();
      const app = authenticateApp(request, context.fixture);
      const body = operation.user === 'json' ? await (options.optionalBody ? readOptionalJson(request) : readJsonObject(request)) : {};
      let user = '';
      if (options.user) {
        const given = operation.user === 'query' ? url.searchParams.get('user') : body.user;
        user = options.user === 'required' ? requireUser(given) : optionalUser(given);
      }
      if (options.modes) requireMode(app, options.modes, options.modeCode);
      return handler({ request, params, url, context, app, user, body });
    }, typed);
  };
}

/** A JSON body that may be absent (DELETE and rename accept none). */
export async function readOptionalJson(request: Request): Promise<Record<string, unknown>> {
  const length = request.headers.get('content-length');
  if (!request.body || length === '0') return {};
  return readJsonObject(request);
}
