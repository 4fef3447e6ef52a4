/**
 * `POST /text-to-audio`: real speech of the text (or of a message's answer, which wins), in the
 * container of the chosen voice, labelled by sniffing the bytes and streamed with chunked
 * transfer encoding (service-api.md endpoint 12).
 */
import { z } from 'zod';
import { canonicalUuid, LAX_UUID_PATTERN, APP_OPERATIONS } from '../../protocol/index.js';
import { audioContentType } from '../audio/sniff.js';
import { DECLARED_TYPES } from '../audio/speech.js';
import type { ServiceContext } from '../context.js';
import { ApiError, badParam, notFound } from '../errors.js';
import type { Router } from '../router.js';
import { parseOrThrow } from '../validation.js';
import { appRoute } from './app-route.js';

/** Longest text spoken in one request, about as much as hosted speech providers take. */
export const MAX_SPEECH_CHARACTERS = 5000;

const textToAudioSchema = z.object({
  text: z.string().nullish(),
  message_id: z.string().nullish(),
  voice: z.string().nullish(),
});

export function audioRoutes(router: Router<ServiceContext>): void {
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
      throw new ApiError(400, 'completion_request_error', `Completion request failed. ${(error as Error).message}`);
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
