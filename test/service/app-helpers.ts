/** Shared set-up of the app-side service tests: the default fixture (tweakable) over loopback. */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { AppClient, ServiceError } from '../../src/client/index.js';
import type { RunEvent, RunEventName, RunEventOf } from '../../src/protocol/index.js';
import { readRunEvents } from '../../src/protocol/index.js';
import { DEFAULT_FIXTURE_PATH, parseFixture, startService, type RunningService } from '../../src/service/index.js';

// eslint-disable-next-line @typescript-eslint/no-explicit-any
export type RawFixture = any;

export const KEYS = {
  chatflow: 'app-demo-chatflow',
  workflow: 'app-demo-workflow',
  agent: 'app-demo-agent',
  chatbot: 'app-demo-chatbot',
  legacyAgent: 'app-demo-legacy-agent',
  textGenerator: 'app-demo-text-generator',
} as const;

export const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

export interface Harness {
  svc: RunningService;
  client(key: string): AppClient;
  /** A raw request, for inputs the client cannot express; `path` is under `/v1` unless absolute. */
  raw(method: string, path: string, init?: RawInit): Promise<RawAnswer>;
  close(): Promise<void>;
}

export interface RawInit {
  key?: string | null;
  json?: unknown;
  body?: RequestInit["body"];
  headers?: Record<string, string>;
}

export interface RawAnswer {
  status: number;
  headers: Headers;
  body: unknown;
}

export function defaultFixture(): RawFixture {
  return JSON.parse(readFileSync(DEFAULT_FIXTURE_PATH, 'utf8'));
}

/** Starts the service on the default fixture after `mutate`; text streams fast. */
export async function startApp(mutate?: (raw: RawFixture) => void, qa?: Parameters<typeof startService>[0]['qa'], pingIntervalMs?: number): Promise<Harness> {
  const raw = defaultFixture();
  mutate?.(raw);
  const svc = await startService({ fixture: parseFixture(raw), port: 0, qa, pingIntervalMs });
  const origin = svc.url.replace(/\/v1$/, '');
  return {
    svc,
    client: (key) => new AppClient({ baseUrl: svc.url, credential: key }),
    async raw(method, path, init = {}) {
      const headers: Record<string, string> = { ...init.headers };
      const key = init.key === undefined ? KEYS.workflow : init.key;
      if (key !== null) headers.Authorization = `Bearer ${key}`;
      let body = init.body;
      if (init.json !== undefined) {
        body = JSON.stringify(init.json);
        headers['Content-Type'] = 'application/json';
      }
      const response = await fetch(origin + (path.startsWith('/_') || path.includes('/file-preview') ? path : `/v1${path}`), { method, headers, body });
      const text = await response.text();
      let parsed: unknown = text;
      try {
        parsed = text ? JSON.parse(text) : undefined;
      } catch {
        // not JSON: keep the text
      }
      return { status: response.status, headers: response.headers, body: parsed };
    },
    close: () => svc.close(),
  };
}

export async function drain(events: AsyncIterable<RunEvent>): Promise<RunEvent[]> {
  const all: RunEvent[] = [];
  for await (const event of events) all.push(event);
  return all;
}

export const live = (events: RunEvent[]) => events.filter((e) => e.event !== 'ping');

export function find<N extends RunEventName>(events: RunEvent[], name: N): RunEventOf<N> {
  const event = events.find((e) => e.event === name);
  assert.ok(event, `no ${name} event among ${events.map((e) => e.event).join(', ')}`);
  return event as RunEventOf<N>;
}

/** Event names; runs of chunk events collapse, node events carry their node id. */
export function outline(events: RunEvent[]): string[] {
  const names: string[] = [];
  for (const e of live(events)) {
    let name: string = e.event;
    if (e.event === 'node_started' || e.event === 'node_finished') name += `:${e.data.node_id}`;
    if (['text_chunk', 'message', 'agent_message'].includes(name) && names.at(-1) === name) continue;
    names.push(name);
  }
  return names;
}

/** Opens a run's events stream and waits for its head, so the subscription exists before a submit. */
export async function openEvents(client: AppClient, runId: string, query: Parameters<AppClient['prepareWorkflowEvents']>[1]): Promise<AsyncGenerator<RunEvent, void, undefined>> {
  const { url, init } = await client.prepareWorkflowEvents(runId, query);
  const response = await fetch(url, init);
  assert.equal(response.status, 200);
  return readRunEvents(response.body!);
}

export function assertError(answer: RawAnswer, status: number, code: string, message?: string | RegExp): void {
  assert.equal(answer.status, status, JSON.stringify(answer.body));
  const body = answer.body as Record<string, unknown>;
  assert.deepEqual(Object.keys(body).sort(), ['code', 'message', 'status'], JSON.stringify(body));
  assert.equal(body.code, code, JSON.stringify(body));
  assert.equal(body.status, status);
  if (typeof message === 'string') assert.equal(body.message, message);
  else if (message) assert.match(String(body.message), message);
}

export async function rejects(promise: Promise<unknown>, status: number, code: string, message?: string | RegExp): Promise<ServiceError> {
  let caught: ServiceError | undefined;
  await assert.rejects(promise, (error: unknown) => {
    assert.ok(error instanceof ServiceError, `expected a ServiceError, got ${String(error)}`);
    assert.equal(error.status, status, error.message);
    assert.equal(error.code, code, error.message);
    if (typeof message === 'string') assert.equal(error.message, message);
    else if (message) assert.match(error.message, message);
    caught = error;
    return true;
  });
  return caught!;
}

/** Polls until `check` holds (or fails after `ms`). */
export async function eventually(check: () => boolean | Promise<boolean>, what: string, ms = 5000): Promise<void> {
  const end = Date.now() + ms;
  while (!(await check())) {
    if (Date.now() > end) assert.fail(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}
