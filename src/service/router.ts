/** A small method + path table for the service's fetch handler. */
import { ApiError, METHOD_NOT_ALLOWED_TEXT, NOT_FOUND_TEXT } from './errors.js';

export type Params = Record<string, string>;
export type Handler<C> = (request: Request, params: Params, url: URL, context: C) => Promise<Response> | Response;

interface Route<C> {
  method: string;
  pattern: RegExp;
  handler: Handler<C>;
}

export class Router<C> {
  readonly #routes: Route<C>[] = [];

  /** `path` uses `:name` for one path segment, e.g. `/form/human_input/:token`. */
  on(method: string, path: string, handler: Handler<C>): this {
    const pattern = new RegExp(`^${path.replace(/:([a-zA-Z_]+)/g, '(?<$1>[^/]+)')}/?$`);
    this.#routes.push({ method, pattern, handler });
    return this;
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
