/**
 * Message history and feedback (dify-wire.md §5, the seed's feedback state table), the questions
 * to suggest after an answer (`MessageSuggestedApi`) and the app's feedback (`AppGetFeedbacksApi`).
 */
import { z } from 'zod';
import { APP_OPERATIONS } from '../../protocol/index.js';
import type { ServiceContext } from '../context.js';
import { feedbackView } from '../conversations/store.js';
import { suggestQuestions } from '../conversations/suggestions.js';
import { ApiError, badParam } from '../errors.js';
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
    if ((rating === undefined || rating === null) && !message.feedback) throw badParam('rating cannot be None when feedback not exists');
    conversations.rate(message, rating ? { rating, content: content ?? null } : null);
    return json({ result: 'success' });
  });

  // The message is looked up (the user's own) before the feature is checked, as Dify's service does.
  route(APP_OPERATIONS.getSuggestedQuestions, { user: 'required', modes: CHAT_MODES }, ({ app, user, params, context: { conversations } }) => {
    const message = conversations.message(app.id, user, params.message_id!);
    if (!app.parameters.suggested_questions_after_answer.enabled) {
      throw new ApiError(403, 'app_suggested_questions_after_answer_disabled', "The 'Suggested Questions After Answer' feature is disabled. Please refresh your page.");
    }
    return json({ result: 'success', data: suggestQuestions(conversations.history(message, 3)) });
  });

  // Every mode, every end user: the key's app is all it is scoped to.
  route(APP_OPERATIONS.listAppFeedbacks, {}, ({ app, url, context: { conversations, endUsers } }) => {
    const q = new QueryReader('FeedbackListQuery', url.searchParams);
    const page = q.int('page', 1, 1, Infinity);
    const limit = q.int('limit', 20, 1, 101);
    q.done();
    return json({ data: conversations.rated(app.id, page, limit).map((m) => feedbackView(m, endUsers.idOf(app.id, m.user))) });
  });
}
