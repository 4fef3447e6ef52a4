/**
 * Puts a text-to-audio answer into an `<audio>` as early as the engine allows: MPEG audio (and
 * ADTS AAC) through Media Source Extensions (`ManagedMediaSource` where there is one, as on iOS)
 * when the engine's `isTypeSupported` takes the format, so it plays while the rest still arrives;
 * otherwise, and for any other container (FLAC, MP4, Ogg, WAV, WebM…, which need codec parameters
 * or a seekable file that a stream does not give), as one blob once it is whole. An engine that
 * says it takes a format and then fails on it (WebKitGTK refuses ADTS AAC on the first append and
 * throws `InvalidStateError` from `endOfStream()`) gets the whole answer instead, from where it was.
 */
type SourceClass = typeof MediaSource;

/** How the answer reached the `<audio>`: streamed through Media Source, or whole. */
export type Delivery = 'stream' | 'whole';

/** Elements whose media errors belong to a Media Source attempt that `feed` falls back from. */
const attempts = new WeakSet<HTMLMediaElement>();

/** Whether a media error on `audio` now is `feed`'s to handle (it will fall back), not the player's. */
export const streamMayFallBack = (audio: HTMLMediaElement): boolean => attempts.has(audio);

/** The Media Source class to stream `type` with, if the engine takes it. */
function streamable(type: string): SourceClass | undefined {
  const Source = (window as { ManagedMediaSource?: SourceClass }).ManagedMediaSource ?? window.MediaSource;
  return /^audio\/(mpeg|aac)$/.test(type) && Source?.isTypeSupported(type) ? Source : undefined;
}

/**
 * The answer's audio into `audio`. `playable(resume)` is called (maybe more than once) as soon as it
 * can start, and with `resume` true when a fallback put back audio that was playing. Settles when
 * every byte is in; rejects only when the answer itself fails (the network, an abort).
 */
export async function feed(audio: HTMLAudioElement, response: Response, playable: (resume?: boolean) => void): Promise<Delivery> {
  const type = (response.headers.get('Content-Type') || 'audio/mpeg').split(';')[0]!.trim().toLowerCase();
  const Source = response.body && streamable(type);
  if (!response.body || !Source) {
    audio.src = URL.createObjectURL(new Blob([await response.arrayBuffer()], { type }));
    playable();
    return 'whole';
  }
  const reader = response.body.getReader();
  const chunks: Uint8Array[] = [];
  attempts.add(audio);
  try {
    const source = new Source();
    // ManagedMediaSource plays only with remote playback (AirPlay) off.
    audio.disableRemotePlayback = true;
    audio.src = URL.createObjectURL(source);
    await once(source, 'sourceopen');
    let buffer: SourceBuffer | undefined = tryTo(() => source.addSourceBuffer(type));
    for (let chunk; !(chunk = await reader.read()).done; ) {
      chunks.push(chunk.value);
      if (buffer && (await appended(source, buffer, chunk.value))) playable();
      else buffer = undefined;
    }
    if (buffer && source.readyState === 'open' && tryTo(() => (source.endOfStream(), true))) return 'stream';
    // The engine gave up on the stream: play what arrived, whole, from where it was.
    const at = audio.currentTime;
    const resume = !audio.paused;
    const url = audio.src;
    // Loading anew drops the failed stream's queued media error before the player sees it.
    audio.removeAttribute('src');
    audio.load();
    URL.revokeObjectURL(url);
    audio.src = URL.createObjectURL(new Blob(chunks as BlobPart[], { type }));
    audio.currentTime = at;
    playable(resume);
    return 'whole';
  } finally {
    attempts.delete(audio);
  }
}

/** Appends `bytes`; false when the engine refused them (an exception, an `error` event, a closed source). */
async function appended(source: MediaSource, buffer: SourceBuffer, bytes: Uint8Array): Promise<boolean> {
  if (source.readyState !== 'open' || !tryTo(() => (buffer.appendBuffer(bytes as BufferSource), true))) return false;
  const event = await new Promise<Event>((resolve) => {
    buffer.addEventListener('updateend', resolve, { once: true });
    buffer.addEventListener('error', resolve, { once: true });
  });
  return event.type === 'updateend' && source.readyState === 'open';
}

function tryTo<T>(action: () => T): T | undefined {
  try {
    return action();
  } catch {
    return undefined;
  }
}

const once = (target: EventTarget, type: string) => new Promise((resolve) => target.addEventListener(type, resolve, { once: true }));
