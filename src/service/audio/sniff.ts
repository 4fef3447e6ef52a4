/**
 * The audio container of some bytes, as the real service labels text-to-audio answers: AAC,
 * FLAC, MP4, MP3, Ogg, WAV or WebM when the bytes say so, else the provider's declared type,
 * else `audio/mpeg`.
 */
export function sniffAudioType(bytes: Uint8Array): string | undefined {
  const ascii = (from: number, length: number) => String.fromCharCode(...bytes.subarray(from, from + length));
  if (bytes.length >= 12 && ascii(0, 4) === 'RIFF' && ascii(8, 4) === 'WAVE') return 'audio/wav';
  if (ascii(0, 4) === 'fLaC') return 'audio/flac';
  if (ascii(0, 4) === 'OggS') return 'audio/ogg';
  if (bytes.length >= 4 && bytes[0] === 0x1a && bytes[1] === 0x45 && bytes[2] === 0xdf && bytes[3] === 0xa3) return 'audio/webm';
  if (bytes.length >= 8 && ascii(4, 4) === 'ftyp') return 'audio/mp4';
  if (ascii(0, 3) === 'ID3') return 'audio/mpeg';
  if (bytes.length >= 2 && bytes[0] === 0xff && (bytes[1]! & 0xe0) === 0xe0) {
    // Frame sync: layer bits 00 are ADTS (AAC); any other layer is MPEG audio.
    return (bytes[1]! & 0x06) === 0 ? 'audio/aac' : 'audio/mpeg';
  }
  return undefined;
}

export function audioContentType(bytes: Uint8Array, declared?: string): string {
  return sniffAudioType(bytes) ?? declared ?? 'audio/mpeg';
}
