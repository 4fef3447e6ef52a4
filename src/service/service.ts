/**
 * The embedded reference service: a web-standard fetch handler that answers the app side of the
 * API under `/v1`, wire-compatible with the real service, driven by a fixture.
 */
import { APP_OPERATIONS, pathPattern } from '../protocol/index.js';
import { AnnotationStore } from './annotations.js';
import { SpeechSynthesizer } from './audio/speech.js';
import type { ServiceContext } from './context.js';
import { ConversationStore } from './conversations/store.js';
import { EndUsers } from './end-users.js';
import { ApiError, NOT_FOUND_TEXT, internalError, logFault } from './errors.js';
import { errorResponse } from './http.js';
import type { Fixture } from './fixture.js';
import { UploadStore } from './files/uploads.js';
import { QaControls, type QaSettings } from './qa/controls.js';
import { isLoopback, qaRoutes } from './qa/routes.js';
import { retentionOf, type RetentionOptions } from './retention.js';
import { Router, type RouteKey } from './router.js';
import { WorkflowEngine } from './runs/engine.js';
import { ReplyTasks } from './runs/reply.js';
import { delay } from './runs/usage.js';
import { appRoutes } from './routes/app.js';
import { audioRoutes } from './routes/audio.js';
import { chatRoutes } from './routes/chat.js';
import { conversationRoutes } from './routes/conversations.js';
import { fileRoutes, previewFile } from './routes/files.js';
import { formRoutes } from './routes/forms.js';
import { messageRoutes } from './routes/messages.js';
import { workflowRoutes } from './routes/workflows.js';
import { adminRoutes } from './routes/admin.js';
import { uuid } from './ids.js';
import { knowledgeRoutes } from './knowledge/index.js';

export interface ServiceOptions {
  fixture: Fixture;
  /** Keep-alive interval of event streams at start (the QA setting `pingIntervalMs`); the real service pings every 10 s. */
  pingIntervalMs?: number;
  /** Path prefix of the API, `/v1` like the real service. */
  basePath?: string;
  /** QA fault settings at start (also what `/_qa/reset` returns to). */
  qa?: Partial<QaSettings>;
  /** How many finished runs and conversations are kept (see retention.ts). */
  retention?: RetentionOptions;
}

/** What the HTTP server knows about a request that the `Request` itself does not carry. */
export interface RequestInfo {
  /** The caller's address; the `/_qa` endpoint answers loopback callers only. */
  remoteAddress?: string | undefined;
}

export interface EmbeddedService {
  fetch(request: Request, info?: RequestInfo): Promise<Response>;
  readonly engine: WorkflowEngine;
  readonly context: ServiceContext;
  readonly fixture: Fixture;
  /** The method and path of every operation it serves (the table of operations' tests compare them). */
  readonly routes: readonly RouteKey[];
  close(): void;
}

/** Signed previews are served at the origin, outside the API base; an id is 36 hex digits and hyphens. */
const FILE_PREVIEW = pathPattern(APP_OPERATIONS.filePreview.path, '[0-9a-f-]{36}');

export function createService(options: ServiceOptions): EmbeddedService {
  const basePath = options.basePath ?? '/v1';
  const initialQa = new QaControls({ ...(options.pingIntervalMs !== undefined ? { pingIntervalMs: options.pingIntervalMs } : {}), ...options.qa }).settings;
  const qa = new QaControls(initialQa);
  const latencyMs = () => qa.settings.latencyMs;
  const endUsers = new EndUsers();
  const retention = retentionOf(options.retention);
  const context: ServiceContext = {
    fixture: options.fixture,
    engine: new WorkflowEngine({ latencyMs, endUserId: (appId, user) => endUsers.idOf(appId, user), keepFinishedRuns: retention.finishedRuns }),
    replies: new ReplyTasks({ latencyMs, keepFinished: retention.finishedRuns }),
    conversations: new ConversationStore({ keep: retention.conversations }),
    uploads: new UploadStore(),
    endUsers,
    qa,
    speech: new SpeechSynthesizer(),
    annotations: new AnnotationStore({ keepPerApp: retention.annotations }),
    // The knowledge side's owner when the fixture has one: one workspace, one owner.
    owner: options.fixture.knowledge?.owner ?? { id: uuid(), name: 'Dify user', email: '' },
  };
  const secrets = [...options.fixture.apps.map((a) => a.key), ...(options.fixture.knowledge?.keys.map((k) => k.key) ?? [])];
  const router = new Router<ServiceContext>();
  workflowRoutes(router);
  chatRoutes(router);
  formRoutes(router);
  fileRoutes(router);
  conversationRoutes(router);
  messageRoutes(router);
  audioRoutes(router);
  appRoutes(router);
  adminRoutes(router);
  const knowledge = knowledgeRoutes(router, options.fixture, context.uploads);
  const qaRouter = new Router<ServiceContext>();
  qaRoutes(qaRouter, {
    reset() {
      context.engine.close();
      context.replies.close();
      context.conversations.clear();
      context.uploads.clear();
      context.endUsers.clear();
      context.annotations.clear();
      knowledge.reset();
      qa.reset(initialQa);
    },
  });

  async function fetch(request: Request, info: RequestInfo = {}): Promise<Response> {
    const url = new URL(request.url);
    try {
      if (url.pathname.startsWith('/_qa/')) {
        if (!isLoopback(info.remoteAddress)) throw new ApiError(403, 'forbidden', 'The QA endpoint answers loopback callers only.');
        return await qaRouter.handle(request, url.pathname.slice('/_qa'.length), url, context);
      }
      const preview = FILE_PREVIEW.exec(url.pathname);
      if (preview && request.method === APP_OPERATIONS.filePreview.method) return previewFile(context, preview.groups!.file_id!, url);
      if (!url.pathname.startsWith(`${basePath}/`)) throw new ApiError(404, 'not_found', NOT_FOUND_TEXT);
      if (qa.settings.latencyMs > 0) await delay(qa.settings.latencyMs);
      return await router.handle(request, url.pathname.slice(basePath.length), url, context);
    } catch (error) {
      if (error instanceof ApiError) return errorResponse(error);
      // Nothing a client sends may crash the service; unexpected faults answer like the real one.
      logFault(`${request.method} ${url.pathname} failed`, error, secrets);
      return errorResponse(internalError());
    }
  }

  return {
    fetch,
    engine: context.engine,
    context,
    fixture: options.fixture,
    routes: [...router.routes, { method: APP_OPERATIONS.filePreview.method, path: APP_OPERATIONS.filePreview.path }],
    close: () => (context.engine.close(), context.replies.close(), knowledge.close()),
  };
}
