/** The one error every client operation throws for a non-2xx answer or a network failure. */
import { isErrorBody, type ErrorBody } from '../protocol/index.js';

export class ServiceError extends Error implements ErrorBody {
  readonly code: string;
  readonly status: number;
  readonly params?: string;

  constructor(body: ErrorBody) {
    super(body.message);
    this.name = 'ServiceError';
    this.code = body.code;
    this.status = body.status;
    if (body.params) this.params = body.params;
  }

  toJSON(): ErrorBody {
    return { code: this.code, message: this.message, status: this.status, ...(this.params ? { params: this.params } : {}) };
  }

  /** Turns a non-2xx response into a `ServiceError`, whatever its body. */
  static async fromResponse(response: Response): Promise<ServiceError> {
    const text = await response.text().catch(() => '');
    let body: unknown;
    try {
      body = JSON.parse(text);
    } catch {
      body = undefined;
    }
    if (isErrorBody(body)) return new ServiceError(body);
    return new ServiceError({
      code: response.status >= 500 ? 'internal_server_error' : 'unknown',
      message: text.slice(0, 200) || response.statusText || `HTTP ${response.status}`,
      status: response.status,
    });
  }
}

/** A request that never got an answer (offline, DNS, connection refused). */
export function networkError(error: unknown): ServiceError {
  return new ServiceError({
    code: 'upstream_unavailable',
    message: `The service could not be reached (${error instanceof Error ? error.message : String(error)}).`,
    status: 0,
  });
}
