/**
 * CORS for pages on other origins that reach the relay directly (a `relay_url` on another host).
 * Off unless origins are listed: a relay mounted on the page's own origin needs none of it.
 * The session travels in the `Authorization` header, not a cookie, so credentials are off unless
 * asked for.
 */
export interface CorsOptions {
  /** Origins allowed to call the relay, e.g. `['https://shop.example.com']`, `'*'` for any, or a predicate. */
  origins: readonly string[] | '*' | ((origin: string) => boolean);
  /** Send `Access-Control-Allow-Credentials: true` (cookies on the relay); never with `'*'`. Default false. */
  credentials?: boolean;
  /** How long a browser may cache a preflight answer; default 600 seconds. */
  maxAgeSeconds?: number;
}

export type CorsVerdict =
  /** No `Origin`, or CORS is not configured: nothing to add. */
  | { kind: 'none' }
  | { kind: 'allowed'; headers: Headers }
  | { kind: 'denied'; headers: Headers };

const ALLOWED_METHODS = 'GET, POST, PUT, DELETE';
const ALLOWED_HEADERS = 'Authorization, Content-Type, Accept, Accept-Language, Last-Event-ID, Idempotency-Key';
const EXPOSED_HEADERS = 'Content-Disposition, Retry-After, WWW-Authenticate';

export class CorsPolicy {
  readonly #options: CorsOptions | undefined;
  readonly #origins: Set<string> | undefined;

  constructor(options: CorsOptions | undefined) {
    if (options?.origins === '*' && options.credentials) throw new Error("CORS credentials cannot be allowed for every origin ('*').");
    this.#options = options;
    if (options && Array.isArray(options.origins)) {
      this.#origins = new Set(options.origins.map((o) => normalizeOrigin(o)));
    }
  }

  get enabled(): boolean {
    return this.#options !== undefined;
  }

  /** What to answer a request with this `Origin`; a same-origin request is always allowed. */
  check(request: Request): CorsVerdict {
    const options = this.#options;
    const origin = request.headers.get('origin');
    if (!options || origin === null) return { kind: 'none' };
    const headers = new Headers({ Vary: 'Origin' });
    if (!this.#allows(origin, request)) return { kind: 'denied', headers };
    headers.set('Access-Control-Allow-Origin', options.origins === '*' ? '*' : origin);
    if (options.credentials) headers.set('Access-Control-Allow-Credentials', 'true');
    headers.set('Access-Control-Expose-Headers', EXPOSED_HEADERS);
    return { kind: 'allowed', headers };
  }

  /** The preflight answer's extra headers, for an allowed origin. */
  preflightHeaders(allowed: Headers): Headers {
    const headers = new Headers(allowed);
    headers.delete('Access-Control-Expose-Headers');
    headers.set('Access-Control-Allow-Methods', ALLOWED_METHODS);
    headers.set('Access-Control-Allow-Headers', ALLOWED_HEADERS);
    headers.set('Access-Control-Max-Age', String(this.#options?.maxAgeSeconds ?? 600));
    headers.append('Vary', 'Access-Control-Request-Method, Access-Control-Request-Headers');
    return headers;
  }

  #allows(origin: string, request: Request): boolean {
    const options = this.#options!;
    if (origin === new URL(request.url).origin) return true;
    if (options.origins === '*') return true;
    if (typeof options.origins === 'function') return options.origins(origin);
    return this.#origins!.has(normalizeOrigin(origin));
  }
}

/** `https://Example.com:443/` and `https://example.com` name the same origin. */
function normalizeOrigin(origin: string): string {
  try {
    const url = new URL(origin);
    return url.origin === 'null' ? origin : url.origin;
  } catch {
    return origin;
  }
}
