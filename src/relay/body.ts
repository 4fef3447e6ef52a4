/** Reading request bodies with a byte limit, stopping at the limit rather than after it. */

/** A request's body as text, or `null` once it passes `limit` bytes (reading stops there). */
export async function readLimited(request: Request, limit: number): Promise<string | null> {
  if (declaredLength(request) > limit) return null;
  if (!request.body) return '';
  return readStreamLimited(request.body, limit);
}

/** A byte stream as text, or `null` once it passes `limit` bytes (reading stops there). */
export async function readStreamLimited(stream: ReadableStream<Uint8Array>, limit: number): Promise<string | null> {
  const reader = stream.getReader();
  const decoder = new TextDecoder();
  let size = 0;
  let text = '';
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.byteLength;
    if (size > limit) {
      await reader.cancel().catch(() => {});
      return null;
    }
    text += decoder.decode(value, { stream: true });
  }
  return text + decoder.decode();
}

/** The request's `Content-Length`, or 0 when absent (a chunked body is counted as it streams). */
export function declaredLength(request: Request): number {
  const value = Number(request.headers.get('content-length') ?? 0);
  return Number.isFinite(value) ? value : 0;
}

/**
 * How deep a JSON body may nest. Real bodies (run inputs, form values) stay within a few levels;
 * far deeper ones can't be serialized again (the relay re-serializes every body it rewrites),
 * and a Python upstream's recursive parser fails on them too.
 */
export const MAX_JSON_DEPTH = 64;

/** A JSON object body: the object, `{}` for an empty body, or why it is refused. */
export function parseJsonObject(text: string): { ok: true; value: Record<string, unknown> } | { ok: false; problem: string } {
  if (!text.trim()) return { ok: true, value: {} };
  if (nestsDeeperThan(text, MAX_JSON_DEPTH)) return { ok: false, problem: `The JSON body nests deeper than ${MAX_JSON_DEPTH} levels.` };
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    return { ok: false, problem: 'Invalid JSON payload received or JSON payload is empty.' };
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) return { ok: false, problem: 'The request body must be a JSON object.' };
  return { ok: true, value: parsed as Record<string, unknown> };
}

/** Whether the brackets outside strings in `text` nest deeper than `max`. */
function nestsDeeperThan(text: string, max: number): boolean {
  let depth = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (inString) {
      if (c === 0x5c) i++; // a backslash escapes the next character
      else if (c === 0x22) inString = false;
    } else if (c === 0x22) inString = true;
    else if (c === 0x5b || c === 0x7b) {
      if (++depth > max) return true;
    } else if (c === 0x5d || c === 0x7d) depth--;
  }
  return false;
}
