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

/**
 * The answer's audio into `audio`. `playable(resume)` is called (maybe more than once) as soon as it
 * can start, and with `resume` true when a fallback put back audio that was playing. Settles when
 * every byte is in; rejects only when the answer itself fails (the network, an abort).
 */
export async function feed(audio: HTMLAudioElement, response: Response, playable: (resume?: boolean) => void): Promise<Delivery> {
  const type = (response.headers.get('Content-Type') || 'audio/mpeg').split(';')[0]!.trim().toLowerCase();
  const Source = (window as { ManagedMediaSource?: SourceClass }).ManagedMediaSource ?? window.MediaSource;
  const chunks: BlobPart[] = [];
  let at = 0;
  let resume = false;
  if (response.body && /^audio\/(mpeg|aac)$/.test(type) && Source?.isTypeSupported(type)) {
    const source = new Source();
    let buffer: SourceBuffer | undefined;
    /**
     * Leaves a stream the engine refused, keeping where it was. Loading anew at once also drops the
     * media error the refusal queued, before the player could take it for a failed answer.
     */
    const abandon = () => {
      if (!buffer) return;
      buffer = undefined;
      at = audio.currentTime;
      resume = !audio.paused;
      URL.revokeObjectURL(audio.src);
      audio.removeAttribute('src');
      audio.load();
    };
    // ManagedMediaSource plays only with remote playback (AirPlay) off.
    audio.disableRemotePlayback = true;
    audio.src = URL.createObjectURL(source);
    await once(source, 'sourceopen');
    try {
      buffer = source.addSourceBuffer(type);
    } catch {
      // Taken by isTypeSupported, refused here: played whole below.
    }
    const reader = response.body.getReader();
    for (let chunk; !(chunk = await reader.read()).done; ) {
      chunks.push(chunk.value as BlobPart);
      try {
        // An engine refuses a piece by throwing, by an error event, or by closing the source.
        buffer!.appendBuffer(chunk.value as BufferSource);
        if ((await once(buffer!, 'updateend', 'error')).type == 'error' || source.readyState != 'open') throw 0;
        playable();
      } catch {
        abandon();
      }
    }
    try {
      if (buffer) return source.endOfStream(), 'stream';
    } catch {
      // WebKitGTK's InvalidStateError, among others.
      abandon();
    }
  } else chunks.push(await response.arrayBuffer());
  // Whole: what never streamed, and what arrived of a stream the engine gave up on, from where it was.
  audio.src = URL.createObjectURL(new Blob(chunks, { type }));
  audio.currentTime = at;
  playable(resume);
  return 'whole';
}

/** The first of `types` that `target` fires. */
const once = (target: EventTarget, ...types: string[]) =>
  new Promise<Event>((resolve) => types.forEach((type) => target.addEventListener(type, resolve, { once: true })));
