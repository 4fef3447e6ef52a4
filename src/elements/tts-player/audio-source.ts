/**
 * Puts a text-to-audio answer into an `<audio>`: MPEG audio (and ADTS AAC) through Media Source
 * Extensions (`ManagedMediaSource` where there is one, as on iOS), so it plays while the rest
 * still arrives; any other container (FLAC, MP4, Ogg, WAV, WebM…) as one blob once it is whole,
 * because those need codec parameters or a seekable file that a stream does not give.
 */
type SourceClass = typeof MediaSource;

/** The answer's audio into `audio`; `playable` is called (maybe more than once) as soon as it can start. Settles when every byte is in. */
export async function feed(audio: HTMLAudioElement, response: Response, playable: () => void): Promise<void> {
  const type = (response.headers.get('Content-Type') || 'audio/mpeg').split(';')[0]!.trim().toLowerCase();
  const Source = (window as { ManagedMediaSource?: SourceClass }).ManagedMediaSource ?? window.MediaSource;
  if (!response.body || !/^audio\/(mpeg|aac)$/.test(type) || !Source?.isTypeSupported(type)) {
    audio.src = URL.createObjectURL(new Blob([await response.arrayBuffer()], { type }));
    return playable();
  }
  const source = new Source();
  // ManagedMediaSource plays only with remote playback (AirPlay) off.
  audio.disableRemotePlayback = true;
  audio.src = URL.createObjectURL(source);
  await once(source, 'sourceopen');
  const buffer = source.addSourceBuffer(type);
  const reader = response.body.getReader();
  for (let chunk; !(chunk = await reader.read()).done; ) {
    buffer.appendBuffer(chunk.value);
    await once(buffer, 'updateend');
    playable();
  }
  source.endOfStream();
}

const once = (target: EventTarget, type: string) => new Promise((resolve) => target.addEventListener(type, resolve, { once: true }));
