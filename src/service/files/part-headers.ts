/**
 * Watches a multipart body for the header blocks of its parts, as it streams past.
 *
 * busboy reports a part that has no `Content-Type` header as `text/plain` (RFC 7578's default),
 * but the real service refuses such an upload (`415 unsupported_file_type`: werkzeug leaves its
 * mimetype empty), so the upload route must see the raw headers too. Only the header blocks are
 * kept (each capped), never the parts' bodies.
 */
import { Transform, type TransformCallback } from 'node:stream';

export interface PartHeaders {
  /** The `name` parameter of the part's `Content-Disposition`, if any. */
  name: string | undefined;
  /** Whether the part has a `Content-Type` header at all. */
  hasContentType: boolean;
}

const HEADER_END = Buffer.from('\r\n\r\n');
/** Longer header blocks are cut here (busboy refuses them anyway). */
const MAX_HEADER_BYTES = 16 * 1024;

/** A pass-through stream that records every part's headers in `parts`, in order. */
export class PartHeaderWatcher extends Transform {
  readonly parts: PartHeaders[] = [];
  readonly #delimiter: Buffer;
  /** Bytes kept from the previous chunk, so a delimiter or header end split across chunks is found. */
  #carry: Buffer<ArrayBufferLike> = Buffer.alloc(0);
  /** The header block being read, or null between header blocks. */
  #header: Buffer<ArrayBufferLike> | null = null;

  constructor(boundary: string) {
    super();
    // The first delimiter may open the body without the CRLF before it; prefixing one makes it uniform.
    this.#delimiter = Buffer.from(`\r\n--${boundary}\r\n`);
    this.#carry = Buffer.from('\r\n');
  }

  override _transform(chunk: Buffer, _encoding: BufferEncoding, done: TransformCallback): void {
    if (!this.#header && chunk.length >= this.#delimiter.length) {
      // Inside a part's body, joining the carried tail to every chunk would copy the whole
      // upload once more; only the seam is joined, and unless a delimiter starts in the carried
      // tail, the chunk is scanned on its own.
      const seam = Buffer.concat([this.#carry, chunk.subarray(0, this.#delimiter.length - 1)]);
      const at = seam.indexOf(this.#delimiter);
      if (at === -1 || at >= this.#carry.length) {
        this.#scan(chunk);
        return done(null, chunk);
      }
    }
    this.#scan(Buffer.concat([this.#carry, chunk]));
    done(null, chunk);
  }

  #scan(data: Buffer): void {
    let at = 0;
    for (;;) {
      if (this.#header) {
        const end = data.indexOf(HEADER_END, at);
        const upTo = end === -1 ? data.length : end;
        if (this.#header.length < MAX_HEADER_BYTES) this.#header = Buffer.concat([this.#header, data.subarray(at, Math.min(upTo, at + MAX_HEADER_BYTES))]);
        if (end === -1) {
          // Keep the tail that may start the header end; the header keeps what came before it.
          const keep = Math.min(HEADER_END.length - 1, data.length - at);
          this.#header = this.#header.subarray(0, this.#header.length - keep);
          this.#carry = data.subarray(data.length - keep);
          return;
        }
        this.parts.push(parseHeaderBlock(this.#header.toString('latin1')));
        this.#header = null;
        at = end + HEADER_END.length;
        continue;
      }
      const found = data.indexOf(this.#delimiter, at);
      if (found === -1) {
        this.#carry = data.subarray(Math.max(at, data.length - (this.#delimiter.length - 1)));
        return;
      }
      this.#header = Buffer.alloc(0);
      at = found + this.#delimiter.length;
    }
  }
}

function parseHeaderBlock(block: string): PartHeaders {
  let name: string | undefined;
  let hasContentType = false;
  for (const line of block.split('\r\n')) {
    const colon = line.indexOf(':');
    if (colon === -1) continue;
    const field = line.slice(0, colon).trim().toLowerCase();
    if (field === 'content-type') hasContentType = line.slice(colon + 1).trim() !== '';
    if (field === 'content-disposition') name = /;\s*name="([^"]*)"/i.exec(line)?.[1] ?? /;\s*name=([^;\s]+)/i.exec(line)?.[1];
  }
  return { name, hasContentType };
}
