/**
 * The QA admin endpoint, under `/_qa` beside the API and answered only to loopback callers:
 * read the state, change the fault settings, cut one run's streams, expire a form now, reset.
 */
import type { ServiceContext } from '../context.js';
import { ApiError, notFound } from '../errors.js';
import { json, readJsonObject } from '../http.js';
import type { Router } from '../router.js';
import type { QaSettings } from './controls.js';

export interface QaHooks {
  /** Forgets every run, form, conversation, upload and end user, puts the knowledge side back to the fixture's; settings go back to their start values. */
  reset(): void;
}

const LOOPBACK = /^(127\.\d{1,3}\.\d{1,3}\.\d{1,3}|::1|::ffff:127\.\d{1,3}\.\d{1,3}\.\d{1,3})$/;

export function isLoopback(address: string | undefined): boolean {
  return address !== undefined && LOOPBACK.test(address);
}

const SETTING_CHECKS: Record<keyof QaSettings, (v: unknown) => boolean> = {
  latencyMs: (v) => Number.isInteger(v) && (v as number) >= 0 && (v as number) <= 60_000,
  cutStreamAfter: (v) => v === null || (Number.isInteger(v) && (v as number) >= 0),
  failRemoteFetch: (v) => typeof v === 'boolean',
  remoteFetchTimeoutMs: (v) => Number.isInteger(v) && (v as number) >= 1 && (v as number) <= 120_000,
  pingIntervalMs: (v) => Number.isInteger(v) && (v as number) >= 10 && (v as number) <= 600_000,
  streamIdleTimeoutMs: (v) => Number.isInteger(v) && (v as number) >= 100 && (v as number) <= 86_400_000,
  transcript: (v) => v === null || (typeof v === 'string' && v.length <= 100_000),
};

const SETTING_HINTS: Record<keyof QaSettings, string> = {
  latencyMs: 'an integer from 0 to 60000',
  cutStreamAfter: 'null or an integer of at least 0',
  failRemoteFetch: 'a boolean',
  remoteFetchTimeoutMs: 'an integer from 1 to 120000',
  pingIntervalMs: 'an integer from 10 to 600000',
  streamIdleTimeoutMs: 'an integer from 100 to 86400000',
  transcript: 'null or a string of at most 100000 characters',
};

export function qaRoutes(router: Router<ServiceContext>, hooks: QaHooks): void {
  router.on({ method: 'GET', path: '/state' }, (_r, _p, _u, { qa, engine, uploads }) =>
    json({
      settings: qa.settings,
      run_cuts: qa.runCuts,
      uploads: uploads.size,
      runs: [...engine.runs.values()].map((run) => ({
        id: run.id,
        task_id: run.taskId,
        app: run.app.key,
        user: run.user,
        status: run.status,
        paused_form: run.pausedOn ? formSummary(engine.forms.byId(run.pausedOn)) : null,
      })),
    }),
  );

  router.on({ method: 'PATCH', path: '/settings' }, async (request, _p, _u, { qa }) => {
    const body = await readJsonObject(request);
    const next = { ...qa.settings };
    for (const [key, value] of Object.entries(body)) {
      // Own keys only: `__proto__` or `toString` would find the prototype's.
      const check = Object.hasOwn(SETTING_CHECKS, key) ? SETTING_CHECKS[key as keyof QaSettings] : undefined;
      if (!check) throw new ApiError(400, 'invalid_param', `Unknown setting "${key}"; known: ${Object.keys(SETTING_CHECKS).join(', ')}`);
      if (!check(value)) throw new ApiError(400, 'invalid_param', `${key} must be ${SETTING_HINTS[key as keyof QaSettings]}`);
      (next as Record<string, unknown>)[key] = value;
    }
    qa.settings = next;
    return json(qa.settings);
  });

  router.on({ method: 'POST', path: '/runs/{run_id}/cut-stream' }, async (request, { run_id }, _u, { qa, engine }) => {
    const { after } = await readJsonObject(request);
    if (!engine.runs.has(run_id!)) throw notFound('Workflow run not found');
    if (!SETTING_CHECKS.cutStreamAfter(after)) throw new ApiError(400, 'invalid_param', `after must be ${SETTING_HINTS.cutStreamAfter}`);
    qa.cutRun(run_id!, after as number | null);
    return json({ run_id, after });
  });

  router.on({ method: 'POST', path: '/runs/{run_id}/fail' }, async (request, { run_id }, _u, { engine }) => {
    const body = await readJsonObject(request);
    const run = engine.runs.get(run_id!);
    if (!run) throw notFound('Workflow run not found');
    if (run.status !== 'running' && run.status !== 'paused') throw new ApiError(409, 'run_not_active', `The run is ${run.status}; only a running or paused run can fail.`);
    const message = typeof body.message === 'string' && body.message ? body.message : 'Completion request failed.';
    engine.fail(run, message);
    return json({ run_id, status: 'failed' });
  });

  router.on({ method: 'POST', path: '/forms/{form}/expire' }, (_r, { form: key }, _u, { engine }) => {
    const form = engine.forms.byTokenOrId(key!);
    if (!form) throw notFound('Form not found');
    if (form.status !== 'waiting') throw new ApiError(409, 'form_not_waiting', `The form is ${form.status}; only a waiting form can expire.`);
    engine.timeOut(form);
    return json(formSummary(form));
  });

  router.on({ method: 'POST', path: '/reset' }, () => {
    hooks.reset();
    return json({ result: 'success' });
  });
}

function formSummary(form: ReturnType<ServiceContext['engine']['forms']['byId']>) {
  return form ? { form_id: form.id, form_token: form.token, node_id: form.node.id, status: form.status, expiration_time: form.request.expiration_time } : null;
}
