/**
 * The app side's admin routes: the workflow logs (Dify's `WorkflowAppLogApi` over
 * `WorkflowAppService.get_paginate_workflow_app_logs`) and annotations (`controllers/service_api/
 * app/annotation.py` over `AppAnnotationService`). None reads `user`, none is served through the
 * relay, and none checks the app's mode: a Chatflow's runs write no log (Dify writes one for a
 * Workflow app's runs only), so its list is empty.
 */
import { z } from 'zod';
import { APP_OPERATIONS, type Annotation, type AnnotationReplyJobStatus, type NumberedPage, type WorkflowLog } from '../../protocol/index.js';
import type { AnnotationRecord } from '../annotations.js';
import type { ServiceContext } from '../context.js';
import { DEFAULT_USER } from '../end-users.js';
import { badParam, notFound } from '../errors.js';
import { json } from '../http.js';
import { pageOf, MAX_LIMIT } from '../knowledge/paging.js';
import { QueryReader } from '../params.js';
import { isoparse } from '../python-isoparse.js';
import { pythonStrip } from '../python-str.js';
import type { Router } from '../router.js';
import { elapsedSeconds, inputsWithSystem, type Run } from '../runs/run.js';
import { parseOrThrow } from '../validation.js';
import { appRoute, readOptionalJson } from './app-route.js';

const LOG_STATUSES = ['succeeded', 'failed', 'stopped'] as const;

/** `float` as pydantic's lax mode reads it: numbers, booleans and numeric strings. */
const pydanticFloat = z.unknown().transform((value, ctx) => {
  if (typeof value === 'number') return value;
  if (typeof value === 'boolean') return Number(value);
  if (typeof value === 'string' && /^\s*([+-]?(\d[\d_]*(\.\d*)?|\.\d+)([eE][+-]?\d+)?|[+-]?(inf|infinity|nan))\s*$/i.test(value)) {
    const text = value.trim().replaceAll('_', '').toLowerCase();
    return text.endsWith('nan') ? NaN : text.includes('inf') ? (text.startsWith('-') ? -Infinity : Infinity) : Number(text);
  }
  ctx.addIssue({ code: 'custom', message: typeof value === 'string' ? 'Input should be a valid number, unable to parse string as a number' : value === undefined ? 'Field required' : 'Input should be a valid number' });
  return z.NEVER;
});

const annotationPayload = z.object({ question: z.string(), answer: z.string() });
const replyPayload = z.object({ score_threshold: pydanticFloat, embedding_provider_name: z.string(), embedding_model_name: z.string() });

export function adminRoutes(router: Router<ServiceContext>): void {
  const route = appRoute(router);

  route(APP_OPERATIONS.listWorkflowLogs, {}, ({ app, url, context }) => {
    const query = new QueryReader('WorkflowLogQuery', url.searchParams);
    const keyword = query.string('keyword');
    const status = query.params.has('status') ? query.oneOf('status', LOG_STATUSES, 'succeeded') : null;
    const page = query.int('page', 1, 1, 99_999);
    const limit = query.int('limit', 20, 1, 100);
    query.done();
    const before = query.string('created_at__before');
    const after = query.string('created_at__after');
    const beforeMs = before ? isoparse(before) : null;
    const afterMs = after ? isoparse(after) : null;
    const keywordId = keyword ? uuidHex(keyword) : null;
    const sessionId = query.string('created_by_end_user_session_id');
    const account = query.string('created_by_account');
    if (account && account !== context.owner.email) throw badParam(`Account not found: ${account}`);
    // Newest first; a Workflow app's runs only (a Chatflow's write no log).
    const runs = [...context.engine.runs.values()]
      .reverse()
      .filter((run) => run.app.id === app.id && !run.chat)
      .sort((a, b) => b.startedMs - a.startedMs)
      .filter(
        (run) =>
          (!keyword || keywordMatches(run, keyword, keywordId)) &&
          (!status || run.status === status) &&
          (beforeMs === null || run.startedMs <= beforeMs) &&
          (afterMs === null || run.startedMs >= afterMs) &&
          (!sessionId || run.user === sessionId) &&
          // Every run here was started by an end user; an account's filter leaves none.
          !account,
      );
    const body: NumberedPage<WorkflowLog> = {
      page,
      limit,
      total: runs.length,
      has_more: runs.length > page * limit,
      data: runs.slice((page - 1) * limit, page * limit).map((run) => logEntry(run, context)),
    };
    return json(body);
  });

  route(APP_OPERATIONS.listAnnotations, {}, ({ app, url, context }) => {
    const query = new QueryReader('AnnotationListQuery', url.searchParams);
    const page = query.int('page', 1, 1, Number.MAX_SAFE_INTEGER);
    const limit = query.int('limit', 20, 1, Number.MAX_SAFE_INTEGER);
    query.done();
    const keyword = query.string('keyword') ?? '';
    // `paginate_query(max_per_page=100)`; the answer echoes the asked limit and `has_more` is `len(items) == limit`.
    const { items, ...paging } = pageOf(context.annotations.list(app.id, keyword), { page, limit, servedPage: page, perPage: Math.min(limit, MAX_LIMIT) });
    return json({ data: items.map(annotationView), ...paging });
  });

  route(APP_OPERATIONS.createAnnotation, {}, async ({ app, request, context }) => {
    const { question, answer } = parseOrThrow(annotationPayload, await readOptionalJson(request), 'AnnotationCreatePayload');
    return json(annotationView(context.annotations.create(app.id, question, answer, context.owner.id)), 201);
  });

  route(APP_OPERATIONS.updateAnnotation, {}, async ({ app, request, params, context }) => {
    const { question, answer } = parseOrThrow(annotationPayload, await readOptionalJson(request), 'AnnotationCreatePayload');
    const record = requireAnnotation(context, app.id, params.annotation_id!);
    record.question = question;
    record.answer = answer;
    return json(annotationView(record));
  });

  route(APP_OPERATIONS.deleteAnnotation, {}, ({ app, params, context }) => {
    requireAnnotation(context, app.id, params.annotation_id!);
    context.annotations.delete(app.id, params.annotation_id!);
    return new Response(null, { status: 204 });
  });

  route(APP_OPERATIONS.setAnnotationReply, {}, async ({ app, request, params, context }) => {
    const payload = parseOrThrow(replyPayload, await readOptionalJson(request), 'AnnotationReplyActionPayload');
    const action = params.action!;
    // Dify v1.16 matches `enable` and `disable` only and then fails on the unset result (a 500);
    // its older `else` branch, answered here, refused any other action with this ValueError.
    if (action !== 'enable' && action !== 'disable') throw badParam('Unsupported annotation reply action');
    const job = context.annotations.runJob(app.id, action, {
      scoreThreshold: payload.score_threshold,
      embeddingProviderName: payload.embedding_provider_name,
      embeddingModelName: payload.embedding_model_name,
    });
    // The request answers before the job runs: always `waiting`.
    return json({ job_id: job.id, job_status: 'waiting' });
  });

  route(APP_OPERATIONS.getAnnotationReplyStatus, {}, ({ params, context }) => {
    const job = context.annotations.job(params.action!, params.job_id!);
    if (!job) throw badParam('The job does not exist.');
    const body: AnnotationReplyJobStatus = { job_id: job.id, job_status: job.status, error_msg: job.status === 'error' ? job.errorMsg : '' };
    return json(body);
  });
}

function requireAnnotation(context: ServiceContext, appId: string, id: string): AnnotationRecord {
  const record = context.annotations.get(appId, id);
  if (!record) throw notFound('Annotation not found');
  return record;
}

const annotationView = (a: AnnotationRecord): Annotation => ({ id: a.id, question: a.question, answer: a.answer, hit_count: a.hitCount, created_at: a.createdAt });

/** A log's own id, one per run (Dify's `WorkflowAppLog` row). */
const logIds = new WeakMap<Run, string>();
/** The published version a run ran: Dify's `workflow.version`, the time it was published (here: first reported). */
const versions = new Map<string, string>();

function logEntry(run: Run, context: ServiceContext): WorkflowLog {
  let id = logIds.get(run);
  if (!id) logIds.set(run, (id = crypto.randomUUID()));
  let version = versions.get(run.workflow.id);
  if (!version) versions.set(run.workflow.id, (version = new Date().toISOString().replace('T', ' ').replace('Z', '000')));
  return {
    id,
    workflow_run: {
      id: run.id,
      version,
      status: run.status,
      triggered_from: 'app-run',
      error: run.error,
      elapsed_time: elapsedSeconds(run),
      total_tokens: run.totalTokens,
      total_steps: run.totalSteps,
      created_at: run.createdAt,
      finished_at: run.finishedAt,
      exceptions_count: 0,
    },
    details: null,
    created_from: 'service-api',
    created_by_role: 'end_user',
    created_by_account: null,
    created_by_end_user: { id: context.endUsers.idOf(run.app.id, run.user), type: 'service_api', is_anonymous: run.user === DEFAULT_USER, session_id: run.user },
    created_at: run.createdAt,
  };
}

/**
 * Dify's keyword filter: the first 30 characters, case-insensitively within the run's inputs or
 * outputs (as stored, JSON text) or its end user's session id, or the run's id when the keyword
 * is a UUID (`keywordId`).
 */
function keywordMatches(run: Run, keyword: string, keywordId: string | null): boolean {
  const needle = keyword.slice(0, 30).toLowerCase();
  const stored = [pythonJson(inputsWithSystem(run)), run.outputs === null ? '' : pythonJson(run.outputs), run.user];
  if (stored.some((text) => text.toLowerCase().includes(needle))) return true;
  return keywordId === run.id.replaceAll('-', '');
}

/**
 * The 32 hex digits of `keyword` as `uuid.UUID(keyword)` reads them (every `urn:` and `uuid:`
 * dropped, braces stripped off both ends, hyphens dropped), lower-case; or null when it is no UUID.
 */
function uuidHex(keyword: string): string | null {
  const hex = pythonStrip(keyword.replaceAll('urn:', '').replaceAll('uuid:', ''), '{}').replaceAll('-', '');
  return /^[0-9a-f]{32}$/i.test(hex) ? hex.toLowerCase() : null;
}

/** `json.dumps`'s text (its `", "` and `": "` separators), as the run's JSON columns hold it. */
function pythonJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(pythonJson).join(', ')}]`;
  if (value && typeof value === 'object') return `{${Object.entries(value).map(([k, v]) => `${JSON.stringify(k)}: ${pythonJson(v)}`).join(', ')}}`;
  return JSON.stringify(value) ?? 'null';
}
