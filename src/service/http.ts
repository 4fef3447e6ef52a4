/** Response and request-body helpers for the service's fetch handler. */
import { ApiError, badParam } from './errors.js';

/** Largest JSON body the service reads; larger ones get 413 before they are parsed. */
export const MAX_JSON_BODY_BYTES = 1024 * 1024;

export function json(body: unknown, status = 200, headers: Record<string, string> = {}): Response {
  return new Response(JSON.stringify(body), {
    status,
    headers: { 'Content-Type': 'application/json', ...headers },
  });
}

export function errorResponse(error: ApiError): Response {
  return json(error.toBody(), error.status, error.headers);
}

const INVALID_JSON = 'Invalid JSON payload received or JSON payload is empty.';
const INCOMPLETE_BODY = 'The request body ended before it was complete.';

/** Reads a JSON object body with a size limit; errors use the real service's messages. */
export async function readJsonObject(request: Request): Promise<Record<string, unknown>> {
  const declared = Number(request.headers.get('content-length') ?? '0');
  if (declared > MAX_JSON_BODY_BYTES) throw payloadTooLarge();
  const text = await readTextLimited(request, MAX_JSON_BODY_BYTES);
  if (!text.trim()) throw badParam(INVALID_JSON);
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    throw badParam(INVALID_JSON);
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) {
    throw badParam('Input should be a valid dictionary');
  }
  return parsed as Record<string, unknown>;
}

/** werkzeug's own 413 (`RequestEntityTooLarge`), as the real service renders HTTP errors. */
function payloadTooLarge(): ApiError {
  return new ApiError(413, 'request_entity_too_large', 'The data value transmitted exceeds the capacity limit.');
}

async function readTextLimited(request: Request, limit: number): Promise<string> {
  if (!request.body) return '';
  const reader = request.body.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    let read: Awaited<ReturnType<typeof reader.read>>;
    try {
      read = await reader.read();
    } catch {
      // The client went away mid-body: nobody reads this answer, and it is no fault of ours to log.
      throw badParam(INCOMPLETE_BODY);
    }
    const { done, value } = read;
    if (done) break;
    size += value.byteLength;
    if (size > limit) {
      await reader.cancel();
      throw payloadTooLarge();
    }
    chunks.push(value);
  }
  return new TextDecoder().decode(Buffer.concat(chunks));
}

/**
 * `user` as the real service reads it: `if not user: refuse`, then `str(user)`. So `"  "` and
 * `42` are users, while `""`, `0`, `false` and a missing value are not.
 */
export function requireUser(value: unknown): string {
  if (typeof value === 'string' && value !== '') return value;
  if (typeof value === 'number' && value !== 0 && Number.isFinite(value)) return String(value);
  throw badParam('Arg user must be provided.');
}
