/**
 * The words of a recording, carried in the recording itself: the embedded service cannot
 * recognize speech, so its own text to audio tags what it spoke, and its audio to text reads the
 * tag back. The tag is an ID3v2 user-defined text frame (`TXXX`) described `transcript`, at the
 * head of an MP3 or in a WAV file's `id3 ` chunk, where players skip it and tools show it
 * (`ffmpeg -metadata transcript="…"` writes the same frame into an MP3, so QA can tag any audio).
 */

/** The `TXXX` description the transcript goes under. */
export const TRANSCRIPT_FRAME = 'transcript';

const ascii = (text: string) => Uint8Array.from(text, (c) => c.charCodeAt(0));

/** Four bytes of a 28-bit ID3v2 "syncsafe" integer (7 bits a byte). */
function syncsafe(n: number): number[] {
  return [(n >> 21) & 0x7f, (n >> 14) & 0x7f, (n >> 7) & 0x7f, n & 0x7f];
}

/** An ID3v2.4 tag holding `text` as its transcript (UTF-8). */
export function transcriptTag(text: string): Uint8Array {
  const body = Buffer.concat([Buffer.from([3]), ascii(TRANSCRIPT_FRAME), Buffer.from([0]), Buffer.from(text, 'utf8')]);
  const frame = Buffer.concat([ascii('TXXX'), Buffer.from(syncsafe(body.length)), Buffer.from([0, 0]), body]);
  return Buffer.concat([ascii('ID3'), Buffer.from([4, 0, 0, ...syncsafe(frame.length)]), frame]);
}

/** A WAV file's `id3 ` chunk holding the tag, padded to an even size as RIFF requires. */
export function transcriptChunk(text: string): Uint8Array {
  const tag = transcriptTag(text);
  const chunk = new Uint8Array(8 + tag.length + (tag.length & 1));
  chunk.set(ascii('id3 '));
  new DataView(chunk.buffer).setUint32(4, tag.length, true);
  chunk.set(tag, 8);
  return chunk;
}

/** The transcript tagged in an MP3 (a leading ID3v2 tag) or a WAV file (an `id3 ` chunk), if any. */
export function taggedTranscript(bytes: Uint8Array): string | undefined {
  if (text(bytes, 0, 3) === 'ID3') return readTag(bytes);
  if (bytes.length < 12 || text(bytes, 0, 4) !== 'RIFF' || text(bytes, 8, 4) !== 'WAVE') return undefined;
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  for (let at = 12; at + 8 <= bytes.length; ) {
    const size = view.getUint32(at + 4, true);
    if (text(bytes, at, 4).toLowerCase() === 'id3 ') return readTag(bytes.subarray(at + 8, at + 8 + size));
    at += 8 + size + (size & 1);
  }
  return undefined;
}

function text(bytes: Uint8Array, from: number, length: number): string {
  return String.fromCharCode(...bytes.subarray(from, from + length));
}

/** The `TXXX:transcript` frame of an ID3v2.3 or v2.4 tag (frames of v2.2, or unsynchronised tags, are not read). */
function readTag(tag: Uint8Array): string | undefined {
  if (tag.length < 10 || text(tag, 0, 3) !== 'ID3') return undefined;
  const version = tag[3]!;
  if ((version !== 3 && version !== 4) || tag[5]! & 0x80) return undefined;
  const size = (bytes: Uint8Array, at: number, safe: boolean) =>
    safe ? ((bytes[at]! << 21) | (bytes[at + 1]! << 14) | (bytes[at + 2]! << 7) | bytes[at + 3]!) : new DataView(bytes.buffer, bytes.byteOffset).getUint32(at);
  const end = Math.min(tag.length, 10 + size(tag, 6, true));
  for (let at = 10; at + 10 <= end; ) {
    const id = text(tag, at, 4);
    if (!/^[A-Z0-9]{4}$/.test(id)) break; // padding
    const length = size(tag, at + 4, version === 4);
    const body = tag.subarray(at + 10, Math.min(end, at + 10 + length));
    if (id === 'TXXX') {
      const [description, value] = decodeStrings(body);
      if (description.toLowerCase() === TRANSCRIPT_FRAME) return value;
    }
    at += 10 + length;
  }
  return undefined;
}

/** A `TXXX` frame's description and value: an encoding byte (Latin-1, UTF-16 with a BOM, UTF-16BE, UTF-8), then the two strings, NUL-separated. */
function decodeStrings(body: Uint8Array): [string, string] {
  const encoding = body[0];
  const unit = encoding === 1 || encoding === 2 ? 2 : 1;
  const nul = (at: number) => body[at] === 0 && (unit === 1 || body[at + 1] === 0);
  let at = 1;
  while (at + unit <= body.length && !nul(at)) at += unit;
  let value = body.subarray(Math.min(body.length, at + unit));
  while (value.length >= unit && value.subarray(value.length - unit).every((b) => b === 0)) value = value.subarray(0, value.length - unit);
  return [decode(encoding, body.subarray(1, at)), decode(encoding, value)];
}

function decode(encoding: number | undefined, bytes: Uint8Array): string {
  if (encoding === 3) return new TextDecoder('utf-8').decode(bytes);
  if (encoding === 0) return new TextDecoder('latin1').decode(bytes);
  if (bytes[0] === 0xff && bytes[1] === 0xfe) return new TextDecoder('utf-16le').decode(bytes.subarray(2));
  if (bytes[0] === 0xfe && bytes[1] === 0xff) return new TextDecoder('utf-16be').decode(bytes.subarray(2));
  return new TextDecoder(encoding === 1 ? 'utf-16le' : 'utf-16be').decode(bytes);
}
