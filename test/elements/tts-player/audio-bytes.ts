/**
 * Real audio in the containers the service may label its answers with: a sine as WAV and FLAC
 * written here (PCM, and FLAC's verbatim subframes), and ADTS AAC, MP4 and WebM from fixtures.
 */
const RATE = 16_000;

function sine(seconds: number): Int16Array {
  return Int16Array.from({ length: Math.round(RATE * seconds) }, (_, i) => Math.round(Math.sin((2 * Math.PI * 440 * i) / RATE) * 8000));
}

export function wav(seconds = 1.5): Uint8Array {
  const samples = sine(seconds);
  const out = new DataView(new ArrayBuffer(44 + samples.length * 2));
  const ascii = (at: number, text: string) => [...text].forEach((c, i) => out.setUint8(at + i, c.charCodeAt(0)));
  ascii(0, 'RIFF');
  out.setUint32(4, 36 + samples.length * 2, true);
  ascii(8, 'WAVEfmt ');
  out.setUint32(16, 16, true);
  out.setUint16(20, 1, true);
  out.setUint16(22, 1, true);
  out.setUint32(24, RATE, true);
  out.setUint32(28, RATE * 2, true);
  out.setUint16(32, 2, true);
  out.setUint16(34, 16, true);
  ascii(36, 'data');
  out.setUint32(40, samples.length * 2, true);
  samples.forEach((s, i) => out.setInt16(44 + i * 2, s, true));
  return new Uint8Array(out.buffer);
}

function crc(bytes: Uint8Array, bits: 8 | 16, poly: number): number {
  let c = 0;
  const top = 1 << (bits - 1);
  const mask = (1 << bits) - 1;
  for (const byte of bytes) {
    c ^= byte << (bits - 8);
    for (let i = 0; i < 8; i++) c = (c & top ? (c << 1) ^ poly : c << 1) & mask;
  }
  return c;
}

/** FLAC: STREAMINFO, then frames of 4096 samples with one verbatim 16-bit mono subframe each. */
export function flac(seconds = 1.5): Uint8Array {
  const samples = sine(seconds);
  const block = 4096;
  const parts: number[] = [...'fLaC'].map((c) => c.charCodeAt(0));
  // STREAMINFO (last metadata block, 34 bytes): block sizes, frame sizes unknown, rate, channels, depth, total, no MD5.
  parts.push(0x80, 0, 0, 34, block >> 8, block & 255, block >> 8, block & 255, 0, 0, 0, 0, 0, 0);
  const total = samples.length;
  parts.push(RATE >> 12, (RATE >> 4) & 255, ((RATE & 15) << 4) | (0 << 1) | (15 >> 4), ((15 & 15) << 4) | ((total / 2 ** 32) & 15));
  parts.push((total >>> 24) & 255, (total >>> 16) & 255, (total >>> 8) & 255, total & 255, ...new Array(16).fill(0));
  for (let frame = 0; frame * block < total; frame++) {
    const chunk = samples.subarray(frame * block, (frame + 1) * block);
    // Sync, fixed block size; size in the 16-bit field at the end; 16 kHz (said here too: demuxers take
    // timestamps from frame headers); mono, 16 bits; frame number < 128.
    const header = [0xff, 0xf8, 0x75, 0x08, frame, (chunk.length - 1) >> 8, (chunk.length - 1) & 255];
    header.push(crc(Uint8Array.from(header), 8, 0x07));
    const body = [...header, 0x02];
    for (const s of chunk) body.push((s >> 8) & 255, s & 255);
    const sum = crc(Uint8Array.from(body), 16, 0x8005);
    parts.push(...body, sum >> 8, sum & 255);
  }
  return Uint8Array.from(parts);
}

/**
 * A 1.5 s tone from test/fixtures/audio (made once with ffmpeg, see its README), in containers that
 * every engine tested here decodes but none can make in the page: Firefox's MediaRecorder writes no
 * MP4, WebKit's no WebM, and no engine has an AAC encoder.
 */
export async function tone(file: 'tone.aac' | 'tone.m4a' | 'tone.webm'): Promise<Uint8Array> {
  const response = await fetch(`/test/fixtures/audio/${file}`);
  if (!response.ok) throw new Error(`${file}: ${response.status}`);
  return new Uint8Array(await response.arrayBuffer());
}

/** A body that arrives in pieces, as an answer with chunked transfer encoding does. */
export function chunked(bytes: Uint8Array): ReadableStream<Uint8Array> {
  return new ReadableStream({
    start(controller) {
      for (let i = 0; i < bytes.length; i += 4096) controller.enqueue(bytes.slice(i, i + 4096));
      controller.close();
    },
  });
}
