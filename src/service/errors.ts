/** Errors the service answers with, in the `{code, message, status}` shape of the real service. */
import type { ErrorBody, ErrorCode } from '../protocol/index.js';

/** Thrown anywhere in a request's handling; the router turns it into the error response. */
export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly code: ErrorCode,
    message: string,
    readonly headers: Record<string, string> = {},
  ) {
    super(message);
    this.name = 'ApiError';
  }

  toBody(): ErrorBody {
    return { code: this.code, message: this.message, status: this.status };
  }
}

/** werkzeug's texts, which the real service answers with for unknown routes and methods. */
export const NOT_FOUND_TEXT =
  'The requested URL was not found on the server. If you entered the URL manually please check your spelling and try again.';
export const METHOD_NOT_ALLOWED_TEXT = 'The method is not allowed for the requested URL.';

export const badParam = (message: string) => new ApiError(400, 'invalid_param', message);
export const notFound = (message: string) => new ApiError(404, 'not_found', message);
/** A model (speech, here) that failed: `CompletionRequestError` with the provider's words. */
export const completionRequestError = (detail: string) => new ApiError(400, 'completion_request_error', `Completion request failed. ${detail}`);
export const unauthorized = (message: string) =>
  new ApiError(401, 'unauthorized', message, { 'WWW-Authenticate': 'Bearer realm="api"' });

/** The answer to a fault the service did not expect: the real service's generic 500. */
export const internalError = () =>
  new ApiError(500, 'internal_server_error', 'The server encountered an internal error and was unable to complete your request. Either the server is overloaded or there is an error in the application.');

/**
 * Logs a fault the service did not expect, as one line with its stack, with every credential
 * that could have found its way into a message (an app or knowledge key, any `Bearer` token)
 * replaced: logs are read and shipped by more people than hold the keys.
 */
export function logFault(what: string, error: unknown, secrets: readonly string[]): void {
  let text = error instanceof Error ? (error.stack ?? `${error.name}: ${error.message}`) : String(error);
  text = text.replace(/\bBearer\s+\S+/gi, 'Bearer [redacted]');
  for (const secret of secrets) if (secret) text = text.replaceAll(secret, '[redacted]');
  console.error(`[service] ${what}: ${text.replace(/\n\s*/g, ' | ')}`);
}
