/** Byte-level search and joining for the stream rewriters (multipart, redaction). */

/** The first index of `needle` in `hay` from `from` on, or -1. */
export function indexOf(hay: Uint8Array, needle: Uint8Array, from = 0): number {
  if (!needle.length) return -1;
  const first = needle[0]!;
  const last = hay.length - needle.length;
  for (let i = hay.indexOf(first, from); i !== -1 && i <= last; i = hay.indexOf(first, i + 1)) {
    let j = 1;
    while (j < needle.length && hay[i + j] === needle[j]) j++;
    if (j === needle.length) return i;
  }
  return -1;
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
