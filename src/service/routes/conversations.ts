/**
 * Conversations and their variables (dify-wire.md §5): list, rename, delete, list and update
 * variables, each scoped to the end user and to the app modes of the seed's table.
 */
import type { ConversationSort } from '../../protocol/index.js';
import { authenticateApp } from '../auth.js';
import type { ServiceContext } from '../context.js';
import { json, readJsonObject } from '../http.js';
import { CHAT_MODES, laxBoolean, optionalUser, QueryReader, requireMode, uuidParams, validationError, VARIABLE_MODES } from '../params.js';
import type { Router } from '../router.js';

const SORTS: readonly ConversationSort[] = ['created_at', '-created_at', 'updated_at', '-updated_at'];
const UNSAFE_NAME_PARTS = ["'", '"', ';', '--', '/*', '*/', 'xp_', 'sp_'];

export function conversationRoutes(router: Router<ServiceContext>): void {
  router.on('GET', '/conversations', (request, _p, url, { fixture, conversations }) => {
    const app = authenticateApp(request, fixture);
    const user = optionalUser(url.searchParams.get('user'));
    requireMode(app, CHAT_MODES);
    const q = new QueryReader('ConversationListQuery', url.searchParams);
    const lastId = q.uuid('last_id');
    const limit = q.int('limit', 20, 1, 100);
    const sortBy = q.oneOf('sort_by', SORTS, '-updated_at');
    q.done();
    return json(conversations.list(app.id, user, { lastId, limit, sortBy }));
  });

  router.on('DELETE', '/conversations/:id', async (request, params, _u, { fixture, conversations }) => {
    uuidParams(params, 'id');
    const app = authenticateApp(request, fixture);
    const body = await readOptionalJson(request);
    const user = optionalUser(body.user);
    requireMode(app, CHAT_MODES);
    conversations.delete(conversations.get(app.id, user, params.id!));
    return new Response(null, { status: 204 });
  });

  router.on('POST', '/conversations/:id/name', async (request, params, _u, { fixture, conversations }) => {
    uuidParams(params, 'id');
    const app = authenticateApp(request, fixture);
    const body = await readOptionalJson(request);
    const user = optionalUser(body.user);
    requireMode(app, CHAT_MODES);
    const { name } = body;
    const autoGenerate = body.auto_generate === undefined ? false : laxBoolean(body.auto_generate);
    if (autoGenerate === undefined) throw validationError('ConversationRenamePayload', [{ loc: 'auto_generate', msg: 'Input should be a valid boolean, unable to interpret input' }]);
    if (name !== undefined && name !== null && typeof name !== 'string') throw validationError('ConversationRenamePayload', [{ loc: 'name', msg: 'Input should be a valid string' }]);
    if (!autoGenerate && (typeof name !== 'string' || !name.trim())) {
      throw validationError('ConversationRenamePayload', [{ loc: '', msg: 'Value error, name is required when auto_generate is false' }]);
    }
    const conversation = conversations.get(app.id, user, params.id!);
    return json(conversations.rename(conversation, typeof name === 'string' ? name : null, autoGenerate));
  });

  router.on('GET', '/conversations/:id/variables', (request, params, url, { fixture, conversations }) => {
    uuidParams(params, 'id');
    const app = authenticateApp(request, fixture);
    const user = optionalUser(url.searchParams.get('user'));
    requireMode(app, VARIABLE_MODES);
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
    const conversation = conversations.get(app.id, user, params.id!);
    return json(conversations.variables(conversation, { lastId, limit, name }));
  });

  router.on('PUT', '/conversations/:id/variables/:variable_id', async (request, params, _u, { fixture, conversations }) => {
    uuidParams(params, 'id', 'variable_id');
    const app = authenticateApp(request, fixture);
    const body = await readJsonObject(request);
    const user = optionalUser(body.user);
    requireMode(app, VARIABLE_MODES);
    if (!('value' in body)) throw validationError('ConversationVariableUpdatePayload', [{ loc: 'value', msg: 'Field required' }]);
    const conversation = conversations.get(app.id, user, params.id!);
    return json(conversations.updateVariable(conversation, params.variable_id!, body.value));
  });
}

/** A JSON body that may be absent (DELETE and rename accept none). */
export async function readOptionalJson(request: Request): Promise<Record<string, unknown>> {
  const length = request.headers.get('content-length');
  if (!request.body || length === '0') return {};
  return readJsonObject(request);
}
