/** Reading request bodies with a byte limit, stopping at the limit rather than after it. */

/** The body as text, or `null` once it passes `limit` bytes (reading stops there). */
export async function readLimited(request: Request, limit: number): Promise<string | null> {
  if (declaredLength(request) > limit) return null;
  if (!request.body) return '';
  const reader = request.body.getReader();
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

/** A JSON object body: the object, `{}` for an empty body, or why it is refused. */
export function parseJsonObject(text: string): { ok: true; value: Record<string, unknown> } | { ok: false; problem: string } {
  if (!text.trim()) return { ok: true, value: {} };
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    return { ok: false, problem: 'Invalid JSON payload received or JSON payload is empty.' };
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) return { ok: false, problem: 'The request body must be a JSON object.' };
  return { ok: true, value: parsed as Record<string, unknown> };
}
