/**
 * Conversations and their variables (dify-wire.md §5): list, rename, delete, list and update
 * variables, each scoped to the end user and to the app modes of the seed's table.
 */
import { z } from 'zod';
import { APP_OPERATIONS, type ConversationSort } from '../../protocol/index.js';
import type { ServiceContext } from '../context.js';
import { json } from '../http.js';
import { CHAT_MODES, laxBoolean, QueryReader, validationError, VARIABLE_MODES } from '../params.js';
import type { Router } from '../router.js';
import { parseOrThrow } from '../validation.js';
import { appRoute } from './app-route.js';

const SORTS: readonly ConversationSort[] = ['created_at', '-created_at', 'updated_at', '-updated_at'];
const UNSAFE_NAME_PARTS = ["'", '"', ';', '--', '/*', '*/', 'xp_', 'sp_'];

/** A boolean read as pydantic's lax mode reads one (`"yes"`, `1`, `"off"`…), `fallback` when absent. */
const laxBooleanField = (fallback: boolean) =>
  z.unknown().optional().transform((value, ctx) => {
    if (value === undefined) return fallback;
    const read = laxBoolean(value);
    if (read === undefined) ctx.addIssue({ code: 'custom', message: 'Input should be a valid boolean, unable to interpret input' });
    return read ?? fallback;
  });

const renameSchema = z
  .object({ auto_generate: laxBooleanField(false), name: z.string().nullish() })
  .superRefine((body, ctx) => {
    if (!body.auto_generate && !body.name?.trim()) ctx.addIssue({ code: 'custom', path: [], message: 'Value error, name is required when auto_generate is false' });
  });

export function conversationRoutes(router: Router<ServiceContext>): void {
  const route = appRoute(router);
  route(APP_OPERATIONS.listConversations, { user: 'optional', modes: CHAT_MODES }, ({ app, user, url, context: { conversations } }) => {
    const q = new QueryReader('ConversationListQuery', url.searchParams);
    const lastId = q.uuid('last_id');
    const limit = q.int('limit', 20, 1, 100);
    const sortBy = q.oneOf('sort_by', SORTS, '-updated_at');
    q.done();
    return json(conversations.list(app.id, user, { lastId, limit, sortBy }));
  });

  route(APP_OPERATIONS.deleteConversation, { user: 'optional', optionalBody: true, modes: CHAT_MODES }, ({ app, user, params, context: { conversations } }) => {
    conversations.delete(conversations.get(app.id, user, params.conversation_id!));
    return new Response(null, { status: 204 });
  });

  route(APP_OPERATIONS.renameConversation, { user: 'optional', optionalBody: true, modes: CHAT_MODES }, ({ app, user, params, body, context: { conversations } }) => {
    const { name, auto_generate: autoGenerate } = parseOrThrow(renameSchema, body, 'ConversationRenamePayload');
    const conversation = conversations.get(app.id, user, params.conversation_id!);
    return json(conversations.rename(conversation, name ?? null, autoGenerate));
  });

  route(APP_OPERATIONS.listConversationVariables, { user: 'optional', modes: VARIABLE_MODES }, ({ app, user, params, url, context: { conversations } }) => {
    const q = new QueryReader('ConversationVariablesQuery', url.searchParams);
    const lastId = q.uuid('last_id');
    const limit = q.int('limit', 20, 1, 100);
    const name = q.string('variable_name');
    if (name !== null) {
      if (name.length < 1 || name.length > 255) q.issue('variable_name', `String should have ${name.length < 1 ? 'at least 1 character' : 'at most 255 characters'}`);
      else if (!/^[A-Za-z0-9._-]+$/.test(name)) q.issue('variable_name', 'Value error, Variable name can only contain letters, numbers, hyphens (-), underscores (_), and periods (.)');
      else {
        const unsafe = UNSAFE_NAME_PARTS.find((p) => name.toLowerCase().includes(p));
        if (unsafe) q.issue('variable_name', `Value error, Variable name contains invalid characters: ${unsafe}`);
      }
    }
    q.done();
    const conversation = conversations.get(app.id, user, params.conversation_id!);
    return json(conversations.variables(conversation, { lastId, limit, name }));
  });

  route(APP_OPERATIONS.updateConversationVariable, { user: 'optional', modes: VARIABLE_MODES }, ({ app, user, params, body, context: { conversations } }) => {
    if (!('value' in body)) throw validationError('ConversationVariableUpdatePayload', [{ loc: 'value', msg: 'Field required' }]);
    const conversation = conversations.get(app.id, user, params.conversation_id!);
    return json(conversations.updateVariable(conversation, params.variable_id!, body.value));
  });
}
