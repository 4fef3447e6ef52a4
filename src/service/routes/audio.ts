/**
 * `POST /text-to-audio`: real speech of the text (or of a message's answer, which wins), in the
 * container of the chosen voice, labelled by sniffing the bytes and streamed with chunked
 * transfer encoding (service-api.md endpoint 12). `POST /audio-to-text`: Dify's checks
 * (`AudioService.transcript_asr`), then the transcript the audio is tagged with (the service's
 * own speech is), else the one QA scripted, else `""`, the answer to audio without speech.
 */
import { z } from 'zod';
import { canonicalUuid, LAX_UUID_PATTERN, APP_OPERATIONS } from '../../protocol/index.js';
import { audioContentType, sniffAudioType } from '../audio/sniff.js';
import { DECLARED_TYPES } from '../audio/speech.js';
import { taggedTranscript } from '../audio/transcript.js';
import type { ServiceContext } from '../context.js';
import { ApiError, badParam, completionRequestError, notFound } from '../errors.js';
import { readMultipart } from '../files/multipart.js';
import { json } from '../http.js';
import type { Router } from '../router.js';
import { parseOrThrow } from '../validation.js';
import { appRoute } from './app-route.js';

/** Longest text spoken in one request, about as much as hosted speech providers take. */
export const MAX_SPEECH_CHARACTERS = 5000;

/** Dify's `FILE_SIZE_LIMIT` for audio to text (`audio_service.py`): 30 MB. */
const MAX_AUDIO_MB = 30;
/** The part types Dify transcribes: `audio/` + each of its `AUDIO_EXTENSIONS`, `audio/x-m4a` read as `audio/m4a`. */
const TRANSCRIBED_TYPES = new Set(['mp3', 'm4a', 'wav', 'amr', 'mpga'].map((extension) => `audio/${extension}`));
const TYPE_ALIASES: Readonly<Record<string, string>> = { 'audio/x-m4a': 'audio/m4a' };

const noAudio = () => new ApiError(400, 'no_audio_uploaded', 'Please upload your audio.');
const audioTooLarge = () => new ApiError(413, 'audio_too_large', `Audio size larger than ${MAX_AUDIO_MB} mb`);

const textToAudioSchema = z.object({
  text: z.string().nullish(),
  message_id: z.string().nullish(),
  voice: z.string().nullish(),
});

export function audioRoutes(router: Router<ServiceContext>): void {
  // Every mode; `user` (a form field) is optional and names no one whose audio it is.
  appRoute(router)(APP_OPERATIONS.audioToText, {}, async ({ app, request, context: { qa } }) => {
    if (!app.parameters.speech_to_text.enabled) throw new ApiError(400, 'speech_to_text_disabled', 'Speech to text is disabled.');
    const ceiling = MAX_AUDIO_MB * 1024 * 1024;
    const { files, headers } = await readMultipart(request, ceiling, { notMultipart: noAudio, tooLarge: audioTooLarge });
    const part = files[0];
    if (!part) throw noAudio();
    // The part's declared type, as werkzeug's `FileStorage.mimetype` reads it (none: empty): Dify never looks at the bytes for it.
    const declared = headers.find((h) => h.name === 'file')?.hasContentType ? part.mimeType.toLowerCase() : '';
    if (!TRANSCRIBED_TYPES.has(TYPE_ALIASES[declared] ?? declared)) throw new ApiError(415, 'unsupported_audio_type', 'Audio type not allowed.');
    if (part.truncated || part.size > ceiling) throw audioTooLarge();
    // What a speech model would refuse: bytes in no audio container (AMR's is `#!AMR`).
    if (!sniffAudioType(part.bytes) && !String.fromCharCode(...part.bytes.subarray(0, 5)).startsWith('#!AMR')) {
      throw completionRequestError('The audio could not be decoded: its bytes are in no audio container the service knows.');
    }
    return json({ text: taggedTranscript(part.bytes) ?? qa.settings.transcript ?? '' });
  });

  appRoute(router)(APP_OPERATIONS.textToAudio, { user: 'optional' }, async ({ app, body: raw, context: { conversations, speech } }) => {
    const tts = app.parameters.text_to_speech;
    if (!tts.enabled) throw badParam('TTS is not enabled');
    const body = parseOrThrow(textToAudioSchema, raw, 'TextToAudioPayload');
    let text: string | undefined;
    if (body.message_id) {
      if (!LAX_UUID_PATTERN.test(body.message_id)) throw notFound('Message Not Exists.');
      const message = conversations.messageOfApp(app.id, canonicalUuid(body.message_id));
      if (!message) throw notFound('Message Not Exists.');
      text = message.answer;
    } else if (typeof body.text === 'string') {
      text = body.text;
    }
    if (!text?.trim()) throw badParam('Text is required');
    if (text.length > MAX_SPEECH_CHARACTERS) throw badParam(`Text is too long: at most ${MAX_SPEECH_CHARACTERS} characters are spoken at once`);
    // An unknown voice falls back to the app's configured one, as a provider's default would.
    const voice = tts.voices.find((v) => v.value === body.voice) ?? tts.voices.find((v) => v.value === tts.voice)!;

    const chunks = speech.speak(text, voice.espeak, voice.format);
    let first: IteratorResult<Uint8Array>;
    try {
      first = await chunks.next();
    } catch (error) {
      throw completionRequestError((error as Error).message);
    }
    const head = first.done ? new Uint8Array() : first.value;
    const body$ = new ReadableStream<Uint8Array>({
      start(controller) {
        if (head.length) controller.enqueue(head);
      },
      async pull(controller) {
        try {
          const next = await chunks.next();
          if (next.done) controller.close();
          else controller.enqueue(next.value);
        } catch (error) {
          controller.error(error);
        }
      },
      async cancel() {
        await chunks.return(undefined);
      },
    });
    // No Content-Length: the answer goes out with chunked transfer encoding as it is synthesized.
    return new Response(body$, { headers: { 'Content-Type': audioContentType(head, DECLARED_TYPES[voice.format]), 'Cache-Control': 'no-cache' } });
  });
}
