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
const EMPTY = new Uint8Array(0);
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
  const rewriter = new MultipartRewriter(boundary, user, limits);
  return {
    chunks: rewrite(source, rewriter),
    contentType: rewriter.contentType,
    get failure() {
      return rewriter.failure;
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

/**
 * The rewrite as a synchronous push parser: each chunk in, the chunks to send on out. The Node
 * transport drives it straight from the request's `data` events, as a pipe would: a promise, a
 * generator step and a queue per 64 KiB chunk showed up in a `--cpu-prof` profile as microtasks
 * and garbage; dropping them took 2–10% off the relay's CPU per 200 MB upload in interleaved A/B
 * runs (~480 → 435–480 ms; a bare pipe proxy: ~250 ms). The fetch transport wraps it in a
 * generator (`rewrite`).
 */
export class MultipartRewriter {
  /** The rewritten body's `Content-Type`, with its new boundary. */
  readonly contentType: string;
  /** The first chunk to send: the session's `user` part. */
  readonly head: Uint8Array;
  /** Set once the body is refused (too large or malformed); `push` and `end` throw it too. */
  failure: MultipartError | undefined;
  readonly #outBoundary: string;
  readonly #limits: MultipartLimits;
  readonly #maxHeaderBytes: number;
  readonly #maxParts: number;
  // Every delimiter is preceded by a CRLF, except the first when there is no preamble: starting
  // the buffer with a CRLF lets one search find both.
  readonly #delimiter: Uint8Array;
  #buffer: Uint8Array = CRLF;
  #received = 0;
  #phase: Phase = 'preamble';
  #keep = false;
  #parts = 0;

  constructor(boundary: string, user: string, limits: MultipartLimits) {
    this.#outBoundary = `----relay${randomHex(16)}`;
    this.contentType = `multipart/form-data; boundary=${this.#outBoundary}`;
    this.head = encoder.encode(`--${this.#outBoundary}\r\nContent-Disposition: form-data; name="user"\r\n\r\n${user}`);
    this.#limits = limits;
    this.#maxHeaderBytes = limits.maxHeaderBytes ?? 8 * 1024;
    this.#maxParts = limits.maxParts ?? 16;
    this.#delimiter = encoder.encode(`\r\n--${boundary}`);
  }

  /** Whether the closing boundary has passed (what follows is epilogue, only counted). */
  get done(): boolean {
    return this.#phase === 'done';
  }

  /** Takes the next chunk of the browser's body; appends to `out` what goes upstream now. */
  push(value: Uint8Array, out: Uint8Array[]): void {
    if (this.failure) throw this.failure;
    this.#received += value.byteLength;
    if (this.#received > this.#limits.maxBytes) this.#fail(413, `The upload exceeds the ${this.#limits.maxBytes} byte limit.`);
    if (this.#phase === 'done') return;
    const buffer = this.#buffer;
    const delimiter = this.#delimiter;
    if (this.#phase === 'body' && buffer.length < delimiter.length && value.length >= delimiter.length) {
      // Between reads a part's body leaves only a tail shorter than the delimiter. Joining it
      // to every new chunk copied the whole upload once more (the top cost in a profile), so
      // only the seam is joined: unless a delimiter starts in the tail, the tail is body.
      const seam = concat(buffer, value.subarray(0, delimiter.length - 1));
      const at = indexOf(seam, delimiter);
      if (at < 0 || at >= buffer.length) {
        if (this.#keep && buffer.length) out.push(buffer);
        this.#buffer = value;
        return this.#drain(out);
      }
    }
    this.#buffer = buffer.length ? concat(buffer, value) : value;
    this.#drain(out);
  }

  /** The browser's body has ended: throws if it ended before its closing boundary. */
  end(): void {
    if (this.failure) throw this.failure;
    if (this.#phase !== 'done') this.#fail(400, 'The multipart body ended before its closing boundary.');
  }

  #fail(status: 400 | 413, message: string): never {
    this.failure = new MultipartError(status, message);
    throw this.failure;
  }

  /** Works through the buffer as far as it goes without more bytes. */
  #drain(out: Uint8Array[]): void {
    const delimiter = this.#delimiter;
    let buffer = this.#buffer;
    for (;;) {
      const phase = this.#phase;
      if (phase === 'done') {
        out.push(encoder.encode(`\r\n--${this.#outBoundary}--\r\n`));
        // The epilogue after the closing boundary carries nothing; it is counted, never sent.
        buffer = EMPTY;
        break;
      }
      if (phase === 'preamble' || phase === 'body') {
        const at = indexOf(buffer, delimiter);
        if (at >= 0) {
          if (phase === 'body' && this.#keep && at > 0) out.push(buffer.subarray(0, at));
          buffer = buffer.subarray(at + delimiter.length);
          this.#phase = 'after-delimiter';
          continue;
        }
        // The tail may hold the start of a delimiter split across chunks: only the end that
        // could still become one is held (for file bytes, nearly always none).
        const safe = buffer.length - heldTail(buffer, delimiter);
        if (safe > 0) {
          if (phase === 'body' && this.#keep) out.push(safe === buffer.length ? buffer : buffer.subarray(0, safe));
          buffer = buffer.subarray(safe);
        }
        break;
      }
      if (phase === 'after-delimiter') {
        let i = 0;
        while (i < buffer.length && (buffer[i] === 32 || buffer[i] === 9)) i++;
        // Transport padding after a boundary: a little is allowed, and the same little however the chunks fall.
        if (i > MAX_PADDING) this.#fail(400, 'The multipart body is malformed.');
        if (buffer.length - i >= 2) {
          if (buffer[i] === 45 && buffer[i + 1] === 45) {
            this.#phase = 'done';
          } else if (buffer[i] === 13 && buffer[i + 1] === 10) {
            buffer = buffer.subarray(i + 2);
            this.#phase = 'headers';
          } else {
            this.#fail(400, 'The multipart body is malformed.');
          }
          continue;
        }
        break;
      }
      // Headers.
      const end = buffer[0] === 13 && buffer[1] === 10 ? 0 : indexOf(buffer, HEADER_END);
      // Unfinished, the block is the buffer less what may be the start of its blank line (up to
      // three bytes): the same limit however the chunks fall.
      if (end > this.#maxHeaderBytes || (end < 0 && buffer.length - (HEADER_END.length - 1) > this.#maxHeaderBytes)) this.#fail(400, `A part's headers exceed ${this.#maxHeaderBytes} bytes.`);
      if (end < 0) break;
      if (++this.#parts > this.#maxParts) this.#fail(400, `The upload has more than ${this.#maxParts} parts.`);
      const part = parsePartHeaders(new TextDecoder('utf-8', { fatal: false }).decode(buffer.subarray(0, end)));
      if (typeof part === 'string') this.#fail(400, part);
      const header = part as PartHeader;
      this.#keep = !isUserField(header.name);
      if (this.#keep) out.push(encoder.encode(`\r\n--${this.#outBoundary}\r\n${canonicalHeaders(header)}\r\n\r\n`));
      buffer = buffer.subarray(end === 0 ? 2 : end + HEADER_END.length);
      this.#phase = 'body';
    }
    this.#buffer = buffer;
  }
}

async function* rewrite(reader: ChunkSource, rewriter: MultipartRewriter): AsyncGenerator<Uint8Array, void, undefined> {
  yield rewriter.head;
  try {
    const out: Uint8Array[] = [];
    for (;;) {
      const { done, value } = await reader.read();
      if (done || !value) break;
      // Read to the end, epilogue too (within the limit): that leaves the browser's connection clean for the answer.
      rewriter.push(value, out);
      while (out.length) yield out.shift()!;
    }
    rewriter.end();
  } catch (error) {
    await reader.cancel(error).catch(() => {});
    throw error;
  }
}

const HEADER_END = new Uint8Array([13, 10, 13, 10]);
/** The most spaces and tabs accepted after a boundary (RFC 2046's transport padding). */
const MAX_PADDING = 64;

interface PartHeader {
  name: string;
  filename: string | undefined;
  contentType: string | undefined;
}

// eslint-disable-next-line no-control-regex
const UNSAFE_VALUE = /["\\\u0000-\u001f\u007f]/;
// No control characters, quoted or not, and only spaces and tabs between parameters: the type is
// copied into the rewritten part's headers, where a bare CR or LF would start a header line of
// the browser's writing (busboy and undici refuse the whole upload on one).
// eslint-disable-next-line no-control-regex
const MEDIA_TYPE = /^[\w!#$&^.+-]+\/[\w!#$&^.+-]+([ \t]*;[ \t]*[\w!#$&^.+-]+=("[^"\\\u0000-\u001f\u007f]*"|[\w!#$&^.+-]+))*$/;

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
