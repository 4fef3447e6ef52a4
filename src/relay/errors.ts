/** The relay's own error answers, in the API's `{code, message, status}` shape. */
import type { ErrorBody, ErrorCode } from '../protocol/index.js';

export function relayError(status: number, code: ErrorCode, message: string, headers: Record<string, string> = {}): Response {
  const body: ErrorBody = { code, message, status };
  const h = new Headers(headers);
  h.set('Content-Type', 'application/json');
  return new Response(JSON.stringify(body), { status, headers: h });
}
