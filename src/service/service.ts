/**
 * The embedded reference service: a web-standard fetch handler that answers the app side of the
 * API under `/v1`, wire-compatible with the real service, driven by a fixture.
 */
import { ApiError } from './errors.js';
import { errorResponse } from './http.js';
import type { Fixture } from './fixture.js';
import { Router } from './router.js';
import { WorkflowEngine } from './runs/engine.js';
import { appRoutes, type ServiceContext } from './routes/app.js';
import { formRoutes } from './routes/forms.js';
import { workflowRoutes } from './routes/workflows.js';
import { knowledgeRoutes } from './knowledge/index.js';

export interface ServiceOptions {
  fixture: Fixture;
  /** Keep-alive interval of event streams; the real service pings every 10 s. */
  pingIntervalMs?: number;
  /** Path prefix of the API, `/v1` like the real service. */
  basePath?: string;
}

export interface EmbeddedService {
  fetch(request: Request): Promise<Response>;
  readonly engine: WorkflowEngine;
  readonly fixture: Fixture;
  close(): void;
}

export function createService(options: ServiceOptions): EmbeddedService {
  const basePath = options.basePath ?? '/v1';
  const engine = new WorkflowEngine();
  const context: ServiceContext = { fixture: options.fixture, engine, pingIntervalMs: options.pingIntervalMs ?? 10_000 };
  const router = new Router<ServiceContext>();
  workflowRoutes(router);
  formRoutes(router);
  appRoutes(router);
  const knowledge = knowledgeRoutes(router, options.fixture);

  async function fetch(request: Request): Promise<Response> {
    const url = new URL(request.url);
    try {
      if (!url.pathname.startsWith(`${basePath}/`)) throw new ApiError(404, 'not_found', 'The requested URL was not found on the server. If you entered the URL manually please check your spelling and try again.');
      return await router.handle(request, url.pathname.slice(basePath.length), url, context);
    } catch (error) {
      if (error instanceof ApiError) return errorResponse(error);
      // Nothing a client sends may crash the service; unexpected faults answer like the real one.
      console.error('[service] unexpected error:', error);
      return errorResponse(new ApiError(500, 'internal_server_error', 'The server encountered an internal error and was unable to complete your request. Either the server is overloaded or there is an error in the application.'));
    }
  }

  return { fetch, engine, fixture: options.fixture, close: () => (engine.close(), knowledge.close()) };
}
