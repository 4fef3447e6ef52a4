/**
 * Rewrites a `multipart/form-data` upload as it streams, so that the upstream sees the session's
 * `user` and nothing the browser claimed: every part named `user` is dropped and one `user` part
 * goes first. File bytes pass through chunk by chunk; only a part's header block (a few hundred
 * bytes, capped) is ever held, so memory stays flat however large the file.
 *
 * Web streams only, so it runs on edge runtimes too. (busboy needs Node streams; the web-stream
 * parsers on npm buffer each part whole.) The output is re-framed with a fresh random boundary
 * and canonical part headers, so the upstream's parser never has to agree with ours on anything
 * the browser wrote: names and file names with quotes, backslashes or control characters,
 * duplicate or folded headers and RFC 2231 `name*` parameters are refused rather than guessed.
 */
import { concat, heldTail, indexOf } from './bytes.js';
import { isUserField } from './user-field.js';

export { indexOf };

export class MultipartError extends Error {
  constructor(
    readonly status: 400 | 413,
    message: string,
  ) {
    super(message);
    this.name = 'MultipartError';
  }
}

export interface MultipartLimits {
  /** Largest body accepted, counted on the bytes the browser sends. */
  maxBytes: number;
  /** Largest header block of one part; default 8 KiB. */
  maxHeaderBytes?: number;
  /** Most parts accepted (an upload has a file and perhaps a user); default 16. */
  maxParts?: number;
}

export interface MultipartRewrite {
  body: ReadableStream<Uint8Array>;
  /** The rewritten body's `Content-Type`, with its new boundary. */
  contentType: string;
  /** Set once the body is refused (too large or malformed); the stream errors with it too. */
  readonly failure: MultipartError | undefined;
}

const CRLF = new Uint8Array([13, 10]);
/**
 * Chunks read ahead of the upstream socket: the browser's side keeps arriving while the socket
 * drains, instead of one chunk at a time in lockstep. A few socket reads (64 KiB each) at most.
 */
const READ_AHEAD_CHUNKS = 4;
const encoder = new TextEncoder();

/** The `boundary` parameter of a `multipart/form-data` content type, or `undefined`. */
export function formDataBoundary(contentType: string | null): string | undefined {
  if (!contentType) return undefined;
  const [type, ...params] = contentType.split(';');
  if (type?.trim().toLowerCase() !== 'multipart/form-data') return undefined;
  const boundaries = params
    .map((p) => /^\s*boundary\s*=\s*(?:"([^"]*)"|([^\s"]*))\s*$/i.exec(p))
    .filter((m): m is RegExpExecArray => m !== null)
    .map((m) => m[1] ?? m[2] ?? '');
  if (boundaries.length !== 1) return undefined;
  const boundary = boundaries[0]!;
  // RFC 2046 §5.1.1: 1 to 70 characters from a restricted set, not ending in a space.
  return /^[0-9A-Za-z'()+_,./:=? -]{0,69}[0-9A-Za-z'()+_,./:=?-]$/.test(boundary) ? boundary : undefined;
}

/**
 * Where an upload's bytes come from: a web stream's reader, or (on Node) the request itself
 * (node-pipe.ts), so neither transport wraps the other's stream.
 */
export interface ChunkSource {
  read(): Promise<{ done: boolean; value?: Uint8Array }>;
  cancel(reason?: unknown): Promise<void>;
}

/** The rewritten upload as chunks to send on, pulled one at a time. */
export interface MultipartChunks {
  chunks: AsyncGenerator<Uint8Array, void, undefined>;
  contentType: string;
  readonly failure: MultipartError | undefined;
}

export function rewriteMultipartChunks(source: ChunkSource, boundary: string, user: string, limits: MultipartLimits): MultipartChunks {
  const outBoundary = `----relay${randomHex(16)}`;
  const state: { failure: MultipartError | undefined } = { failure: undefined };
  return {
    chunks: rewrite(source, boundary, outBoundary, user, limits, state),
    contentType: `multipart/form-data; boundary=${outBoundary}`,
    get failure() {
      return state.failure;
    },
  };
}

export function rewriteMultipartUser(source: ReadableStream<Uint8Array>, boundary: string, user: string, limits: MultipartLimits): MultipartRewrite {
  const reader = source.getReader();
  const rewritten = rewriteMultipartChunks(reader, boundary, user, limits);
  const { chunks } = rewritten;
  const body = new ReadableStream<Uint8Array>({
    async pull(controller) {
      try {
        const { done, value } = await chunks.next();
        if (done) controller.close();
        else controller.enqueue(value);
      } catch (error) {
        controller.error(error);
      }
    },
    async cancel(reason) {
      // Cancelling the reader ends a pending read, which lets the generator finish.
      await reader.cancel(reason).catch(() => {});
      void chunks.return(undefined).catch(() => {});
    },
  }, new CountQueuingStrategy({ highWaterMark: READ_AHEAD_CHUNKS }));
  return {
    body,
    contentType: rewritten.contentType,
    get failure() {
      return rewritten.failure;
    },
  };
}

type Phase = 'preamble' | 'after-delimiter' | 'headers' | 'body' | 'done';

async function* rewrite(
  reader: ChunkSource,
  boundary: string,
  outBoundary: string,
  user: string,
  limits: MultipartLimits,
  state: { failure: MultipartError | undefined },
): AsyncGenerator<Uint8Array, void, undefined> {
  const maxHeaderBytes = limits.maxHeaderBytes ?? 8 * 1024;
  const maxParts = limits.maxParts ?? 16;
  const fail = (status: 400 | 413, message: string): never => {
    state.failure = new MultipartError(status, message);
    throw state.failure;
  };
  // Every delimiter is preceded by a CRLF, except the first when there is no preamble: starting
  // the buffer with a CRLF lets one search find both.
  const delimiter = encoder.encode(`\r\n--${boundary}`);
  let buffer: Uint8Array = CRLF;
  let received = 0;
  let ended = false;
  let phase: Phase = 'preamble';
  let keep = false;
  let parts = 0;

  yield encoder.encode(`--${outBoundary}\r\nContent-Disposition: form-data; name="user"\r\n\r\n${user}`);
  try {
    while (phase !== 'done') {
      let progressed = false;
      if (phase === 'preamble' || phase === 'body') {
        const at = indexOf(buffer, delimiter);
        if (at >= 0) {
          if (phase === 'body' && keep && at > 0) yield buffer.subarray(0, at);
          buffer = buffer.subarray(at + delimiter.length);
          phase = 'after-delimiter';
          progressed = true;
        } else {
          // The tail may hold the start of a delimiter split across chunks: only the end that
          // could still become one is held (for file bytes, nearly always none).
          const safe = buffer.length - heldTail(buffer, delimiter);
          if (safe > 0) {
            if (phase === 'body' && keep) yield buffer.subarray(0, safe);
            buffer = buffer.subarray(safe);
          }
        }
      } else if (phase === 'after-delimiter') {
        let i = 0;
        while (i < buffer.length && (buffer[i] === 32 || buffer[i] === 9)) i++;
        if (buffer.length - i >= 2) {
          if (buffer[i] === 45 && buffer[i + 1] === 45) {
            phase = 'done';
          } else if (buffer[i] === 13 && buffer[i + 1] === 10) {
            buffer = buffer.subarray(i + 2);
            phase = 'headers';
          } else {
            fail(400, 'The multipart body is malformed.');
          }
          progressed = true;
        } else if (i > 64) {
          fail(400, 'The multipart body is malformed.');
        }
      } else if (phase === 'headers') {
        const end = buffer[0] === 13 && buffer[1] === 10 ? 0 : indexOf(buffer, HEADER_END);
        if (end > maxHeaderBytes || (end < 0 && buffer.length > maxHeaderBytes)) {
          fail(400, `A part's headers exceed ${maxHeaderBytes} bytes.`);
        } else if (end >= 0) {
          if (++parts > maxParts) fail(400, `The upload has more than ${maxParts} parts.`);
          const raw = new TextDecoder('utf-8', { fatal: false }).decode(buffer.subarray(0, end));
          const part = parsePartHeaders(raw);
          if (typeof part === 'string') fail(400, part);
          const header = part as PartHeader;
          keep = !isUserField(header.name);
          if (keep) yield encoder.encode(`\r\n--${outBoundary}\r\n${canonicalHeaders(header)}\r\n\r\n`);
          buffer = buffer.subarray(end === 0 ? 2 : end + HEADER_END.length);
          phase = 'body';
          progressed = true;
        }
      }
      if (progressed || phase === 'done') continue;
      if (ended) fail(400, 'The multipart body ended before its closing boundary.');
      const { done, value } = await reader.read();
      if (done || !value) {
        ended = true;
        continue;
      }
      received += value.byteLength;
      if (received > limits.maxBytes) fail(413, `The upload exceeds the ${limits.maxBytes} byte limit.`);
      if (phase === 'body' && buffer.length < delimiter.length && value.length >= delimiter.length) {
        // Between reads a part's body leaves only a tail shorter than the delimiter. Joining it
        // to every new chunk copied the whole upload once more (the top cost in a profile), so
        // only the seam is joined: unless a delimiter starts in the tail, the tail is body.
        const seam = concat(buffer, value.subarray(0, delimiter.length - 1));
        const at = indexOf(seam, delimiter);
        if (at < 0 || at >= buffer.length) {
          if (keep && buffer.length) yield buffer;
          buffer = value;
          continue;
        }
      }
      buffer = buffer.length ? concat(buffer, value) : value;
    }
    yield encoder.encode(`\r\n--${outBoundary}--\r\n`);
    // The epilogue after the closing boundary carries nothing, but reading it to the end (within
    // the limit) leaves the browser's connection clean for the answer.
    while (!ended) {
      const { done, value } = await reader.read();
      if (done || !value) break;
      received += value.byteLength;
      if (received > limits.maxBytes) fail(413, `The upload exceeds the ${limits.maxBytes} byte limit.`);
    }
  } catch (error) {
    await reader.cancel(error).catch(() => {});
    throw error;
  }
}

const HEADER_END = new Uint8Array([13, 10, 13, 10]);

interface PartHeader {
  name: string;
  filename: string | undefined;
  contentType: string | undefined;
}

// eslint-disable-next-line no-control-regex
const UNSAFE_VALUE = /["\\\u0000-\u001f\u007f]/;
const MEDIA_TYPE = /^[\w!#$&^.+-]+\/[\w!#$&^.+-]+(\s*;\s*[\w!#$&^.+-]+=("[^"\\]*"|[\w!#$&^.+-]+))*$/;

/** The part's name, file name and type, or why the header block is refused. */
function parsePartHeaders(raw: string): PartHeader | string {
  let disposition: string | undefined;
  let contentType: string | undefined;
  for (const line of raw.split('\r\n')) {
    if (/^[ \t]/.test(line)) return 'Folded multipart headers are not accepted.';
    const colon = line.indexOf(':');
    if (colon <= 0) return 'A multipart header is malformed.';
    const key = line.slice(0, colon).trim().toLowerCase();
    const value = line.slice(colon + 1).trim();
    if (key === 'content-disposition') {
      if (disposition !== undefined) return 'A part has more than one Content-Disposition header.';
      disposition = value;
    } else if (key === 'content-type') {
      if (contentType !== undefined) return 'A part has more than one Content-Type header.';
      if (!MEDIA_TYPE.test(value)) return 'A part has a malformed Content-Type header.';
      contentType = value;
    }
  }
  if (disposition === undefined) return 'A part has no Content-Disposition header.';
  const params = parseDisposition(disposition);
  if (typeof params === 'string') return params;
  const name = params.get('name');
  if (name === undefined) return 'A part has no name.';
  return { name, filename: params.get('filename'), contentType };
}

/** `form-data; name="…"; filename="…"` as a map, refusing anything ambiguous. */
function parseDisposition(value: string): Map<string, string> | string {
  const malformed = 'A part has a malformed Content-Disposition header.';
  const head = /^form-data\s*(?:;|$)/i.exec(value);
  if (!head) return malformed;
  const params = new Map<string, string>();
  let rest = value.slice(head[0].length);
  while (rest.trim()) {
    const m = /^\s*([\w!#$&+.^`|~-]+\*?)\s*=\s*(?:"([^"]*)"|([^\s;"]*))\s*(?:;|$)/.exec(rest);
    if (!m) return malformed;
    const key = m[1]!.toLowerCase();
    const paramValue = m[2] ?? m[3] ?? '';
    if (key.endsWith('*')) return 'Extended (RFC 2231) part parameters are not accepted.';
    if (params.has(key)) return 'A part repeats a Content-Disposition parameter.';
    if (UNSAFE_VALUE.test(paramValue)) return 'Part names and file names may not contain quotes, backslashes or control characters.';
    params.set(key, paramValue);
    rest = rest.slice(m[0].length);
  }
  return params;
}

function canonicalHeaders(part: PartHeader): string {
  let disposition = `Content-Disposition: form-data; name="${part.name}"`;
  if (part.filename !== undefined) disposition += `; filename="${part.filename}"`;
  return part.contentType ? `${disposition}\r\nContent-Type: ${part.contentType}` : disposition;
}

function randomHex(bytes: number): string {
  return Array.from(crypto.getRandomValues(new Uint8Array(bytes)), (b) => b.toString(16).padStart(2, '0')).join('');
}
