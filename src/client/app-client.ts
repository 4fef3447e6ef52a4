/**
 * Typed operations of the app side of the API. The same client serves server code (with the
 * app's API key and the upstream URL) and browsers (with a relay session token and the relay URL,
 * which mirrors the upstream's paths).
 */
import type {
  AppInfo,
  HumanInputFormDefinition,
  HumanInputFormSubmission,
  RunEvent,
  SiteSettings,
  WorkflowBlockingResponse,
  WorkflowEventsQuery,
  WorkflowPausedBlockingResponse,
  WorkflowRunDetail,
  WorkflowRunRequest,
} from '../protocol/index.js';
import { Transport, type PreparedRequest, type TransportOptions } from './transport.js';

export type AppClientOptions = TransportOptions;

const seg = encodeURIComponent;

export class AppClient {
  readonly transport: Transport;

  constructor(options: AppClientOptions) {
    this.transport = new Transport(options);
  }

  /** Runs a workflow and waits for it to finish or pause. */
  runWorkflow(body: Omit<WorkflowRunRequest, 'response_mode'>, signal?: AbortSignal): Promise<WorkflowBlockingResponse | WorkflowPausedBlockingResponse> {
    return this.transport.json('POST', '/workflows/run', { json: { ...body, response_mode: 'blocking' }, signal });
  }

  /** Runs a workflow and yields its events until it finishes or pauses. */
  streamWorkflow(body: Omit<WorkflowRunRequest, 'response_mode'>, signal?: AbortSignal): AsyncGenerator<RunEvent, void, undefined> {
    return this.transport.events('POST', '/workflows/run', { json: { ...body, response_mode: 'streaming' }, signal });
  }

  /** Follows a run's events (after a pause, or after a dropped stream). */
  workflowEvents(runId: string, query: WorkflowEventsQuery, signal?: AbortSignal): AsyncGenerator<RunEvent, void, undefined> {
    return this.transport.events('GET', `/workflow/${seg(runId)}/events`, { query: eventsQuery(query), signal });
  }

  /** The request `workflowEvents` sends, for callers driving their own SSE reader. */
  prepareWorkflowEvents(runId: string, query: WorkflowEventsQuery): Promise<PreparedRequest> {
    return this.transport.prepare('GET', `/workflow/${seg(runId)}/events`, { query: eventsQuery(query), headers: { Accept: 'text/event-stream' } });
  }

  /** The request `streamWorkflow` sends, for callers driving their own SSE reader. */
  prepareStreamWorkflow(body: Omit<WorkflowRunRequest, 'response_mode'>): Promise<PreparedRequest> {
    return this.transport.prepare('POST', '/workflows/run', {
      json: { ...body, response_mode: 'streaming' },
      headers: { Accept: 'text/event-stream' },
    });
  }

  getWorkflowRun(runId: string, signal?: AbortSignal): Promise<WorkflowRunDetail> {
    return this.transport.json('GET', `/workflows/run/${seg(runId)}`, { signal });
  }

  getForm(formToken: string, signal?: AbortSignal): Promise<HumanInputFormDefinition> {
    return this.transport.json('GET', `/form/human_input/${seg(formToken)}`, { signal });
  }

  /** Submits a form; resolves to `{}` once the run resumes. */
  submitForm(formToken: string, body: HumanInputFormSubmission, signal?: AbortSignal): Promise<Record<string, never>> {
    return this.transport.json('POST', `/form/human_input/${seg(formToken)}`, { json: body, signal });
  }

  getSite(signal?: AbortSignal): Promise<SiteSettings> {
    return this.transport.json('GET', '/site', { signal });
  }

  getInfo(signal?: AbortSignal): Promise<AppInfo> {
    return this.transport.json('GET', '/info', { signal });
  }
}

function eventsQuery(query: WorkflowEventsQuery): Record<string, string | undefined> {
  return {
    user: query.user,
    include_state_snapshot: query.include_state_snapshot ? 'true' : undefined,
    continue_on_pause: query.continue_on_pause ? 'true' : undefined,
  };
}
