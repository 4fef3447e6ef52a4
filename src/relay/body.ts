/** Reading request bodies with a byte limit, stopping at the limit rather than after it. */

/** A request's body as text, or `null` once it passes `limit` bytes (reading stops there). */
export async function readLimited(request: Request, limit: number): Promise<string | null> {
  if (declaredLength(request) > limit) return null;
  if (!request.body) return '';
  return readStreamLimited(request.body, limit);
}

/**
 * A byte stream as text, or `null` once it passes `limit` bytes (reading stops there). With
 * `silence`, its `giveUp` is called once the stream has sent nothing for `ms`.
 */
export async function readStreamLimited(stream: ReadableStream<Uint8Array>, limit: number, silence?: { ms: number; giveUp: () => void }): Promise<string | null> {
  const reader = stream.getReader();
  const decoder = new TextDecoder();
  let size = 0;
  let text = '';
  for (;;) {
    const timer = silence && setTimeout(silence.giveUp, silence.ms);
    const { done, value } = await reader.read().finally(() => clearTimeout(timer));
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
 * How deep a JSON body (or an upstream's JSON error) may nest. Real bodies (run inputs, form
 * values) stay within a few levels; far deeper ones are only an attack on recursive code (a
 * Python upstream's parser, a walk over the parsed value).
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

/**
 * `text`, a JSON object that `parseJsonObject` accepted, with every top-level member named `user`
 * (however its name is escaped) left out and `"user": user` added last. Every other member goes
 * on as the browser wrote it: parsing and serializing again would turn 12345678901234567890 into
 * 12345678901234567000, `1e400` into `null` and `-0` into `0`, where the upstream reads them exact.
 */
export function withUser(text: string, user: string): string {
  const members: string[] = [];
  let i = skipSpace(text, 0);
  if (text.charCodeAt(i) !== 0x7b) throw new TypeError('withUser needs a JSON object.');
  i = skipSpace(text, i + 1);
  while (i < text.length && text.charCodeAt(i) !== 0x7d) {
    const start = i;
    const keyEnd = stringEnd(text, i);
    const name = JSON.parse(text.slice(i, keyEnd)) as string;
    i = skipSpace(text, skipSpace(text, keyEnd) + 1); // past the colon
    const end = valueEnd(text, i);
    if (name !== 'user') members.push(text.slice(start, end));
    i = skipSpace(text, end);
    if (text.charCodeAt(i) === 0x2c) i = skipSpace(text, i + 1);
  }
  members.push(`"user":${JSON.stringify(user)}`);
  return `{${members.join(',')}}`;
}

function skipSpace(text: string, i: number): number {
  for (let c = text.charCodeAt(i); c === 0x20 || c === 0x0a || c === 0x0d || c === 0x09; c = text.charCodeAt(++i));
  return i;
}

/** Just past the JSON string that starts at `i`. */
function stringEnd(text: string, i: number): number {
  for (i++; ; i++) {
    const c = text.charCodeAt(i);
    if (c === 0x5c) i++;
    else if (c === 0x22) return i + 1;
  }
}

/** Just past the JSON value that starts at `i` (valid JSON: brackets balance outside strings). */
function valueEnd(text: string, i: number): number {
  const c = text.charCodeAt(i);
  if (c === 0x22) return stringEnd(text, i);
  if (c !== 0x7b && c !== 0x5b) {
    // A number, true, false or null: up to the next separator.
    while (i < text.length && !/[\s,}\]]/.test(text[i]!)) i++;
    return i;
  }
  let depth = 0;
  for (; ; i++) {
    const d = text.charCodeAt(i);
    if (d === 0x22) i = stringEnd(text, i) - 1;
    else if (d === 0x7b || d === 0x5b) depth++;
    else if ((d === 0x7d || d === 0x5d) && --depth === 0) return i + 1;
  }
}
