/**
 * The table of operations (`src/protocol/operations.ts`, `knowledge-operations.ts`) against every
 * part that takes paths from it: the relay admits exactly the browser-safe operations (real HTTP,
 * a recording upstream), the embedded service serves exactly the table (real HTTP), both clients
 * send exactly the table's method and path for each of their methods, and no API path is written
 * outside `src/protocol` except the few listed here. A path added in one place only fails one of
 * these.
 */
import assert from 'node:assert/strict';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { after, before, describe, test } from 'node:test';
import { AppClient } from '../../src/client/index.js';
import { KnowledgeClient } from '../../src/client/knowledge.js';
import { KNOWLEDGE_OPERATIONS } from '../../src/protocol/knowledge-operations.js';
import { OPERATIONS, operationList, type OperationId } from '../../src/protocol/operation-table.js';
import { APP_OPERATIONS, pathParams, pathPattern, requestOf } from '../../src/protocol/operations.js';
import { pathOf } from '../../src/protocol/paths.js';
import { LAX_UUID_PATTERN, UUID_PATTERN } from '../../src/protocol/uuid.js';
import { RELAY_ROUTES } from '../../src/relay/index.js';
import { bearer, mountRelay, startUpstream, type ControlledUpstream, type MountedRelay } from '../relay/helpers.js';
import { startApp, type Harness } from '../service/app-helpers.js';

const root = fileURLToPath(new URL('../../', import.meta.url));
const ID = '3f2b8c1e-9a4d-4e7b-8c2a-1d5e6f7a8b9c';
/** A concrete path of `path`: every parameter a UUID-shaped id. */
const concrete = (path: string) => path.replace(/\{\w+\}/g, ID);
const key = (method: string, path: string) => `${method} ${path}`;

describe('the table', () => {
  test('every operation is one method and path, its parameters named once, its flags consistent', () => {
    const seen = new Set<string>();
    for (const op of operationList()) {
      assert.match(op.path, /^\/[a-z0-9_/{}.-]+$/, op.id);
      assert.ok(!seen.has(key(op.method, op.path)), `${op.id}: ${key(op.method, op.path)} twice`);
      seen.add(key(op.method, op.path));
      const names = pathParams(op.path);
      assert.equal(new Set(names).size, names.length, `${op.id} names a parameter twice`);
      if (op.aliasOf) assert.ok(op.aliasOf in OPERATIONS && !(OPERATIONS[op.aliasOf as OperationId] as { aliasOf?: string }).aliasOf, `${op.id}: aliasOf ${op.aliasOf}`);
      if (op.runBound) assert.ok(op.browserSafe, `${op.id}: run-bound but not browser-safe`);
      if (op.startsRun) assert.ok(op.streams && op.browserSafe, `${op.id}: starts a run but does not stream`);
      if (op.side === 'knowledge') {
        assert.ok(!op.browserSafe, `${op.id}: a knowledge operation is browser-safe`);
        assert.equal(op.user, undefined, `${op.id}: a knowledge operation has no end user`);
      }
    }
    assert.equal(operationList().filter((op) => op.side === 'knowledge').length, Object.keys(KNOWLEDGE_OPERATIONS).length);
  });

  test('pathOf fills parameters in order, percent-encoded; requestOf gives the method with it', () => {
    assert.equal(pathOf(APP_OPERATIONS.updateConversationVariable.path, 'a/b', 'c?d'), '/conversations/a%2Fb/variables/c%3Fd');
    assert.deepEqual(requestOf(KNOWLEDGE_OPERATIONS.updateChildChunk, 'd', 'o', 's', 'c'), ['PATCH', '/datasets/d/documents/o/segments/s/child_chunks/c']);
    assert.deepEqual(requestOf(APP_OPERATIONS.getSite), ['GET', '/site']);
    const pattern = pathPattern(APP_OPERATIONS.updateConversationVariable.path, '[^/]+');
    assert.deepEqual({ ...pattern.exec('/conversations/x/variables/y')!.groups }, { conversation_id: 'x', variable_id: 'y' });
    assert.equal(pattern.exec('/conversations/x/variables/y/z'), null);
  });

  test('one UUID rule: hyphens required for routed ids, optional where the app side reads a value', () => {
    assert.ok(UUID_PATTERN.test(ID) && UUID_PATTERN.test(ID.toUpperCase()));
    assert.ok(!UUID_PATTERN.test(ID.replaceAll('-', '')));
    assert.ok(LAX_UUID_PATTERN.test(ID.replaceAll('-', '')) && LAX_UUID_PATTERN.test(ID));
    assert.ok(!LAX_UUID_PATTERN.test(`${ID}0`) && !LAX_UUID_PATTERN.test(ID.slice(1)));
  });
});

describe('the relay admits exactly the browser-safe operations', () => {
  let upstream: ControlledUpstream;
  let mounted: MountedRelay;
  before(async () => {
    upstream = await startUpstream();
    mounted = await mountRelay(upstream.url, { rateLimit: false, maxStreamsPerUser: false });
  });
  after(async () => {
    await mounted?.close();
    await upstream?.close();
  });

  test('its allowlist is the table\'s browser-safe operations, with their user placement, streaming and run binding', () => {
    const safe = operationList().filter((op) => op.browserSafe);
    assert.deepEqual(RELAY_ROUTES.map((r) => key(r.method, r.name)), safe.map((op) => key(op.method, op.path)));
    for (const op of safe) {
      const route = RELAY_ROUTES.find((r) => r.name === op.path && r.method === op.method)!;
      assert.deepEqual([route.user, !!route.streams, !!route.runBound, !!route.startsRun], [op.user ?? 'none', !!op.streams, !!op.runBound, !!op.startsRun], op.id);
    }
  });

  test('over HTTP, each browser-safe operation reaches the upstream under its own path; every other one is 404 and reaches nothing', async () => {
    const { token } = await mounted.relay.createSession({ user: 'table-user' });
    for (const op of operationList()) {
      if (op.outsideBase) continue;
      const path = concrete(op.path);
      const before = upstream.requests.length;
      const body = op.user === 'multipart' ? multipart() : op.method === 'GET' ? undefined : { body: '{}', type: 'application/json' };
      const answer = await fetch(mounted.url + path, { method: op.method, headers: { ...bearer(token), ...(body ? { 'Content-Type': body.type } : {}) }, body: body?.body });
      await answer.arrayBuffer();
      if (op.browserSafe) {
        assert.equal(upstream.requests.length, before + 1, `${op.id} did not reach the upstream (${answer.status})`);
        assert.equal(upstream.last().method, op.method, op.id);
        assert.equal(upstream.last().url.pathname, `/v1${path}`, op.id);
      } else {
        assert.equal(answer.status, 404, `${op.id} answered ${answer.status}`);
        assert.equal(upstream.requests.length, before, `${op.id} reached the upstream`);
      }
    }
  });
});

function multipart(): { body: string; type: string } {
  const boundary = 'table-boundary';
  return {
    type: `multipart/form-data; boundary=${boundary}`,
    body: `--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="a.txt"\r\nContent-Type: text/plain\r\n\r\nhello\r\n--${boundary}--\r\n`,
  };
}

describe('the embedded service serves exactly the table', () => {
  let app: Harness;
  before(async () => {
    app = await startApp();
  });
  after(async () => app?.close());

  test('its routes are the table\'s operations, and the table\'s are its routes', () => {
    const served = app.svc.service.routes.map((r) => key(r.method, r.path)).sort();
    assert.deepEqual(served, operationList().map((op) => key(op.method, op.path)).sort());
  });

  test('over HTTP, every operation is routed: without a key it answers 401, not the router\'s 404 or 405', async () => {
    for (const op of operationList()) {
      const path = concrete(op.path);
      const answer = await app.raw(op.method, path, { key: null, ...(op.method === 'GET' ? {} : { json: {} }) });
      const body = answer.body as { code?: string; message?: string };
      if (op.outsideBase) {
        // A preview needs its signature, not a key.
        assert.deepEqual([answer.status, body.message], [404, 'File not found or signature is invalid.'], op.id);
      } else {
        assert.equal(answer.status, 401, `${op.id}: ${answer.status} ${JSON.stringify(body)}`);
      }
    }
  });
});

describe('the clients send the table\'s method and path', () => {
  /** Each call made, matched against the table. */
  function recorder(): { fetch: typeof fetch; calls: { method: string; path: string }[] } {
    const calls: { method: string; path: string }[] = [];
    return {
      calls,
      fetch: (async (url: string | URL, init?: RequestInit) => {
        calls.push({ method: init?.method ?? 'GET', path: new URL(url).pathname.replace(/^\/v1/, '') });
        return new Response('{}', { status: 200, headers: { 'Content-Type': 'application/json' } });
      }) as typeof fetch,
    };
  }

  /** The operation a request is, by the table; fails when none is. */
  function operationOf(call: { method: string; path: string }): OperationId {
    const found = operationList().filter((op) => op.method === call.method && pathPattern(op.path, '[^/]+').test(call.path) && !op.aliasOf);
    // `/datasets/tags` also fits `/datasets/{dataset_id}`: the most literal path wins, as in the router.
    const [best] = found.sort((a, b) => pathParams(a.path).length - pathParams(b.path).length);
    assert.ok(best, `${call.method} ${call.path} is no operation of the table`);
    return best.id;
  }

  test('every app client method sends its operation, and every app operation has a client method', async () => {
    const { fetch, calls } = recorder();
    const c = new AppClient({ baseUrl: 'http://upstream.test/v1', credential: 'k', fetch });
    const user = 'u';
    const drain = async (events: AsyncIterable<unknown>) => {
      for await (const _ of events) void _;
    };
    await c.runWorkflow({ inputs: {}, user });
    await c.runWorkflow({ inputs: {}, user }, undefined, ID);
    await drain(c.streamWorkflow({ inputs: {}, user }));
    await drain(c.workflowEvents(ID, { user }));
    await c.getWorkflowRun(ID);
    await c.stopWorkflow(ID, user);
    await c.getForm(ID);
    await c.submitForm(ID, { inputs: {}, action: 'a', user });
    await c.uploadFile(new Blob(['x']), 'a.txt', user);
    await c.sendChatMessage({ query: 'q', inputs: {}, user });
    await c.stopChatMessage(ID, user);
    await c.createCompletion({ inputs: {}, user });
    await c.stopCompletion(ID, user);
    await c.listMessages({ conversation_id: ID, user });
    await c.submitFeedback(ID, { rating: 'like', user });
    await c.listConversations({ user });
    await c.renameConversation(ID, { name: 'n', user });
    await c.deleteConversation(ID, user);
    await c.listConversationVariables(ID, { user });
    await c.updateConversationVariable(ID, ID, { value: 1, user });
    await c.textToAudio({ text: 't', user });
    await c.getSite();
    await c.getInfo();
    await c.getParameters();
    await c.listWorkflowLogs({ status: 'succeeded' });
    await c.listAnnotations({ keyword: 'k' });
    await c.createAnnotation({ question: 'q', answer: 'a' });
    await c.updateAnnotation(ID, { question: 'q', answer: 'a' });
    await c.deleteAnnotation(ID);
    await c.setAnnotationReply('enable', { score_threshold: 0.9, embedding_provider_name: 'p', embedding_model_name: 'm' });
    await c.getAnnotationReplyStatus('enable', ID);
    await c.getSuggestedQuestions(ID, user);
    await c.audioToText(new Blob(['x'], { type: 'audio/mp3' }), 'a.mp3', user);
    await c.listAppFeedbacks({ page: 1, limit: 20 });
    const prepared = await c.prepareWorkflowEvents(ID, { user });
    calls.push({ method: prepared.init.method!, path: new URL(prepared.url).pathname.replace(/^\/v1/, '') });
    const covered = new Set(calls.map(operationOf));
    const expected = Object.keys(APP_OPERATIONS).filter((id) => !['getMeta', 'filePreview'].includes(id));
    assert.deepEqual([...covered].sort(), expected.sort());
  });

  test('every knowledge client method sends its operation, and every knowledge operation but the aliases has one', async () => {
    const { fetch, calls } = recorder();
    const c = new KnowledgeClient({ baseUrl: 'http://upstream.test/v1', credential: 'k', fetch });
    await c.listDatasets({ tag_ids: [ID] });
    await c.createDataset({ name: 'n' });
    await c.getDataset(ID);
    await c.updateDataset(ID, { name: 'n' });
    await c.deleteDataset(ID);
    await c.createDocumentByText(ID, { name: 'n', text: 't' });
    await c.createDocumentByFile(ID, new Blob(['x']), 'a.txt');
    await c.updateDocumentByText(ID, ID, { name: 'n' });
    await c.updateDocumentByFile(ID, ID, null);
    await c.getDocument(ID, ID);
    await c.deleteDocument(ID, ID);
    await c.listDocuments(ID);
    await c.getIndexingStatus(ID, ID);
    await c.getDocumentDownloadUrl(ID, ID);
    await c.downloadDocumentsZip(ID, [ID]);
    await c.getDocumentUploadFile(ID, ID);
    await c.updateDocumentStatus(ID, 'enable', [ID]);
    await c.listSegments(ID, ID, { status: ['completed'] });
    await c.createSegments(ID, ID, { segments: [{ content: 'c' }] });
    await c.getSegment(ID, ID, ID);
    await c.updateSegment(ID, ID, ID, { segment: { content: 'c' } });
    await c.deleteSegment(ID, ID, ID);
    await c.listChildChunks(ID, ID, ID);
    await c.createChildChunk(ID, ID, ID, 'c');
    await c.updateChildChunk(ID, ID, ID, ID, 'c');
    await c.deleteChildChunk(ID, ID, ID, ID);
    await c.retrieve(ID, { query: 'q' });
    await c.listDatasourcePlugins(ID);
    await c.listTags();
    await c.createTag('n');
    await c.renameTag(ID, 'n');
    await c.deleteTag(ID);
    await c.bindTags(ID, [ID]);
    await c.unbindTags(ID, [ID]);
    await c.getDatasetTags(ID);
    await c.listBuiltInMetadataFields(ID);
    await c.setBuiltInMetadata(ID, true);
    await c.createMetadataField(ID, { type: 'string', name: 'n' });
    await c.listMetadataFields(ID);
    await c.renameMetadataField(ID, ID, 'n');
    await c.deleteMetadataField(ID, ID);
    await c.updateDocumentMetadata(ID, { operation_data: [] });
    await c.listModels('text-embedding');
    const covered = new Set(calls.map(operationOf));
    const expected = Object.entries(KNOWLEDGE_OPERATIONS).filter(([, op]) => !('aliasOf' in op)).map(([id]) => id);
    assert.deepEqual([...covered].sort(), expected.sort());
  });
});

/** Not API paths: the QA endpoint's own routes. */
const NOT_API = ['src/service/qa/routes.ts'];

const API_LITERAL = /['`](\/(?:workflows?|chat-messages|completion-messages|messages|conversations|files|parameters|site|info|meta|audio-to-text|text-to-audio|app|datasets|form|workspaces)(?:[/?][^'`\s]*)?)['`]/g;

function sourceFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    return statSync(path).isDirectory() ? sourceFiles(path) : path.endsWith('.ts') ? [path] : [];
  });
}

/** The code of a file without its comments (which may name paths in prose). */
const withoutComments = (code: string) => code.replace(/\/\*[\s\S]*?\*\//g, '').replace(/^\s*\/\/.*$/gm, '').replace(/\s\/\/ .*$/gm, '');

describe('no API path is written twice', () => {
  test('outside src/protocol, no API path literal appears (every one is taken from the table)', () => {
    const stray: string[] = [];
    for (const file of sourceFiles(join(root, 'src'))) {
      const name = relative(root, file);
      if (name.startsWith('src/protocol/') || NOT_API.includes(name)) continue;
      for (const [, literal] of withoutComments(readFileSync(file, 'utf8')).matchAll(API_LITERAL)) {
        stray.push(`${name}: ${literal}`);
      }
    }
    assert.deepEqual(stray, []);
  });
});
