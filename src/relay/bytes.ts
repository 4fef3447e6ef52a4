/** Byte-level search and joining for the stream rewriters (multipart, redaction). */

type NodeBuffer = Uint8Array & { indexOf(value: Uint8Array, byteOffset?: number): number };
const NodeBuffer = (globalThis as { Buffer?: { from(buffer: ArrayBufferLike, byteOffset: number, length: number): NodeBuffer } }).Buffer;

/**
 * The first index of `needle` in `hay` from `from` on, or -1: Node's native `Buffer.indexOf`
 * (a view, no copy) where it exists, a scan keyed on the first byte elsewhere (edge runtimes).
 * Profiling a 200 MB upload put the JS scan among the top costs; the native search is several
 * times faster on file bytes, and on JSON answers, where the key's first letter is everywhere.
 */
export function indexOf(hay: Uint8Array, needle: Uint8Array, from = 0): number {
  if (!needle.length) return -1;
  if (NodeBuffer) return NodeBuffer.from(hay.buffer, hay.byteOffset, hay.byteLength).indexOf(needle, from);
  const first = needle[0]!;
  const last = hay.length - needle.length;
  for (let i = hay.indexOf(first, from); i !== -1 && i <= last; i = hay.indexOf(first, i + 1)) {
    let j = 1;
    while (j < needle.length && hay[i + j] === needle[j]) j++;
    if (j === needle.length) return i;
  }
  return -1;
}

/**
 * The length of the longest end of `data` (from `from` on) that is a proper start of `needle`:
 * what a stream rewriter must hold back in case the next chunk completes the needle.
 */
export function heldTail(data: Uint8Array, needle: Uint8Array, from = 0): number {
  for (let start = Math.max(from, data.length - (needle.length - 1)); start < data.length; start++) {
    start = data.indexOf(needle[0]!, start);
    if (start < 0) return 0;
    let j = 0;
    while (start + j < data.length && data[start + j] === needle[j]) j++;
    if (start + j === data.length) return data.length - start;
  }
  return 0;
}

export function concat(...parts: Uint8Array[]): Uint8Array {
  const out = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
  let at = 0;
  for (const part of parts) {
    out.set(part, at);
    at += part.length;
  }
  return out;
}

/** The hex digest of `text` (Web Crypto, so edge runtimes have it too). */
export async function hexDigest(algorithm: 'SHA-1' | 'SHA-256', text: string): Promise<string> {
  const digest = await crypto.subtle.digest(algorithm, new TextEncoder().encode(text));
  return Array.from(new Uint8Array(digest), (b) => b.toString(16).padStart(2, '0')).join('');
}
