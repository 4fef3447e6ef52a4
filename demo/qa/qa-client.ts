/** The host backend's QA routes (`/api/qa…`), which pass the controls on to the embedded service. */
import { QA_PATH, type QaSettings } from './contract.js';

/** A failed control, with the `{code, message, status}` the backend answered. */
export class QaError extends Error {
  constructor(
    readonly code: string,
    message: string,
    readonly status: number,
  ) {
    super(message);
  }
}

async function call<T>(method: string, path: string, body?: unknown): Promise<T> {
  const answer = await fetch(QA_PATH + path, {
    method,
    headers: body === undefined ? {} : { 'Content-Type': 'application/json' },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const json = (await answer.json().catch(() => ({}))) as T & { code?: string; message?: string };
  if (!answer.ok) throw new QaError(json.code ?? 'unknown', json.message ?? `HTTP ${answer.status}`, answer.status);
  return json;
}

export const qa = {
  settings: () => call<QaSettings>('GET', ''),
  change: (settings: Partial<QaSettings>) => call<QaSettings>('PATCH', '/settings', settings),
  cutNextStream: (after: number) => call<QaSettings>('POST', '/cut-next-stream', { after }),
  /** `form`: the form's token, or its id (a form answered by email has no token). */
  expireForm: (form: string) => call<{ status: string }>('POST', `/forms/${encodeURIComponent(form)}/expire`),
  failRun: (runId: string) => call<{ status: string }>('POST', `/runs/${encodeURIComponent(runId)}/fail`),
  reset: () => call<unknown>('POST', '/reset'),
};
