/** A small method + path table for the service's fetch handler. */
import { pathPattern } from '../protocol/operations.js';
import { ApiError, METHOD_NOT_ALLOWED_TEXT, NOT_FOUND_TEXT } from './errors.js';

export type Params = Record<string, string>;
export type Handler<C> = (request: Request, params: Params, url: URL, context: C) => Promise<Response> | Response;

/** A method and a path with `{name}` parameters: an operation of the table, or a QA route. */
export interface RouteKey {
  readonly method: string;
  readonly path: string;
}

interface Route<C> extends RouteKey {
  pattern: RegExp;
  handler: Handler<C>;
}

export class Router<C> {
  readonly #routes: Route<C>[] = [];

  /**
   * Serves `route` (API routes pass their operation: `router.on(OPERATIONS.getSite, …)`); `{name}`
   * matches one path segment, or what `typed[name]` matches (a pattern, as werkzeug's `<uuid:…>`
   * converter: a path whose segment does not fit matches another route, or none).
   */
  on(route: RouteKey, handler: Handler<C>, typed?: Readonly<Record<string, string>>): this {
    this.#routes.push({ method: route.method, path: route.path, pattern: pathPattern(route.path, '[^/]+', true, typed), handler });
    return this;
  }

  /** What this router serves, in the order it tries them. */
  get routes(): RouteKey[] {
    return this.#routes.map(({ method, path }) => ({ method, path }));
  }

  async handle(request: Request, path: string, url: URL, context: C): Promise<Response> {
    let pathMatched = false;
    for (const route of this.#routes) {
      const match = route.pattern.exec(path);
      if (!match) continue;
      pathMatched = true;
      if (route.method !== request.method) continue;
      const params = Object.fromEntries(
        Object.entries(match.groups ?? {}).map(([k, v]) => [k, safeDecode(v)]),
      );
      return route.handler(request, params, url, context);
    }
    if (pathMatched) throw new ApiError(405, 'method_not_allowed', METHOD_NOT_ALLOWED_TEXT);
    throw new ApiError(404, 'not_found', NOT_FOUND_TEXT);
  }
}

function safeDecode(segment: string): string {
  try {
    return decodeURIComponent(segment);
  } catch {
    return segment;
  }
}
