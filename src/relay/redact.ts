/**
 * Keeping the API key (and, in error bodies, the upstream's address) out of what the relay passes
 * on, should the upstream or a gateway in front of it ever echo them: a request dump in a
 * traceback, a provider's error text, a code node printing its environment.
 */

import { MAX_JSON_DEPTH } from './body.js';
import { concat, heldTail, indexOf } from './bytes.js';

export const REDACTED = '[redacted]';
const REPLACEMENT = new TextEncoder().encode(REDACTED);
const EMPTY = new Uint8Array(0);
const BACKSLASH = 0x5c;
/** `\u`: where JSON may spell a character of the key as an escape (`\u0061` is `a`). */
const UNICODE_ESCAPE = new TextEncoder().encode('\\u');
/** A `partial` match: the data ended inside what may still become the key. */
const PARTIAL = -2;
const TOO_DEEP = new Error('nested too deep');

/** One body's scrubbing state: `push` each chunk and pass on what it returns; at the end, pass on `flush()`. */
export interface KeyScrubber {
  push(chunk: Uint8Array): Uint8Array;
  flush(): Uint8Array;
}

export class Redactor {
  /** Every spelling to replace in error bodies, longest first so `Bearer <key>` goes whole. */
  readonly #errorNeedles: string[];
  readonly #key: Uint8Array;
  readonly #keyText: string;

  constructor(apiKey: string, upstreamUrl: string) {
    const upstream = new URL(upstreamUrl);
    const plain = [`Bearer ${apiKey}`, apiKey, upstream.origin, upstream.host];
    // JSON may escape `/` as `\/` (PHP, some gateways).
    const spellings = plain.flatMap((s) => [s, s.replaceAll('/', '\\/')]);
    this.#errorNeedles = [...new Set(spellings)].filter(Boolean).sort((a, b) => b.length - a.length);
    this.#key = new TextEncoder().encode(apiKey);
    this.#keyText = apiKey;
  }

  /**
   * An error body with every secret spelling replaced. JSON is also read back and its strings
   * checked once decoded, which catches a key written with `\u` escapes. `undefined` for JSON
   * nested deeper than any error the API writes (`MAX_JSON_DEPTH`): it cannot be checked string by
   * string (a walk that deep ran out of stack), so it is not passed on.
   */
  errorText(text: string): string | undefined {
    const replaced = this.#replaceAll(text);
    let parsed: unknown;
    try {
      parsed = JSON.parse(replaced);
    } catch {
      return replaced;
    }
    let changed = false;
    const walk = (value: unknown, depth: number): unknown => {
      if (typeof value === 'string') {
        const clean = this.#replaceAll(value);
        if (clean !== value) changed = true;
        return clean;
      }
      if (value && typeof value === 'object') {
        if (depth >= MAX_JSON_DEPTH) throw TOO_DEEP;
        if (Array.isArray(value)) return value.map((item) => walk(item, depth + 1));
        return Object.fromEntries(Object.entries(value).map(([k, v]) => [walk(k, depth) as string, walk(v, depth + 1)]));
      }
      return value;
    };
    let cleaned: unknown;
    try {
      cleaned = walk(parsed, 0);
    } catch (error) {
      if (error === TOO_DEEP) return undefined;
      throw error;
    }
    return changed ? JSON.stringify(cleaned) : replaced;
  }

  /**
   * A body's scrubber, the API key replaced as the body streams through it. The relay puts every answer
   * body through it, whatever its type (JSON, SSE, audio, no `Content-Type` at all): which type an
   * upstream declares says nothing about what it echoes, and the key's bytes never turn up in
   * audio by chance (a 20-odd character printable string), so a match is an echo and replacing
   * it is right. It is a scrub, not a refusal, because the echo usually sits in one field of an
   * otherwise good answer (a traceback in an event, a dump in a message) that the user needs. A key split across chunks is
   * caught by holding back the end of each chunk, but only as much of it as could still become
   * the key: an SSE event ends in a blank line, which never starts a key, so every event is
   * passed on at once and streaming keeps its latency. JSON (a 2xx answer, an event's data) may
   * spell any of the key's characters as a `\u` escape, which the browser's `JSON.parse` turns back
   * into the key: where the data holds a `\u` (or ends in a `\` that may start one), each spelling
   * is looked for, escaped character by character (`replaceEscapedKey`); elsewhere the plain
   * search does, natively.
   */
  keyScrubber(): KeyScrubber {
    const key = this.#key;
    let carry: Uint8Array = EMPTY;
    return {
      push(chunk) {
        const data = carry.length ? concat(carry, chunk) : chunk;
        const escaped = indexOf(data, UNICODE_ESCAPE) !== -1 || data[data.length - 1] === BACKSLASH;
        const { out, rest } = escaped ? replaceEscapedKey(data, key) : replaceBytes(data, key, REPLACEMENT);
        carry = rest;
        return out;
      },
      flush() {
        const rest = carry;
        carry = EMPTY;
        return rest;
      },
    };
  }

  /**
   * A response header's value with the key replaced, or `undefined` when the header must be
   * dropped: its value still names the key once percent-decoded (a `filename*=UTF-8''…` in
   * `Content-Disposition`), and rewriting an encoded value could produce a different, still
   * valid, one. Dropping a header the API never needs to carry the key in loses nothing.
   */
  headerValue(value: string): string | undefined {
    const replaced = this.#replaceAll(value);
    let decoded = replaced;
    try {
      decoded = decodeURIComponent(replaced);
    } catch {
      // Not percent-encoding (a lone `%`): the raw check above is all there is to do.
    }
    return this.#mentionsKey(decoded) ? undefined : replaced;
  }

  #mentionsKey(text: string): boolean {
    return text.includes(this.#keyText);
  }

  #replaceAll(text: string): string {
    let out = text;
    for (const needle of this.#errorNeedles) if (out.includes(needle)) out = out.replaceAll(needle, REDACTED);
    return out;
  }
}

/**
 * `data` with every spelling of `key` replaced, each of its characters written as itself or as a
 * JSON `\u` escape (hex digits in either case), split into what can go now and the tail that may
 * be the start of a spelling the next chunk completes (at most six bytes a character).
 */
export function replaceEscapedKey(data: Uint8Array, key: Uint8Array): { out: Uint8Array; rest: Uint8Array } {
  const parts: Uint8Array[] = [];
  let from = 0;
  let held = data.length;
  // A spelling starts with the key's first byte or a backslash: the native search jumps to each
  // (each of the two searched again only once passed, so a long run without one is read once).
  let first = data.indexOf(key[0]!);
  let slash = data.indexOf(BACKSLASH);
  for (let at = 0; ; ) {
    if (first !== -1 && first < at) first = data.indexOf(key[0]!, at);
    if (slash !== -1 && slash < at) slash = data.indexOf(BACKSLASH, at);
    const start = first === -1 ? slash : slash === -1 ? first : Math.min(first, slash);
    if (start === -1) break;
    const length = escapedKeyAt(data, start, key);
    if (length === PARTIAL) {
      held = start;
      break;
    }
    if (length > 0) {
      parts.push(data.subarray(from, start), REPLACEMENT);
      from = start + length;
    }
    at = Math.max(from, start + 1);
  }
  parts.push(data.subarray(from, held));
  return { out: parts.length === 1 ? parts[0]! : concat(...parts), rest: held < data.length ? data.slice(held) : EMPTY };
}

/** The length of the spelling of `key` at `at`, 0 if there is none, `PARTIAL` if the data ends inside one. */
function escapedKeyAt(data: Uint8Array, at: number, key: Uint8Array): number {
  let p = at;
  for (const byte of key) {
    if (p >= data.length) return PARTIAL;
    if (data[p] === byte) {
      p++;
      continue;
    }
    if (data[p] !== BACKSLASH) return 0;
    // `\u` and four hex digits naming this byte: each byte of the escape must fit, else no match.
    const escape = `u${byte.toString(16).padStart(4, '0')}`;
    for (let i = 0; i < escape.length; i++) {
      if (p + 1 + i >= data.length) return PARTIAL;
      const c = data[p + 1 + i]!;
      // `u` as written; a hex digit in either case (`| 0x20` lowers a letter, leaves a digit).
      if ((i ? c | 0x20 : c) !== escape.charCodeAt(i)) return 0;
    }
    p += 1 + escape.length;
  }
  return p - at;
}

/**
 * `data` with every `needle` replaced, split into what can go now and the tail that may be the
 * start of a needle the next chunk completes.
 */
export function replaceBytes(data: Uint8Array, needle: Uint8Array, replacement: Uint8Array): { out: Uint8Array; rest: Uint8Array } {
  const parts: Uint8Array[] = [];
  let from = 0;
  for (let at = indexOf(data, needle, 0); at !== -1; at = indexOf(data, needle, from)) {
    parts.push(data.subarray(from, at), replacement);
    from = at + needle.length;
  }
  const held = heldTail(data, needle, from);
  parts.push(data.subarray(from, data.length - held));
  return { out: parts.length === 1 ? parts[0]! : concat(...parts), rest: held ? data.slice(data.length - held) : EMPTY };
}
