/**
 * The app side's admin operations (workflow logs, annotations, annotation reply) carry an app
 * key's whole authority over the app: the relay refuses them to every session, with its 404 and
 * without reaching the upstream, whatever the method, body or id.
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { APP_OPERATIONS, pathOf } from '../../src/protocol/index.js';
import { RELAY_ROUTES } from '../../src/relay/index.js';
import { BASE_PATH, bearer, mountRelay, rawRequest, startUpstream, type ControlledUpstream, type MountedRelay } from './helpers.js';

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

test('no spelling of an admin path reaches the upstream: case, slashes, encodings, parameters, dot segments, any method', async () => {
  const token = (await mounted.relay.createSession({ user: 'admin-wannabe' })).token;
  const paths = ['/workflows/logs', '/apps/annotations', `/apps/annotations/${ID}`, '/apps/annotation-reply/enable', `/apps/annotation-reply/enable/status/${ID}`, '/app/feedbacks'];
  const spellings = (path: string) => [
    path,
    path.toUpperCase(),
    `${path}/`,
    `/${path}`,
    path.replaceAll('/', '//'),
    path.replace(/\/(?=.)/g, (slash, at: number) => (at ? '%2f' : slash)),
    path.replace(/\/(?=.)/g, (slash, at: number) => (at ? '%2F' : slash)),
    path.replace(/\/(?=.)/g, (slash, at: number) => (at ? '%252f' : slash)),
    `${path};x=1`,
    path.replace(/^\/(\w+)/, '/$1;'),
    `${path}%00`,
    `${path}%20`,
    `/./${path.slice(1)}`,
    `/site/..${path}`,
    `/site/%2e%2e${path}`,
    `/site/..%2f${path.slice(1)}`,
    path.replace(/^\/a/, '/%61'),
    `${path}?x=1`,
  ];
  const before = upstream.requests.length;
  for (const path of paths) {
    for (const spelled of spellings(path)) {
      for (const method of ['GET', 'POST', 'PUT', 'DELETE', 'PATCH', 'HEAD', 'OPTIONS']) {
        const answer = await rawRequest(mounted.origin, method, BASE_PATH + spelled, { ...bearer(token), 'Content-Type': 'application/json', 'X-HTTP-Method-Override': 'GET' }, method === 'GET' || method === 'HEAD' ? undefined : '{}');
        assert.ok([400, 404].includes(answer.status), `${method} ${spelled} → ${answer.status}`);
      }
    }
  }
  assert.deepEqual(upstream.requests.slice(before).map((r) => `${r.method} ${r.url.pathname}`), []);
});

test('an allowed route with an override header or `_method` still goes up as itself', async () => {
  const token = (await mounted.relay.createSession({ user: 'admin-wannabe' })).token;
  for (const override of ['X-HTTP-Method-Override', 'X-Method-Override', 'X-HTTP-Method']) {
    const before = upstream.requests.length;
    const answer = await rawRequest(mounted.origin, 'GET', `${BASE_PATH}/site?_method=DELETE`, { ...bearer(token), [override]: 'DELETE', 'X-Original-URL': '/v1/apps/annotations' });
    assert.equal(answer.status, 200);
    const [sent] = upstream.requests.slice(before);
    assert.deepEqual([sent!.method, sent!.url.pathname, sent!.headers[override.toLowerCase()], sent!.headers['x-original-url']], ['GET', '/v1/site', undefined, undefined]);
  }
});
