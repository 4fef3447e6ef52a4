/** The relay's own error answers, in the API's `{code, message, status}` shape, and the headers every answer carries. */
import type { ErrorBody, ErrorCode } from '../protocol/index.js';

/** The API's codes, plus the relay's own refusals that the shared list does not name yet. */
export type RelayErrorCode = ErrorCode;

/** `extra` adds fields beside `{code, message, status}` (ids the browser can act on). */
export function relayError(status: number, code: RelayErrorCode, message: string, headers: Record<string, string> = {}, extra: Record<string, string> = {}): Response {
  const body: ErrorBody = { ...extra, code, message, status };
  const h = new Headers(headers);
  h.set('Content-Type', 'application/json');
  return new Response(JSON.stringify(body), { status, headers: h });
}

/**
 * Marks an answer as data, never a document: no content sniffing, and were it ever opened as a
 * page, no script, no subresources, no same-origin access.
 */
export function hardened(response: Response): Response {
  for (const [name, value] of Object.entries(HARDENING)) response.headers.set(name, value);
  return response;
}

export const HARDENING = {
  'X-Content-Type-Options': 'nosniff',
  'Content-Security-Policy': "default-src 'none'; frame-ancestors 'none'; sandbox",
} as const;
