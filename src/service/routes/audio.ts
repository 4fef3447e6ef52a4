/**
 * `POST /text-to-audio`: real speech of the text (or of a message's answer, which wins), in the
 * container of the chosen voice, labelled by sniffing the bytes and streamed with chunked
 * transfer encoding (service-api.md endpoint 12).
 */
import { authenticateApp } from '../auth.js';
import { audioContentType } from '../audio/sniff.js';
import { DECLARED_TYPES } from '../audio/speech.js';
import type { ServiceContext } from '../context.js';
import { ApiError, badParam, notFound } from '../errors.js';
import { readJsonObject } from '../http.js';
import { optionalUser, UUID_PATTERN, validationError } from '../params.js';
import type { Router } from '../router.js';

/** Longest text spoken in one request, about as much as hosted speech providers take. */
export const MAX_SPEECH_CHARACTERS = 5000;

export function audioRoutes(router: Router<ServiceContext>): void {
  router.on('POST', '/text-to-audio', async (request, _p, _u, { fixture, conversations, speech }) => {
    const app = authenticateApp(request, fixture);
    const body = await readJsonObject(request);
    optionalUser(body.user);
    const tts = app.parameters.text_to_speech;
    if (!tts.enabled) throw badParam('TTS is not enabled');
    for (const field of ['text', 'message_id', 'voice'] as const) {
      const value = body[field];
      if (value !== undefined && value !== null && typeof value !== 'string') {
        throw validationError('TextToAudioPayload', [{ loc: field, msg: 'Input should be a valid string' }]);
      }
    }
    let text: string | undefined;
    if (typeof body.message_id === 'string' && body.message_id) {
      if (!UUID_PATTERN.test(body.message_id)) throw notFound('Message Not Exists.');
      const message = conversations.messageOfApp(app.id, body.message_id);
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
