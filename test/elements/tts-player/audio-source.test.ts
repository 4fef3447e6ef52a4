import { expect } from '@open-wc/testing';
import { feed } from '../../../src/elements/tts-player/audio-source.js';
import { SessionSource } from '../../../src/elements/shared/session.js';
import { until } from '../helpers/wait.js';
import { newUser } from '../conversation-list/chat-app.js';
import { aac, flac, recorded, wav } from './audio-bytes.js';

/** Plays `bytes` labelled `type` through `feed`, as the player does, and answers how far it got. */
async function plays(bytes: Uint8Array, type: string): Promise<number> {
  const audio = new Audio();
  let playable = 0;
  // The body streams in pieces, as an answer with chunked transfer encoding does.
  const body = new ReadableStream<Uint8Array>({
    start(controller) {
      for (let i = 0; i < bytes.length; i += 4096) controller.enqueue(bytes.slice(i, i + 4096));
      controller.close();
    },
  });
  await feed(audio, new Response(body, { headers: { 'Content-Type': type } }), () => playable++);
  expect(playable).to.be.greaterThan(0);
  await audio.play();
  await until(() => audio.currentTime > 0.3, `${type} to play`, 6000);
  audio.pause();
  return audio.currentTime;
}

async function spoken(voice: string): Promise<{ bytes: Uint8Array; type: string }> {
  const api = await SessionSource.for(await newUser()).transport();
  const response = await api.send('POST', '/text-to-audio', { json: { text: 'One, two, three, four, five. Six, seven, eight.', voice } });
  return { bytes: new Uint8Array(await response.arrayBuffer()), type: response.headers.get('Content-Type')! };
}

describe('text-to-audio answers of every container the seed names', function () {
  this.timeout(30_000);

  it('plays MP3 (streamed through MediaSource) and Ogg from the service', async () => {
    const mp3 = await spoken('alloy');
    expect(mp3.type).to.equal('audio/mpeg');
    expect(await plays(mp3.bytes, mp3.type)).to.be.greaterThan(0.3);
    const ogg = await spoken('nova');
    expect(ogg.type).to.equal('audio/ogg');
    expect(await plays(ogg.bytes, ogg.type)).to.be.greaterThan(0.3);
  });

  it('plays WAV and FLAC', async () => {
    expect(await plays(wav(), 'audio/wav')).to.be.greaterThan(0.3);
    expect(await plays(flac(), 'audio/flac')).to.be.greaterThan(0.3);
  });

  it('plays AAC (ADTS, through MediaSource)', async () => {
    expect(await plays(aac(), 'audio/aac')).to.be.greaterThan(0.3);
  });

  it('plays WebM and MP4', async () => {
    expect(await plays(await recorded('audio/webm'), 'audio/webm')).to.be.greaterThan(0.3);
    expect(await plays(await recorded('audio/mp4'), 'audio/mp4')).to.be.greaterThan(0.3);
  });

  it('takes an unlabelled answer for MPEG audio, as the service does', async () => {
    const mp3 = await spoken('alloy');
    expect(await plays(mp3.bytes, '')).to.be.greaterThan(0.3);
  });
});
