/**
 * The HTTP plumbing shared by the app and knowledge clients: base URL, bearer credential (an API
 * key on a server, a relay session token in a browser), JSON in and out, errors as ServiceError.
 */
import { readRunEvents, type RunEvent } from '../protocol/index.js';
import { networkError, ServiceError } from './errors.js';

/** A fixed credential, or a function that yields a fresh one (e.g. a refreshed session token). */
export type Credential = string | (() => string | Promise<string>);

export interface TransportOptions {
  /** API base, e.g. `https://api.dify.ai/v1`, or a relay URL. */
  baseUrl: string;
  /** API key, or relay session token. */
  credential: Credential;
  fetch?: typeof fetch;
}

export type Query = Record<string, string | number | boolean | undefined | null>;

export interface RequestOptions {
  query?: Query;
  json?: unknown;
  body?: RequestInit['body'];
  signal?: AbortSignal;
  headers?: Record<string, string>;
}

/** What a request will be, for callers that drive `fetch` themselves (e.g. an SSE library). */
export interface PreparedRequest {
  url: string;
  init: RequestInit & { headers: Record<string, string> };
}

export class Transport {
  readonly #options: TransportOptions;

  constructor(options: TransportOptions) {
    this.#options = options;
  }

  /** The API base this transport sends to. */
  get baseUrl(): string {
    return this.#options.baseUrl;
  }

  async prepare(method: string, path: string, options: RequestOptions = {}): Promise<PreparedRequest> {
    const base = this.#options.baseUrl.replace(/\/$/, '');
    // In a browser a relative base (e.g. `/api/relay`) resolves against the page.
    const url = new URL(base + path, (globalThis as { location?: { href: string } }).location?.href);
    for (const [key, value] of Object.entries(options.query ?? {})) {
      if (value !== undefined && value !== null) url.searchParams.set(key, String(value));
    }
    const credential = this.#options.credential;
    const token = typeof credential === 'function' ? await credential() : credential;
    const headers: Record<string, string> = { Authorization: `Bearer ${token}`, ...options.headers };
    let body = options.body;
    if (options.json !== undefined) {
      headers['Content-Type'] = 'application/json';
      body = JSON.stringify(options.json);
    }
    return { url: url.href, init: { method, headers, body, signal: options.signal } };
  }

  /** Sends a request; a non-2xx answer throws `ServiceError`. */
  async send(method: string, path: string, options: RequestOptions = {}): Promise<Response> {
    const { url, init } = await this.prepare(method, path, options);
    const doFetch = this.#options.fetch ?? globalThis.fetch.bind(globalThis);
    let response: Response;
    try {
      response = await doFetch(url, init);
    } catch (error) {
      if (options.signal?.aborted) throw error;
      throw networkError(error);
    }
    if (!response.ok) throw await ServiceError.fromResponse(response);
    return response;
  }

  async json<T>(method: string, path: string, options: RequestOptions = {}): Promise<T> {
    const response = await this.send(method, path, options);
    if (response.status === 204) return undefined as T;
    const text = await response.text();
    return (text ? JSON.parse(text) : undefined) as T;
  }

  /** A run stream as typed events; ends when the server closes the stream. */
  async *events(method: string, path: string, options: RequestOptions = {}): AsyncGenerator<RunEvent, void, undefined> {
    const response = await this.send(method, path, { ...options, headers: { Accept: 'text/event-stream', ...options.headers } });
    if (!response.body) return;
    yield* readRunEvents(response.body);
  }
}
