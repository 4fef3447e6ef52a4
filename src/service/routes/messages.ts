/** Message history and feedback (dify-wire.md §5, the seed's feedback state table). */
import { authenticateApp } from '../auth.js';
import type { ServiceContext } from '../context.js';
import { badParam } from '../errors.js';
import { json, readJsonObject, requireUser } from '../http.js';
import { CHAT_MODES, FEEDBACK_MODES, optionalUser, QueryReader, requireMode, uuidParams, validationError } from '../params.js';
import type { Router } from '../router.js';

export function messageRoutes(router: Router<ServiceContext>): void {
  router.on('GET', '/messages', (request, _p, url, { fixture, conversations }) => {
    const app = authenticateApp(request, fixture);
    const user = optionalUser(url.searchParams.get('user'));
    requireMode(app, CHAT_MODES);
    const q = new QueryReader('MessageListQuery', url.searchParams);
    const conversationId = q.uuid('conversation_id');
    if (!url.searchParams.has('conversation_id')) q.issue('conversation_id', 'Field required');
    const firstId = q.uuid('first_id');
    const limit = q.int('limit', 20, 1, 100);
    q.done();
    const conversation = conversations.get(app.id, user, conversationId!);
    return json(conversations.messages(conversation, { firstId, limit }));
  });

  router.on('POST', '/messages/:message_id/feedbacks', async (request, params, _u, { fixture, conversations }) => {
    uuidParams(params, 'message_id');
    const app = authenticateApp(request, fixture);
    const body = await readJsonObject(request);
    const user = requireUser(body.user);
    requireMode(app, FEEDBACK_MODES);
    const { rating, content } = body;
    if (rating !== undefined && rating !== null && rating !== 'like' && rating !== 'dislike') {
      throw validationError('MessageFeedbackPayload', [{ loc: 'rating', msg: "Input should be 'like' or 'dislike'" }]);
    }
    if (content !== undefined && content !== null && typeof content !== 'string') {
      throw validationError('MessageFeedbackPayload', [{ loc: 'content', msg: 'Input should be a valid string' }]);
    }
    const message = conversations.message(app.id, user, params.message_id!);
    if (rating === undefined || rating === null) {
      if (!message.feedback) throw badParam('rating cannot be None when feedback not exists');
      message.feedback = null;
    } else {
      message.feedback = { rating, content: typeof content === 'string' ? content : null };
    }
    return json({ result: 'success' });
  });
}
