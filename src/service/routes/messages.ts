/** Message history and feedback (dify-wire.md §5, the seed's feedback state table). */
import { z } from 'zod';
import { APP_OPERATIONS } from '../../protocol/index.js';
import type { ServiceContext } from '../context.js';
import { badParam } from '../errors.js';
import { json } from '../http.js';
import { CHAT_MODES, FEEDBACK_MODES, QueryReader } from '../params.js';
import type { Router } from '../router.js';
import { parseOrThrow } from '../validation.js';
import { appRoute } from './app-route.js';

const feedbackSchema = z.object({
  rating: z.enum(['like', 'dislike']).nullish(),
  content: z.string().nullish(),
});

export function messageRoutes(router: Router<ServiceContext>): void {
  const route = appRoute(router);
  route(APP_OPERATIONS.listMessages, { user: 'optional', modes: CHAT_MODES }, ({ app, user, url, context: { conversations } }) => {
    const q = new QueryReader('MessageListQuery', url.searchParams);
    const conversationId = q.uuid('conversation_id');
    if (!url.searchParams.has('conversation_id')) q.issue('conversation_id', 'Field required');
    const firstId = q.uuid('first_id');
    const limit = q.int('limit', 20, 1, 100);
    q.done();
    const conversation = conversations.get(app.id, user, conversationId!);
    return json(conversations.messages(conversation, { firstId, limit }));
  });

  route(APP_OPERATIONS.submitFeedback, { user: 'required', modes: FEEDBACK_MODES }, ({ app, user, params, body, context: { conversations } }) => {
    const { rating, content } = parseOrThrow(feedbackSchema, body, 'MessageFeedbackPayload');
    const message = conversations.message(app.id, user, params.message_id!);
    if (rating === undefined || rating === null) {
      if (!message.feedback) throw badParam('rating cannot be None when feedback not exists');
      message.feedback = null;
    } else {
      message.feedback = { rating, content: content ?? null };
    }
    return json({ result: 'success' });
  });
}
