/**
 * Messages: `POST /chat-messages` (Chatflow, Chatbot, Agent, Legacy Agent) and
 * `POST /completion-messages` (Text Generator), streaming or blocking, and their stop routes
 * (dify-wire.md §3.2, §4).
 */
import { z } from 'zod';
import { canonicalUuid, LAX_UUID_PATTERN, APP_OPERATIONS, type ErrorCode, type RunEvent, type RunEventName } from '../../protocol/index.js';
import type { ServiceContext } from '../context.js';
import type { ConversationRecord, MessageRecord } from '../conversations/store.js';
import { ApiError } from '../errors.js';
import type { FixtureApp } from '../fixture.js';
import { json } from '../http.js';
import { CHAT_MODES, laxBoolean, validationError } from '../params.js';
import type { Router } from '../router.js';
import { checkRunInputs } from '../run-inputs.js';
import { elapsedSeconds, type Run } from '../runs/run.js';
import type { AnnotationAnswer, ReplyTask } from '../runs/reply.js';
import { usage } from '../runs/usage.js';
import { liveStream, untilTerminal } from './streams.js';
import { checkPinnedWorkflow } from './workflows.js';
import { appFileResolver } from '../files/resolve.js';
import { resolveRunFiles, userMessageFile } from '../files/run-files.js';
import type { SubmittedFile } from '../forms.js';
import { parseOrThrow } from '../validation.js';
import { appRoute } from './app-route.js';

/** A Chatflow's stream ends with its `message_end` (after `workflow_finished`), its pause, or an `error` (after a failed `workflow_finished`). */
const CHATFLOW_TERMINAL: readonly RunEventName[] = ['message_end', 'workflow_paused', 'error'];
const REPLY_TERMINAL: readonly RunEventName[] = ['message_end', 'error'];

const responseMode = z.enum(['blocking', 'streaming']).nullish();
const chatSchema = z.object({ query: z.string(), response_mode: responseMode });
const completionSchema = z.object({ response_mode: responseMode });

export function chatRoutes(router: Router<ServiceContext>): void {
  const route = appRoute(router);
  route(APP_OPERATIONS.sendChatMessage, { user: 'required', modes: CHAT_MODES, modeCode: 'not_chat_app' }, async ({ app, user, body, url, context }) => {
    const { query, response_mode } = parseOrThrow(chatSchema, body, 'ChatRequestPayload');
    const streaming = response_mode === 'streaming';
    if (!streaming && (app.mode === 'agent' || app.mode === 'agent-chat')) throw new ApiError(400, 'bad_request', 'Agent App only supports streaming response mode.');
    if (app.mode === 'advanced-chat' && typeof body.workflow_id === 'string') checkPinnedWorkflow(app, body.workflow_id);
    // Before the conversation is opened: a refused file must leave nothing behind.
    const files = await resolveRunFiles(app, body.files, user, appFileResolver(context, app.id), 'ChatRequestPayload');
    const conversation = openConversation(context, app, user, body, query);
    const previewUrl = (id: string) => url.origin + context.uploads.signedPreviewPath(id);
    const message = context.conversations.addMessage(conversation, { query, inputs: conversation.inputs, files: files.map((f) => userMessageFile(f, previewUrl)) });
    // Annotation reply answers before the app runs (`handle_annotation_reply`, `query_app_annotations_to_reply`).
    const annotation = context.annotations.match(app.id, query);
    if (annotation) {
      const account = { id: annotation.accountId, name: annotation.accountId === context.owner.id ? context.owner.name : 'Dify user' };
      return reply(context, app, user, conversation, message, streaming, { id: annotation.id, account, answer: annotation.answer });
    }
    if (app.mode === 'advanced-chat') return chatflow(context, app, user, conversation, message, streaming, files);
    return reply(context, app, user, conversation, message, streaming);
  });

  // Another mode's app is `app_unavailable` on the completion routes (`CompletionApi`, `CompletionStopApi`), not `not_completion_app`.
  route(APP_OPERATIONS.createCompletion, { user: 'required', modes: ['completion'], modeCode: 'app_unavailable' }, ({ app, user, body, context }) => {
    const inputs = checkRunInputs(app, body.inputs, 'CompletionRequestPayload');
    const query = typeof body.query === 'string' ? body.query : '';
    const streaming = parseOrThrow(completionSchema, body, 'CompletionRequestPayload').response_mode === 'streaming';
    // The real service keeps completion messages in conversations of their own, never listed.
    const conversation = context.conversations.create(app, user, inputs, query, false);
    const message = context.conversations.addMessage(conversation, { query, inputs });
    return reply(context, app, user, conversation, message, streaming);
  });

  for (const [operation, modes, modeCode] of [
    [APP_OPERATIONS.stopChatMessage, CHAT_MODES, 'not_chat_app'],
    [APP_OPERATIONS.stopCompletion, ['completion'], 'app_unavailable'],
  ] as const) {
    route(operation, { user: 'required', modes, modeCode }, ({ app, user, params, context: { engine, replies } }) => {
      const taskId = params.task_id!;
      // Like the real service, a stop for someone else's (or no) task changes nothing and still succeeds.
      const task = replies.get(taskId);
      if (task && task.app.id === app.id && task.user === user) replies.stop(task);
      const run = engine.byTask(taskId);
      if (run && run.app.id === app.id && run.user === user) engine.stop(run);
      return json({ result: 'success' });
    });
  }
}

/** The conversation a message goes to: the one named (the user's own), or a new one. */
function openConversation(context: ServiceContext, app: FixtureApp, user: string, body: Record<string, unknown>, query: string): ConversationRecord {
  // Required on every message, even into an existing conversation (whose inputs it then ignores).
  if (body.inputs === undefined) throw validationError('ChatRequestPayload', [{ loc: 'inputs', msg: 'Field required' }]);
  const id = body.conversation_id;
  if (id !== undefined && id !== null && id !== '') {
    if (typeof id !== 'string' || !LAX_UUID_PATTERN.test(id)) {
      throw validationError('ChatRequestPayload', [{ loc: 'conversation_id', msg: 'Input should be a valid UUID' }]);
    }
    const conversation = context.conversations.get(app.id, user, canonicalUuid(id));
    checkRunInputs(app, body.inputs, 'ChatRequestPayload');
    return conversation;
  }
  const inputs = checkRunInputs(app, body.inputs, 'ChatRequestPayload');
  const autoName = body.auto_generate_name === undefined ? true : laxBoolean(body.auto_generate_name);
  if (autoName === undefined) throw validationError('ChatRequestPayload', [{ loc: 'auto_generate_name', msg: 'Input should be a valid boolean, unable to interpret input' }]);
  return context.conversations.create(app, user, inputs, query, autoName);
}

async function chatflow(context: ServiceContext, app: FixtureApp, user: string, conversation: ConversationRecord, message: MessageRecord, streaming: boolean, files: SubmittedFile[]): Promise<Response> {
  const { engine } = context;
  const run = engine.create(app, user, conversation.inputs, { conversation, message }, files);
  if (streaming) return liveStream(context, run.topic, CHATFLOW_TERMINAL, { runId: run.id, start: () => engine.execute(run, message.query) });
  const last = await untilTerminal(run.topic, CHATFLOW_TERMINAL, () => engine.execute(run, message.query));
  if (last.event === 'error') throw new ApiError(last.status, last.code as ErrorCode, last.message);
  return json(last.event === 'workflow_paused' ? pausedBody(run, message, last) : messageBody(app, run.taskId, message));
}

async function reply(context: ServiceContext, app: FixtureApp, user: string, conversation: ConversationRecord, message: MessageRecord, streaming: boolean, annotation: AnnotationAnswer | null = null): Promise<Response> {
  const { replies } = context;
  const task: ReplyTask = replies.create(app, user, conversation, message, annotation);
  if (streaming) return liveStream(context, task.topic, REPLY_TERMINAL, { start: () => replies.execute(task) });
  const last = await untilTerminal(task.topic, REPLY_TERMINAL, () => replies.execute(task));
  if (last.event === 'error') throw new ApiError(last.status, last.code as ErrorCode, last.message);
  return json(messageBody(app, task.taskId, message, last.event === 'message_end' ? last.metadata : undefined));
}

function messageBody(app: FixtureApp, taskId: string, message: MessageRecord, metadata?: Extract<RunEvent, { event: 'message_end' }>['metadata']): Record<string, unknown> {
  return {
    event: 'message',
    task_id: taskId,
    id: message.id,
    message_id: message.id,
    ...(app.mode === 'completion' ? {} : { conversation_id: message.conversationId }),
    mode: app.mode === 'completion' ? 'completion' : app.mode,
    answer: message.answer,
    metadata: metadata ?? { usage: usage(message.messageTokens, message.answerTokens, message.latency), retriever_resources: [] },
    created_at: Math.floor(message.createdMs / 1000),
  };
}

/** A Chatflow that paused: the message answer so far plus the pause (flattening UNCONFIRMED). */
function pausedBody(run: Run, message: MessageRecord, paused: Extract<RunEvent, { event: 'workflow_paused' }>): Record<string, unknown> {
  return {
    ...messageBody(run.app, run.taskId, message),
    event: 'workflow_paused',
    workflow_run_id: run.id,
    status: 'paused',
    paused_nodes: paused.data.paused_nodes,
    reasons: paused.data.reasons,
    elapsed_time: elapsedSeconds(run),
    total_tokens: run.totalTokens,
    total_steps: run.totalSteps,
  };
}
