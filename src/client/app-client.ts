/**
 * Typed operations of the app side of the API. The same client serves server code (with the
 * app's API key and the upstream URL) and browsers (with a relay session token and the relay URL,
 * which mirrors the upstream's paths). Streaming operations are async iterables of typed events.
 */
import type {
  Annotation,
  AnnotationListQuery,
  AnnotationReplyAction,
  AnnotationReplyJob,
  AnnotationReplyJobStatus,
  AnnotationReplyRequest,
  AnnotationRequest,
  NumberedPage,
  WorkflowLog,
  WorkflowLogQuery,
  AppFeedbackList,
  AppFeedbackListQuery,
  AppInfo,
  AppParameters,
  AudioToTextResponse,
  ChatBlockingResponse,
  ChatMessageRequest,
  ChatPausedBlockingResponse,
  CompletionBlockingResponse,
  CompletionMessageRequest,
  Conversation,
  ConversationListQuery,
  ConversationVariable,
  FeedbackRequest,
  HumanInputFormDefinition,
  HumanInputFormSubmission,
  Message,
  MessageListQuery,
  Page,
  RenameConversationRequest,
  ResultSuccess,
  RunEvent,
  SiteSettings,
  SuggestedQuestions,
  TextToAudioRequest,
  UpdateVariableRequest,
  UploadedFile,
  VariableListQuery,
  WorkflowBlockingResponse,
  WorkflowEventsQuery,
  WorkflowPausedBlockingResponse,
  WorkflowRunDetail,
  WorkflowRunRequest,
} from '../protocol/index.js';
import { APP_OPERATIONS, requestOf } from '../protocol/operations.js';
import { Transport, type PreparedRequest, type Query, type TransportOptions } from './transport.js';

export type AppClientOptions = TransportOptions;
type Events = AsyncGenerator<RunEvent, void, undefined>;
type RunBody = Omit<WorkflowRunRequest, 'response_mode'>;

/** Options of a run start. */
export interface RunStartOptions {
  /**
   * Sent as `Idempotency-Key`: one random key (`crypto.randomUUID()`) per run you mean to start,
   * the same on every retry of that start. A relay that honours it starts the run at most once
   * and answers a repeated key with that run's events (a real Dify ignores the header).
   */
  idempotencyKey?: string;
}

/** The run start: of the published version `workflowId` when one is given. */
const runRequest = (workflowId?: string) => (workflowId ? requestOf(APP_OPERATIONS.runPublishedWorkflow, workflowId) : requestOf(APP_OPERATIONS.runWorkflow));

export class AppClient {
  readonly transport: Transport;

  constructor(options: AppClientOptions) {
    this.transport = new Transport(options);
  }

  // Workflow runs

  /** Runs a workflow and waits for it to finish or pause. */
  runWorkflow(body: RunBody, signal?: AbortSignal, workflowId?: string, options?: RunStartOptions): Promise<WorkflowBlockingResponse | WorkflowPausedBlockingResponse> {
    return this.transport.json(...runRequest(workflowId), { json: { ...body, response_mode: 'blocking' }, signal, headers: startHeaders(options) });
  }

  /** Runs a workflow and yields its events until it finishes or pauses. */
  streamWorkflow(body: RunBody, signal?: AbortSignal, workflowId?: string, options?: RunStartOptions): Events {
    return this.transport.events(...runRequest(workflowId), { json: { ...body, response_mode: 'streaming' }, signal, headers: startHeaders(options) });
  }

  /**
   * Follows a run's events (after a pause, or after a dropped stream). The service ends this
   * stream after 300 s without an event (pings aside), even with `continue_on_pause` while a form
   * waits: follow on with `include_state_snapshot` until `workflow_finished` comes.
   */
  workflowEvents(runId: string, query: WorkflowEventsQuery, signal?: AbortSignal): Events {
    return this.transport.events(...requestOf(APP_OPERATIONS.workflowEvents, runId), { query: eventsQuery(query), signal });
  }

  /** The request `workflowEvents` sends, for callers driving their own SSE reader. */
  prepareWorkflowEvents(runId: string, query: WorkflowEventsQuery): Promise<PreparedRequest> {
    return this.transport.prepare(...requestOf(APP_OPERATIONS.workflowEvents, runId), { query: eventsQuery(query), headers: { Accept: 'text/event-stream' } });
  }

  /** The request `streamWorkflow` sends, for callers driving their own SSE reader. */
  prepareStreamWorkflow(body: RunBody, options?: RunStartOptions): Promise<PreparedRequest> {
    return this.transport.prepare(...requestOf(APP_OPERATIONS.runWorkflow), {
      json: { ...body, response_mode: 'streaming' },
      headers: { Accept: 'text/event-stream', ...startHeaders(options) },
    });
  }

  getWorkflowRun(runId: string, signal?: AbortSignal): Promise<WorkflowRunDetail> {
    return this.transport.json(...requestOf(APP_OPERATIONS.getWorkflowRun, runId), { signal });
  }

  /** Stops a workflow run by its `task_id` (not its run id). */
  stopWorkflow(taskId: string, user: string, signal?: AbortSignal): Promise<ResultSuccess> {
    return this.transport.json(...requestOf(APP_OPERATIONS.stopWorkflow, taskId), { json: { user }, signal });
  }

  // Human input

  getForm(formToken: string, signal?: AbortSignal): Promise<HumanInputFormDefinition> {
    return this.transport.json(...requestOf(APP_OPERATIONS.getForm, formToken), { signal });
  }

  /** Submits a form; resolves to `{}` once the run resumes. */
  submitForm(formToken: string, body: HumanInputFormSubmission, signal?: AbortSignal): Promise<Record<string, never>> {
    return this.transport.json(...requestOf(APP_OPERATIONS.submitForm, formToken), { json: body, signal });
  }

  /** `POST /files/upload`: one file, owned by `user` (pass the same user to the run and the submit). */
  uploadFile(file: Blob, filename: string, user?: string, signal?: AbortSignal): Promise<UploadedFile> {
    return this.transport.json(...requestOf(APP_OPERATIONS.uploadFile), { body: fileForm(file, filename, user), signal });
  }

  // Messages

  /** Sends a chat message and waits for the answer (or, in a Chatflow, for a pause). */
  sendChatMessage(body: Omit<ChatMessageRequest, 'response_mode'>, signal?: AbortSignal): Promise<ChatBlockingResponse | ChatPausedBlockingResponse> {
    return this.transport.json(...requestOf(APP_OPERATIONS.sendChatMessage), { json: { ...body, response_mode: 'blocking' }, signal });
  }

  /** Sends a chat message and yields the answer's events. */
  streamChatMessage(body: Omit<ChatMessageRequest, 'response_mode'>, signal?: AbortSignal): Events {
    return this.transport.events(...requestOf(APP_OPERATIONS.sendChatMessage), { json: { ...body, response_mode: 'streaming' }, signal });
  }

  /** Stops a chat answer (or a Chatflow run) by its `task_id`. */
  stopChatMessage(taskId: string, user: string, signal?: AbortSignal): Promise<ResultSuccess> {
    return this.transport.json(...requestOf(APP_OPERATIONS.stopChatMessage, taskId), { json: { user }, signal });
  }

  /** Text Generator apps: generates a text and waits for it. */
  createCompletion(body: Omit<CompletionMessageRequest, 'response_mode'>, signal?: AbortSignal): Promise<CompletionBlockingResponse> {
    return this.transport.json(...requestOf(APP_OPERATIONS.createCompletion), { json: { ...body, response_mode: 'blocking' }, signal });
  }

  streamCompletion(body: Omit<CompletionMessageRequest, 'response_mode'>, signal?: AbortSignal): Events {
    return this.transport.events(...requestOf(APP_OPERATIONS.createCompletion), { json: { ...body, response_mode: 'streaming' }, signal });
  }

  stopCompletion(taskId: string, user: string, signal?: AbortSignal): Promise<ResultSuccess> {
    return this.transport.json(...requestOf(APP_OPERATIONS.stopCompletion, taskId), { json: { user }, signal });
  }

  /** A conversation's messages: the newest page first, each page in chronological order. */
  listMessages(query: MessageListQuery, signal?: AbortSignal): Promise<Page<Message>> {
    return this.transport.json(...requestOf(APP_OPERATIONS.listMessages), { query: query as unknown as Query, signal });
  }

  /** Rates a message (`like`, `dislike`) or revokes the rating (`null`); only its recipient may. */
  submitFeedback(messageId: string, body: FeedbackRequest, signal?: AbortSignal): Promise<ResultSuccess> {
    return this.transport.json(...requestOf(APP_OPERATIONS.submitFeedback, messageId), { json: body, signal });
  }

  // Conversations

  listConversations(query: ConversationListQuery = {}, signal?: AbortSignal): Promise<Page<Conversation>> {
    return this.transport.json(...requestOf(APP_OPERATIONS.listConversations), { query: query as Query, signal });
  }

  renameConversation(conversationId: string, body: RenameConversationRequest, signal?: AbortSignal): Promise<Conversation> {
    return this.transport.json(...requestOf(APP_OPERATIONS.renameConversation, conversationId), { json: body, signal });
  }

  /** Deletes a conversation (answers 204). */
  async deleteConversation(conversationId: string, user?: string, signal?: AbortSignal): Promise<void> {
    await this.transport.send(...requestOf(APP_OPERATIONS.deleteConversation, conversationId), { json: user === undefined ? {} : { user }, signal });
  }

  listConversationVariables(conversationId: string, query: VariableListQuery = {}, signal?: AbortSignal): Promise<Page<ConversationVariable>> {
    return this.transport.json(...requestOf(APP_OPERATIONS.listConversationVariables, conversationId), { query: query as Query, signal });
  }

  /** Sets a variable's value; it must fit the variable's `value_type`. */
  updateConversationVariable(conversationId: string, variableId: string, body: UpdateVariableRequest, signal?: AbortSignal): Promise<ConversationVariable> {
    return this.transport.json(...requestOf(APP_OPERATIONS.updateConversationVariable, conversationId, variableId), { json: body, signal });
  }

  // Audio and settings

  /**
   * `POST /text-to-audio`: the raw response, so the audio can be played while it streams; its
   * `Content-Type` names the container (`audio/mpeg`, `audio/wav`, …).
   */
  textToAudio(body: TextToAudioRequest, signal?: AbortSignal): Promise<Response> {
    return this.transport.send(...requestOf(APP_OPERATIONS.textToAudio), { json: body, signal });
  }

  getSite(signal?: AbortSignal): Promise<SiteSettings> {
    return this.transport.json(...requestOf(APP_OPERATIONS.getSite), { signal });
  }

  getInfo(signal?: AbortSignal): Promise<AppInfo> {
    return this.transport.json(...requestOf(APP_OPERATIONS.getInfo), { signal });
  }

  getParameters(signal?: AbortSignal): Promise<AppParameters> {
    return this.transport.json(...requestOf(APP_OPERATIONS.getParameters), { signal });
  }

  // Admin: workflow logs and annotations (app key only; a relay refuses them)

  /** The app's workflow runs, newest first (a Workflow app's: a Chatflow's runs write no log). */
  listWorkflowLogs(query: WorkflowLogQuery = {}, signal?: AbortSignal): Promise<NumberedPage<WorkflowLog>> {
    return this.transport.json(...requestOf(APP_OPERATIONS.listWorkflowLogs), { query: query as Query, signal });
  }

  listAnnotations(query: AnnotationListQuery = {}, signal?: AbortSignal): Promise<NumberedPage<Annotation>> {
    return this.transport.json(...requestOf(APP_OPERATIONS.listAnnotations), { query: query as Query, signal });
  }

  createAnnotation(body: AnnotationRequest, signal?: AbortSignal): Promise<Annotation> {
    return this.transport.json(...requestOf(APP_OPERATIONS.createAnnotation), { json: body, signal });
  }

  updateAnnotation(annotationId: string, body: AnnotationRequest, signal?: AbortSignal): Promise<Annotation> {
    return this.transport.json(...requestOf(APP_OPERATIONS.updateAnnotation, annotationId), { json: body, signal });
  }

  /** Deletes an annotation (answers 204). */
  async deleteAnnotation(annotationId: string, signal?: AbortSignal): Promise<void> {
    await this.transport.send(...requestOf(APP_OPERATIONS.deleteAnnotation, annotationId), { signal });
  }

  /** Starts turning annotation reply on or off; follow the job with `getAnnotationReplyStatus`. */
  setAnnotationReply(action: AnnotationReplyAction, body: AnnotationReplyRequest, signal?: AbortSignal): Promise<AnnotationReplyJob> {
    return this.transport.json(...requestOf(APP_OPERATIONS.setAnnotationReply, action), { json: body, signal });
  }

  getAnnotationReplyStatus(action: AnnotationReplyAction, jobId: string, signal?: AbortSignal): Promise<AnnotationReplyJobStatus> {
    return this.transport.json(...requestOf(APP_OPERATIONS.getAnnotationReplyStatus, action, jobId), { signal });
  }
  // Suggested questions, speech to text and the app's feedback

  /** Questions `user` might ask after the message's answer (chat apps with `suggested_questions_after_answer` on). */
  getSuggestedQuestions(messageId: string, user: string, signal?: AbortSignal): Promise<SuggestedQuestions> {
    return this.transport.json(...requestOf(APP_OPERATIONS.getSuggestedQuestions, messageId), { query: { user }, signal });
  }

  /**
   * `POST /audio-to-text` (apps with `speech_to_text` on): the words of a recording of at most
   * 30 MB. The part goes with `file`'s own type, which must be `audio/mp3`, `audio/mpga`,
   * `audio/m4a`, `audio/wav` or `audio/amr` (Dify refuses `audio/mpeg`).
   */
  audioToText(file: Blob, filename: string, user?: string, signal?: AbortSignal): Promise<AudioToTextResponse> {
    return this.transport.json(...requestOf(APP_OPERATIONS.audioToText), { body: fileForm(file, filename, user), signal });
  }

  /** Every rating of the app's messages, whoever gave it, newest first (an admin listing: not for browsers). */
  listAppFeedbacks(query: AppFeedbackListQuery = {}, signal?: AbortSignal): Promise<AppFeedbackList> {
    return this.transport.json(...requestOf(APP_OPERATIONS.listAppFeedbacks), { query: query as Query, signal });
  }
}

/** A multipart body: the one `file` part, and `user` when given. */
function fileForm(file: Blob, filename: string, user?: string): FormData {
  const body = new FormData();
  body.append('file', file, filename);
  if (user !== undefined) body.append('user', user);
  return body;
}

function startHeaders(options?: RunStartOptions): Record<string, string> {
  return options?.idempotencyKey ? { 'Idempotency-Key': options.idempotencyKey } : {};
}

function eventsQuery(query: WorkflowEventsQuery): Record<string, string | undefined> {
  return {
    user: query.user,
    include_state_snapshot: query.include_state_snapshot ? 'true' : undefined,
    continue_on_pause: query.continue_on_pause ? 'true' : undefined,
  };
}
