/**
 * The table of operations of the API: method, path, where `user` goes, streaming, browser-safe,
 * run-bound. The client, the relay's allowlist, the embedded service's router and (through
 * `paths.ts`) the elements take their paths from it, so a path is written once. Paths are the
 * upstream's own, relative to its API base (`…/v1`), `{name}` marking a path parameter. The app
 * side is here, the knowledge side in `knowledge-operations.ts` (so an app-side bundle holds none
 * of it), both together in `operation-table.ts`.
 *
 * Adding an operation: an entry in one of the two tables, then its handler in the service
 * (`route(APP_OPERATIONS.x, …)`), its client method, and `browserSafe` only if a browser may reach
 * it through the relay. `test/protocol/operations.test.ts` fails until all of them agree.
 */
import {
  CONVERSATION_NAME_PATH,
  CONVERSATION_PATH,
  CONVERSATION_VARIABLE_PATH,
  CONVERSATION_VARIABLES_PATH,
  CONVERSATIONS_PATH,
  MESSAGE_FEEDBACKS_PATH,
  MESSAGES_PATH,
  TEXT_TO_AUDIO_PATH,
} from './companion-paths.js';
import {
  FORM_PATH,
  INFO_PATH,
  RUN_WORKFLOW_PATH,
  SITE_PATH,
  UPLOAD_PATH,
  WORKFLOW_EVENTS_PATH,
  pathOf,
  type PathValues,
} from './paths.js';

export type HttpMethod = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';

/**
 * Where an operation carries the end user's `user`: the query string, the JSON body, a field of
 * its multipart body, or nowhere (settings, and every knowledge operation, which has no end user).
 */
export type UserPlacement = 'query' | 'json' | 'multipart' | 'none';

export interface Operation {
  readonly method: HttpMethod;
  readonly path: string;
  /** Where `user` goes; omitted: nowhere. */
  readonly user?: UserPlacement;
  /** The answer can stream (SSE, audio): passed on chunk by chunk, never cached. */
  readonly streams?: boolean;
  /** A browser may reach it through the relay (with a session token; the relay adds key and `user`). */
  readonly browserSafe?: boolean;
  /**
   * Reachable by a relay session bound to one run: what answering that run needs. A
   * `{workflow_run_id}` in its path must then name that run.
   */
  readonly runBound?: boolean;
  /** Starts a run (or a chat message): the relay honours an `Idempotency-Key` on it. */
  readonly startsRun?: boolean;
  /** Another spelling of the named operation that the real service also serves; clients use the named one. */
  readonly aliasOf?: string;
  /** Served at the service's origin, outside the API base (the signed `source_url` of an upload). */
  readonly outsideBase?: boolean;
}

/** The app side's operations (app keys, end users); the knowledge side's are in `knowledge-operations.ts`. */
export const APP_OPERATIONS = {
  // Runs and chat messages, their events and stops
  runWorkflow: { method: 'POST', path: RUN_WORKFLOW_PATH, user: 'json', streams: true, browserSafe: true, startsRun: true },
  /** A published workflow version pinned by id. */
  runPublishedWorkflow: { method: 'POST', path: '/workflows/{workflow_id}/run', user: 'json', streams: true, browserSafe: true, startsRun: true },
  sendChatMessage: { method: 'POST', path: '/chat-messages', user: 'json', streams: true, browserSafe: true, startsRun: true },
  createCompletion: { method: 'POST', path: '/completion-messages', user: 'json', streams: true },
  // Stops name a task id, which the relay cannot tie to a run: not for run-bound sessions.
  stopWorkflow: { method: 'POST', path: '/workflows/tasks/{task_id}/stop', user: 'json', browserSafe: true },
  stopChatMessage: { method: 'POST', path: '/chat-messages/{task_id}/stop', user: 'json', browserSafe: true },
  stopCompletion: { method: 'POST', path: '/completion-messages/{task_id}/stop', user: 'json' },
  workflowEvents: { method: 'GET', path: WORKFLOW_EVENTS_PATH, user: 'query', streams: true, browserSafe: true, runBound: true },
  getWorkflowRun: { method: 'GET', path: '/workflows/run/{workflow_run_id}' },

  // Human input (a form token names one form; answering the run's forms is what a run-bound session is for)
  getForm: { method: 'GET', path: FORM_PATH, browserSafe: true, runBound: true },
  submitForm: { method: 'POST', path: FORM_PATH, user: 'json', browserSafe: true, runBound: true },
  uploadFile: { method: 'POST', path: UPLOAD_PATH, user: 'multipart', browserSafe: true, runBound: true },
  filePreview: { method: 'GET', path: '/files/{file_id}/file-preview', outsideBase: true },

  // Conversations and messages
  listConversations: { method: 'GET', path: CONVERSATIONS_PATH, user: 'query', browserSafe: true },
  renameConversation: { method: 'POST', path: CONVERSATION_NAME_PATH, user: 'json', browserSafe: true },
  deleteConversation: { method: 'DELETE', path: CONVERSATION_PATH, user: 'json', browserSafe: true },
  listConversationVariables: { method: 'GET', path: CONVERSATION_VARIABLES_PATH, user: 'query', browserSafe: true },
  updateConversationVariable: { method: 'PUT', path: CONVERSATION_VARIABLE_PATH, user: 'json', browserSafe: true },
  listMessages: { method: 'GET', path: MESSAGES_PATH, user: 'query', browserSafe: true },
  submitFeedback: { method: 'POST', path: MESSAGE_FEEDBACKS_PATH, user: 'json', browserSafe: true },

  // Audio and settings
  textToAudio: { method: 'POST', path: TEXT_TO_AUDIO_PATH, user: 'json', streams: true, browserSafe: true },
  getSite: { method: 'GET', path: SITE_PATH, browserSafe: true, runBound: true },
  /** The app's mode: a companion says when the mode does not serve it. */
  getInfo: { method: 'GET', path: INFO_PATH, browserSafe: true },
  getParameters: { method: 'GET', path: '/parameters', browserSafe: true, runBound: true },
  getMeta: { method: 'GET', path: '/meta' },

  // Admin: the app's workflow logs and annotations. App keys only, never through the relay.
  listWorkflowLogs: { method: 'GET', path: '/workflows/logs' },
  listAnnotations: { method: 'GET', path: '/apps/annotations' },
  createAnnotation: { method: 'POST', path: '/apps/annotations' },
  updateAnnotation: { method: 'PUT', path: '/apps/annotations/{annotation_id}' },
  deleteAnnotation: { method: 'DELETE', path: '/apps/annotations/{annotation_id}' },
  /** `{action}`: `enable` or `disable`. */
  setAnnotationReply: { method: 'POST', path: '/apps/annotation-reply/{action}' },
  getAnnotationReplyStatus: { method: 'GET', path: '/apps/annotation-reply/{action}/status/{job_id}' },
  // Suggested questions, speech to text (what a chat UI asks for) and the app's feedback (an admin listing across users)
  getSuggestedQuestions: { method: 'GET', path: '/messages/{message_id}/suggested', user: 'query', browserSafe: true },
  audioToText: { method: 'POST', path: '/audio-to-text', user: 'multipart', browserSafe: true },
  listAppFeedbacks: { method: 'GET', path: '/app/feedbacks' },

} as const satisfies Record<string, Operation>;

/** The names of `path`'s parameters, in order: `/a/{x}/b/{y}` gives `['x', 'y']`. */
export function pathParams(path: string): string[] {
  return [...path.matchAll(/\{(\w+)\}/g)].map((m) => m[1]!);
}

/**
 * `path` as a regular expression with one named group per parameter, each matching `segment`
 * (the relay admits fewer characters than the service routes).
 */
export function pathPattern(path: string, segment: string, trailingSlash = false, typed: Readonly<Record<string, string>> = {}): RegExp {
  const escaped = path.replace(/[.*+?^$()|[\]\\]/g, '\\$&');
  return new RegExp(`^${escaped.replace(/\{(\w+)\}/g, (_, name: string) => `(?<${name}>${typed[name] ?? segment})`)}${trailingSlash ? '/?' : ''}$`);
}

/**
 * The method and filled-in path of `operation` (its parameters in the path's order), to spread
 * into a request: `transport.json(...requestOf(APP_OPERATIONS.getForm, formToken), options)`.
 */
export function requestOf<O extends Operation>(operation: O, ...values: PathValues<O['path']>): [HttpMethod, string] {
  return [operation.method, (pathOf as (template: string, ...values: string[]) => string)(operation.path, ...values)];
}
