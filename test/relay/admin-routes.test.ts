/**
 * The app side's admin operations (workflow logs, annotations, annotation reply) carry an app
 * key's whole authority over the app: the relay refuses them to every session, with its 404 and
 * without reaching the upstream, whatever the method, body or id.
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { APP_OPERATIONS, pathOf } from '../../src/protocol/index.js';
import { RELAY_ROUTES } from '../../src/relay/index.js';
import { bearer, mountRelay, startUpstream, type ControlledUpstream, type MountedRelay } from './helpers.js';

const ID = '3f2b8c1e-9a4d-4e7b-8c2a-1d5e6f7a8b9c';
const ADMIN = [
  APP_OPERATIONS.listWorkflowLogs,
  APP_OPERATIONS.listAnnotations,
  APP_OPERATIONS.createAnnotation,
  APP_OPERATIONS.updateAnnotation,
  APP_OPERATIONS.deleteAnnotation,
  APP_OPERATIONS.setAnnotationReply,
  APP_OPERATIONS.getAnnotationReplyStatus,
];

let upstream: ControlledUpstream;
let mounted: MountedRelay;
before(async () => {
  upstream = await startUpstream();
  mounted = await mountRelay(upstream.url, { rateLimit: false });
});
after(async () => {
  await mounted?.close();
  await upstream?.close();
});

test('no admin operation is browser-safe, so none is on the allowlist', () => {
  for (const op of ADMIN) {
    assert.ok(!('browserSafe' in op), `${op.method} ${op.path}`);
    assert.ok(!RELAY_ROUTES.some((r) => r.name === op.path), `${op.method} ${op.path} is on the allowlist`);
  }
});

test('each is refused with the relay\'s 404, and the upstream never hears of it, even for a run-bound session', async () => {
  const plain = (await mounted.relay.createSession({ user: 'admin-wannabe' })).token;
  const bound = (await mounted.relay.createSession({ user: 'admin-wannabe', runId: ID })).token;
  for (const token of [plain, bound]) {
    for (const op of ADMIN) {
      const path = (pathOf as (template: string, ...values: string[]) => string)(op.path, ...(op.path.includes('{action}') ? ['enable', ID] : [ID]));
      for (const query of ['', '?page=1&limit=100&keyword=x']) {
        const before = upstream.requests.length;
        const json = op.method === 'GET' || op.method === 'DELETE' ? undefined : JSON.stringify({ question: 'q', answer: 'a', score_threshold: 0.9, embedding_provider_name: 'p', embedding_model_name: 'm' });
        const answer = await fetch(`${mounted.url}${path}${query}`, { method: op.method, headers: { ...bearer(token), ...(json ? { 'Content-Type': 'application/json' } : {}) }, body: json });
        const body = (await answer.json()) as { code: string; status: number };
        assert.equal(answer.status, 404, `${op.method} ${path}${query}`);
        assert.deepEqual([body.code, body.status], ['not_found', 404]);
        assert.equal(upstream.requests.length, before, `${op.method} ${path} reached the upstream`);
      }
    }
  }
});
