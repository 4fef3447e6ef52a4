import { expect } from '@open-wc/testing';
import { feed, type Delivery } from '../../../src/elements/tts-player/audio-source.js';
import { SessionSource } from '../../../src/elements/shared/session.js';
import { until } from '../helpers/wait.js';
import { mediaSourceTakes, skipBecause } from '../helpers/engine.js';
import { newUser } from '../conversation-list/chat-app.js';
import { chunked, flac, tone, wav } from './audio-bytes.js';

/** Plays `bytes` labelled `type` through `feed`, as the player does; answers how it was delivered and how far it got. */
async function plays(bytes: Uint8Array, type: string): Promise<{ delivery: Delivery; at: number }> {
  const audio = new Audio();
  let playable = 0;
  const delivery = await feed(audio, new Response(chunked(bytes), { headers: { 'Content-Type': type } }), () => playable++);
  expect(playable).to.be.greaterThan(0);
  await audio.play();
  await until(() => audio.currentTime > 0.3, `${type || 'unlabelled audio'} to play`, 6000);
  audio.pause();
  expect(audio.error?.code ?? 0, `media error ${audio.error?.message}`).to.equal(0);
  return { delivery, at: audio.currentTime };
}

async function spoken(voice: string, text = 'One, two, three, four, five. Six, seven, eight.'): Promise<{ bytes: Uint8Array; type: string }> {
  const api = await SessionSource.for(await newUser()).transport();
  const response = await api.send('POST', '/text-to-audio', { json: { text, voice } });
  return { bytes: new Uint8Array(await response.arrayBuffer()), type: response.headers.get('Content-Type')! };
}

/** The Media Source classes this engine has (ManagedMediaSource too, where there is one). */
const sources = () => [window.MediaSource, (window as { ManagedMediaSource?: typeof MediaSource }).ManagedMediaSource].filter((s) => s !== undefined);

/** Runs `body` with `replace(original)` standing in for a method of `target`, then puts it back. */
async function patched<T extends object, K extends keyof T>(targets: T[], key: K, replace: (original: T[K]) => T[K], body: () => Promise<void>): Promise<void> {
  const originals = targets.map((t) => [t, Object.getOwnPropertyDescriptor(t, key)] as const);
  for (const [target] of originals) Object.defineProperty(target, key, { value: replace(target[key]), configurable: true, writable: true });
  try {
    await body();
  } finally {
    for (const [target, descriptor] of originals) {
      if (descriptor) Object.defineProperty(target, key, descriptor);
      else delete target[key];
    }
  }
}

describe('text-to-audio answers of every container the seed names', function () {
  this.timeout(30_000);

  it('streams MP3 from the service through Media Source where the engine takes audio/mpeg', async function () {
    if (!mediaSourceTakes('audio/mpeg')) skipBecause(this, "this engine's Media Source does not take audio/mpeg: the answer plays whole, tested below");
    const mp3 = await spoken('alloy');
    expect(mp3.type).to.equal('audio/mpeg');
    expect(await plays(mp3.bytes, mp3.type)).to.include({ delivery: 'stream' });
  });

  it('plays MP3 whole, without an error, where Media Source does not take it (as in Firefox)', async () => {
    const mp3 = await spoken('alloy');
    await patched(sources(), 'isTypeSupported', () => () => false, async () => {
      expect(await plays(mp3.bytes, mp3.type)).to.include({ delivery: 'whole' });
    });
    // And in an engine without Media Source at all.
    await patched([window as { MediaSource?: unknown; ManagedMediaSource?: unknown }], 'MediaSource', () => undefined, async () => {
      await patched([window as { ManagedMediaSource?: unknown }], 'ManagedMediaSource', () => undefined, async () => {
        expect(await plays(mp3.bytes, mp3.type)).to.include({ delivery: 'whole' });
      });
    });
  });

  it("falls back to the whole answer when the stream's end fails (WebKit's endOfStream() InvalidStateError)", async function () {
    if (!mediaSourceTakes('audio/mpeg')) skipBecause(this, "this engine's Media Source does not take audio/mpeg, so no stream can fail");
    const mp3 = await spoken('alloy');
    const fail = () =>
      function () {
        throw new DOMException('The object is in an invalid state.', 'InvalidStateError');
      };
    await patched(sources().map((s) => s.prototype), 'endOfStream', fail, async () => {
      expect(await plays(mp3.bytes, mp3.type)).to.include({ delivery: 'whole' });
    });
  });

  it('falls back mid-stream when the engine refuses a piece, and plays on from where it was', async function () {
    if (!mediaSourceTakes('audio/mpeg')) skipBecause(this, "this engine's Media Source does not take audio/mpeg, so no stream can fail");
    const mp3 = await spoken('alloy', 'The parcel left our warehouse this morning. It travels by road to the sorting centre. From there a courier takes it to your door.');
    const half = mp3.bytes.length >> 1;
    let push!: ReadableStreamDefaultController<Uint8Array>;
    const body = new ReadableStream<Uint8Array>({ start: (controller) => void (push = controller) });
    push.enqueue(mp3.bytes.slice(0, half));
    const audio = new Audio();
    let resumed = false;
    const delivered = feed(audio, new Response(body, { headers: { 'Content-Type': 'audio/mpeg' } }), (resume) => {
      if (resume) resumed = true;
      else if (audio.paused) void audio.play();
    });
    await until(() => audio.currentTime > 0.5, 'the first half to play while streaming', 10_000);
    await patched(
      [SourceBuffer.prototype],
      'appendBuffer',
      () =>
        function () {
          throw new DOMException('The object is in an invalid state.', 'InvalidStateError');
        },
      async () => {
        push.enqueue(mp3.bytes.slice(half));
        push.close();
        expect(await delivered).to.equal('whole');
      },
    );
    const at = audio.currentTime;
    expect(resumed, 'asked to resume').to.equal(true);
    expect(at).to.be.greaterThan(0.4);
    await audio.play();
    await until(() => audio.currentTime > at + 0.3, 'playback to go on from where it was', 6000);
    audio.pause();
    expect(audio.error?.code ?? 0, `media error ${audio.error?.message}`).to.equal(0);
  });

  it('plays ADTS AAC, streamed where Media Source takes and keeps it, else whole (WebKitGTK refuses it mid-stream)', async () => {
    const { delivery } = await plays(await tone('tone.aac'), 'audio/aac');
    if (!mediaSourceTakes('audio/aac')) expect(delivery).to.equal('whole');
  });

  it('plays Ogg from the service, WAV and FLAC, whole', async () => {
    const ogg = await spoken('nova');
    expect(ogg.type).to.equal('audio/ogg');
    expect(await plays(ogg.bytes, ogg.type)).to.include({ delivery: 'whole' });
    expect(await plays(wav(), 'audio/wav')).to.include({ delivery: 'whole' });
    expect(await plays(flac(), 'audio/flac')).to.include({ delivery: 'whole' });
  });

  it('plays WebM (Opus) and MP4 (AAC), whole', async () => {
    expect(await plays(await tone('tone.webm'), 'audio/webm')).to.include({ delivery: 'whole' });
    expect(await plays(await tone('tone.m4a'), 'audio/mp4')).to.include({ delivery: 'whole' });
  });

  it('takes an unlabelled answer for MPEG audio, as the service does', async () => {
    const mp3 = await spoken('alloy');
    expect((await plays(mp3.bytes, '')).at).to.be.greaterThan(0.3);
  });
});
