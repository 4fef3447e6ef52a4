/**
 * Real speech, offline: eSpeak NG compiled to WebAssembly synthesizes each sentence to 16-bit
 * PCM, which goes out as WAV, or is encoded to MP3 or Ogg Vorbis as it is produced, so a long
 * text starts playing before it is all spoken. MP3 and WAV carry the spoken text as their
 * transcript tag (transcript.ts), which the service's audio to text reads back.
 */
import { readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { createMp3Encoder, createOggEncoder } from 'wasm-media-encoders';
import { transcriptChunk, transcriptTag } from './transcript.js';

/** A compiled WebAssembly module, opaque here. */
type WasmModule = { readonly __wasmModule?: never };

/** Node has the WebAssembly global; the node typings declare only its types. */
const wasm = (globalThis as unknown as {
  WebAssembly: {
    compile(bytes: Uint8Array): Promise<WasmModule>;
    instantiate(module: WasmModule, imports: object): Promise<object>;
  };
}).WebAssembly;

export type AudioFormat = 'mp3' | 'wav' | 'ogg';

/** What each format declares when its bytes are not recognized. */
export const DECLARED_TYPES: Readonly<Record<AudioFormat, string>> = { mp3: 'audio/mpeg', wav: 'audio/wav', ogg: 'audio/ogg' };

interface Pcm {
  sampleRate: number;
  samples: Int16Array;
}

export class SpeechError extends Error {}

type ESpeakNgFactory = typeof import('espeak-ng').default;

/**
 * eSpeak NG is GPL-3.0-or-later, so it is an optional peer of this MIT package rather than a
 * dependency: installed for the demo and the tests, loaded only when speech is asked for.
 */
let espeak: Promise<ESpeakNgFactory> | undefined;
function loadESpeakNg(): Promise<ESpeakNgFactory> {
  espeak ??= import('espeak-ng').then(
    (module) => module.default,
    () => {
      espeak = undefined;
      throw new SpeechError('text to audio in the embedded service needs the optional package espeak-ng (npm install espeak-ng).');
    },
  );
  return espeak;
}

export class SpeechSynthesizer {
  #module: Promise<WasmModule> | undefined;

  /** Audio of `text` in `voice` (an eSpeak NG voice), as chunks to stream; MP3 and WAV tagged with `text` (trimmed) as their transcript. */
  async *speak(text: string, voice: string, format: AudioFormat): AsyncGenerator<Uint8Array> {
    const sentences = splitSentences(text);
    if (format === 'wav') {
      const parts: Pcm[] = [];
      for (const sentence of sentences) parts.push(await this.#synthesize(sentence, voice)), await turn();
      yield* chunked(wavFile(parts, transcriptChunk(text.trim())));
      return;
    }
    // The tag leads the first chunk of audio, so a synthesis that fails at once still fails before any byte goes out.
    let tag: Uint8Array | undefined = format === 'mp3' ? transcriptTag(text.trim()) : undefined;
    const withTag = (bytes: Uint8Array): Uint8Array => {
      if (!tag) return bytes;
      const joined = Buffer.concat([tag, bytes]);
      tag = undefined;
      return joined;
    };
    let encoder: Awaited<ReturnType<typeof createMp3Encoder>> | Awaited<ReturnType<typeof createOggEncoder>> | undefined;
    for (const sentence of sentences) {
      await turn();
      const pcm = await this.#synthesize(sentence, voice);
      if (!encoder) {
        encoder = format === 'mp3' ? await createMp3Encoder() : await createOggEncoder();
        if (format === 'mp3') (encoder as Awaited<ReturnType<typeof createMp3Encoder>>).configure({ sampleRate: pcm.sampleRate, channels: 1, vbrQuality: 4 });
        else (encoder as Awaited<ReturnType<typeof createOggEncoder>>).configure({ sampleRate: pcm.sampleRate, channels: 1, vbrQuality: 3 });
      }
      const floats = Float32Array.from(pcm.samples, (s) => s / 32768);
      // The encoder reuses its output buffer: copy before the next call.
      const out = encoder.encode([floats]).slice();
      if (out.length) yield withTag(out);
    }
    if (encoder) {
      const tail = encoder.finalize().slice();
      if (tail.length || tag) yield withTag(tail);
    }
  }

  async #synthesize(text: string, voice: string): Promise<Pcm> {
    const ESpeakNg = await loadESpeakNg();
    const module = await this.#compiled();
    const errors: string[] = [];
    const instance = await ESpeakNg({
      arguments: ['-w', '/out.wav', '-v', voice, '-f', '/in.txt'],
      preRun: [(m) => m.FS.writeFile('/in.txt', text)],
      print: () => undefined,
      printErr: (line) => errors.push(line),
      instantiateWasm(imports, done) {
        void wasm.instantiate(module, imports).then(done);
        return {};
      },
    });
    let wav: Uint8Array;
    try {
      wav = instance.FS.readFile('/out.wav');
    } catch {
      throw new SpeechError(errors.find((e) => e.startsWith('Error')) ?? `eSpeak NG produced no audio for voice ${voice}`);
    }
    return parseWav(wav);
  }

  /** The 18 MB module (voice data included) is compiled once and instantiated per sentence batch. */
  #compiled(): Promise<WasmModule> {
    this.#module ??= (async () => {
      const path = createRequire(import.meta.url).resolve('espeak-ng').replace(/espeak-ng\.js$/, 'espeak-ng.wasm');
      return wasm.compile(await readFile(path));
    })();
    return this.#module;
  }
}

/**
 * Longest piece spoken in one go. Each piece is synthesized synchronously, and one unpunctuated
 * run of 5,000 characters held the whole service for two seconds; a long sentence is cut at
 * word boundaries instead, and the service gets its turn between pieces (`speak`).
 */
const MAX_PIECE = 200;

function pieces(sentence: string): string[] {
  const out: string[] = [];
  let rest = sentence;
  while (rest.length > MAX_PIECE) {
    const space = rest.lastIndexOf(' ', MAX_PIECE);
    const cut = space > 0 ? space : MAX_PIECE;
    out.push(rest.slice(0, cut).trim());
    rest = rest.slice(cut).trim();
  }
  if (rest) out.push(rest);
  return out;
}

/** Sentences, so long texts are spoken (and streamed) piece by piece; tiny ones stay whole, long ones are cut (`MAX_PIECE`). */
export function splitSentences(text: string): string[] {
  const parts = text.match(/[^.!?\n]+[.!?]*\s*|\n+/g) ?? [text];
  const sentences: string[] = [];
  let current = '';
  for (const part of parts) {
    current += part;
    if (current.trim().length >= 40) {
      sentences.push(current.trim());
      current = '';
    }
  }
  if (current.trim()) sentences.push(current.trim());
  return (sentences.length ? sentences : [text]).flatMap(pieces);
}

/** A turn of the event loop for everything else the service does. */
const turn = () => new Promise((resolve) => setImmediate(resolve));

function parseWav(bytes: Uint8Array): Pcm {
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  let offset = 12;
  let sampleRate = 22_050;
  while (offset + 8 <= bytes.length) {
    const id = String.fromCharCode(...bytes.subarray(offset, offset + 4));
    let size = view.getUint32(offset + 4, true);
    if (id === 'fmt ') sampleRate = view.getUint32(offset + 12, true);
    if (id === 'data') {
      // eSpeak NG writes 0x7fffffff as the size of a stream; the data runs to the end.
      size = Math.min(size, bytes.length - offset - 8);
      const samples = new Int16Array(size >> 1);
      for (let i = 0; i < samples.length; i++) samples[i] = view.getInt16(offset + 8 + i * 2, true);
      return { sampleRate, samples };
    }
    offset += 8 + size + (size & 1);
  }
  throw new SpeechError('eSpeak NG produced an unreadable WAV file');
}

/** A WAV file of the PCM parts, `extra` (whole chunks) after the samples. */
function wavFile(parts: Pcm[], extra: Uint8Array): Uint8Array {
  const sampleRate = parts[0]?.sampleRate ?? 22_050;
  const count = parts.reduce((n, p) => n + p.samples.length, 0);
  const out = new Uint8Array(44 + count * 2 + extra.length);
  const view = new DataView(out.buffer);
  const ascii = (at: number, s: string) => [...s].forEach((c, i) => view.setUint8(at + i, c.charCodeAt(0)));
  ascii(0, 'RIFF');
  view.setUint32(4, 36 + count * 2 + extra.length, true);
  ascii(8, 'WAVE');
  ascii(12, 'fmt ');
  view.setUint32(16, 16, true);
  view.setUint16(20, 1, true); // PCM
  view.setUint16(22, 1, true); // mono
  view.setUint32(24, sampleRate, true);
  view.setUint32(28, sampleRate * 2, true);
  view.setUint16(32, 2, true);
  view.setUint16(34, 16, true);
  ascii(36, 'data');
  view.setUint32(40, count * 2, true);
  let at = 44;
  for (const part of parts) {
    for (const sample of part.samples) {
      view.setInt16(at, sample, true);
      at += 2;
    }
  }
  out.set(extra, at);
  return out;
}

function* chunked(bytes: Uint8Array, size = 64 * 1024): Generator<Uint8Array> {
  for (let i = 0; i < bytes.length; i += size) yield bytes.subarray(i, i + size);
}
