/** Shared set-up of the knowledge tests: the default fixture (tweaked), served over loopback. */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { KnowledgeClient, ServiceError } from '../../src/client/knowledge.js';
import { DEFAULT_FIXTURE_PATH, parseFixture, startService, type RunningService } from '../../src/service/index.js';

export const HANDBOOK_ID = '9c1f6a52-3b7e-4d2a-9f8e-1a2b3c4d5e6f';
export const SUPPORT_FAQ_ID = '6147569b-3a39-4350-a860-0dc28bc65b20';
export const ARCHIVE_ID = '09563ef0-a9da-4aca-802b-0098fdba2142';
export const VENDOR_ID = '1d840163-2d4d-4bfd-a025-989f54862489';
export const EXTERNAL_ID = '0f7c3b1e-5d2a-4e8b-9c6d-2a1b3c4d5e70';
export const OWNER_ID = '88ce5fb8-16f7-463a-8e28-09a8f1e69a5e';
export const ALEX_ID = 'f0e595a3-400e-446f-b2a4-c37dda1dc93b';
export const SAM_ID = '496fa90d-e084-4bd5-bc96-aa072471fbb2';
export const EMBEDDING = { embedding_model: 'text-embedding-3-small', embedding_model_provider: 'langgenius/openai/openai' } as const;

// eslint-disable-next-line @typescript-eslint/no-explicit-any
export type RawFixture = any;

export function defaultFixtureJson(): RawFixture {
  return JSON.parse(readFileSync(DEFAULT_FIXTURE_PATH, 'utf8'));
}

export interface KnowledgeHarness {
  svc: RunningService;
  url: string;
  /** `dataset-demo`: every knowledge base. */
  kc: KnowledgeClient;
  /** `dataset-demo-scoped`: only `Demo handbook`. */
  scoped: KnowledgeClient;
  client(key: string): KnowledgeClient;
  close(): Promise<void>;
}

/**
 * Starts the service with the default fixture; indexing stages take `stageDelayMs` (5 ms unless
 * told) and the rate limit is out of the way unless `mutate` sets one.
 */
export async function startKnowledge(mutate?: (raw: RawFixture) => void, stageDelayMs = 5): Promise<KnowledgeHarness> {
  const raw = defaultFixtureJson();
  raw.knowledge.indexing.stage_delay_ms = stageDelayMs;
  raw.knowledge.subscription.knowledge_rate_limit.limit = 100_000;
  mutate?.(raw);
  const svc = await startService({ fixture: parseFixture(raw), port: 0 });
  const client = (key: string) => new KnowledgeClient({ baseUrl: svc.url, credential: key });
  return {
    svc,
    url: svc.url,
    kc: client('dataset-demo'),
    scoped: client('dataset-demo-scoped'),
    client,
    close: () => svc.close(),
  };
}

/** Asserts that `promise` fails with a ServiceError of this status and code (and message, if given). */
export async function rejects(
  promise: Promise<unknown>,
  expected: { status: number; code: string; message?: string | RegExp },
): Promise<ServiceError> {
  let caught: unknown;
  try {
    await promise;
  } catch (error) {
    caught = error;
  }
  assert.ok(caught instanceof ServiceError, `expected a ServiceError, got ${caught === undefined ? 'success' : String(caught)}`);
  assert.equal(caught.status, expected.status, `status (message: ${caught.message})`);
  assert.equal(caught.code, expected.code, `code (message: ${caught.message})`);
  if (typeof expected.message === 'string') assert.equal(caught.message, expected.message);
  else if (expected.message) assert.match(caught.message, expected.message);
  return caught;
}

let counter = 0;
/** A knowledge base name unique within a run (names are unique per workspace). */
export const uniqueName = (prefix = 'KB') => `${prefix} ${process.pid % 1000}-${++counter}`;

export const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
