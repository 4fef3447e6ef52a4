/**
 * The relay mounted in a Node http server in front of the embedded service, over real HTTP on
 * loopback: session tokens, the allowlist, `user` injection, the whole human-input slice through
 * it, streaming, an unreachable upstream, and the API key staying on the server.
 */
import assert from 'node:assert/strict';
import { createServer, request as httpRequest, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, test } from 'node:test';
import { decodeJwt, SignJWT, UnsecuredJWT } from 'jose';
import { AppClient, ServiceError } from '../../src/client/index.js';
import { readRunEvents, type RunEvent, type RunEventOf, type WorkflowPausedBlockingResponse } from '../../src/protocol/index.js';
import { createRelay, type Relay, type RelayOptions } from '../../src/relay/index.js';
import { toNodeListener } from '../../src/relay/node.js';
import { loadFixture, startService, type RunningService } from '../../src/service/index.js';

const KEY = 'app-demo-workflow';
const SECRET = 'relay-test-secret-0123456789-abcdefghij';
const OTHER_SECRET = 'another-secret-0123456789-abcdefghijklmn';
const BASE_PATH = '/api/relay';
const ISSUER = 'hitl-elements-relay';

let svc: RunningService;
let relay: Relay;
let relayServer: Server;
/** Origin of the Node server the relay is mounted in. */
let origin: string;
/** Base URL of the relay, mirroring the upstream's `/v1`. */
let relayUrl: string;

/** Every request the relay sent upstream. */
const upstreamCalls: { method: string; url: URL; authorization: string | null; body: string | undefined }[] = [];
/** Headers and bodies of every relay answer the tests saw, checked for the API key at the end. */
const seen: { text: string }[] = [];

type UpstreamCall = (typeof upstreamCalls)[number];
function lastCall(match: (call: UpstreamCall) => boolean): UpstreamCall {
  const call = [...upstreamCalls].reverse().find(match);
  assert.ok(call, 'no such upstream call');
  return call;
}

const countingFetch: typeof fetch = (input, init) => {
  const url = new URL(input instanceof Request ? input.url : String(input));
  const headers = new Headers(init?.headers);
  upstreamCalls.push({ method: init?.method ?? 'GET', url, authorization: headers.get('authorization'), body: typeof init?.body === 'string' ? init.body : undefined });
  return fetch(input, init);
};

function relayOptions(overrides: Partial<RelayOptions> = {}): RelayOptions {
  return { upstreamUrl: svc.url, apiKey: KEY, secret: SECRET, basePath: BASE_PATH, fetch: countingFetch, ...overrides };
}

async function listen(server: Server): Promise<string> {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

async function closeServer(server: Server | undefined): Promise<void> {
  if (!server) return;
  server.closeAllConnections();
  await new Promise<void>((resolve) => server.close(() => resolve()));
}

before(async () => {
  svc = await startService({ fixture: await loadFixture(), port: 0 });
  relay = createRelay(relayOptions());
  relayServer = createServer(toNodeListener(relay));
  origin = await listen(relayServer);
  relayUrl = origin + BASE_PATH;
});

after(async () => {
  await closeServer(relayServer);
  await svc?.close();
});

// ---------------------------------------------------------------------------------------------
// helpers

/** Records a relay answer's headers and (as it streams) body. */
function record(response: Response): Response {
  seen.push({ text: [...response.headers].map(([k, v]) => `${k}: ${v}`).join('\n') });
  if (!response.body) return response;
  const entry = { text: '' };
  seen.push(entry);
  const decoder = new TextDecoder();
  const body = response.body.pipeThrough(
    new TransformStream<Uint8Array, Uint8Array>({
      transform(chunk, controller) {
        entry.text += decoder.decode(chunk, { stream: true });
        controller.enqueue(chunk);
      },
    }),
  );
  return new Response(body, { status: response.status, statusText: response.statusText, headers: response.headers });
}

const recordingFetch: typeof fetch = async (input, init) => record(await fetch(input, init));

interface Answer {
  status: number;
  headers: Headers;
  body: unknown;
}

/** A raw request to the mounted relay. */
async function call(method: string, path: string, init: { token?: string | null; json?: unknown; body?: string; authorization?: string } = {}): Promise<Answer> {
  const headers: Record<string, string> = {};
  if (init.authorization !== undefined) headers.Authorization = init.authorization;
  else if (init.token) headers.Authorization = `Bearer ${init.token}`;
  let body = init.body;
  if (init.json !== undefined) body = JSON.stringify(init.json);
  if (body !== undefined) headers['Content-Type'] = 'application/json';
  const response = await recordingFetch(relayUrl + path, { method, headers, body });
  const text = await response.text();
  let parsed: unknown = text;
  try {
    parsed = JSON.parse(text);
  } catch {
    // not JSON
  }
  return { status: response.status, headers: response.headers, body: parsed };
}

function assertError(answer: Answer, status: number, code: string, message?: string): void {
  assert.equal(answer.status, status, JSON.stringify(answer.body));
  const body = answer.body as Record<string, unknown>;
  assert.deepEqual(Object.keys(body).sort(), ['code', 'message', 'status']);
  assert.equal(body.code, code);
  assert.equal(body.status, status);
  assert.equal(typeof body.message, 'string');
  if (message !== undefined) assert.equal(body.message, message);
}

async function session(user: string, extra: { runId?: string; ttlSeconds?: number } = {}): Promise<string> {
  return (await relay.createSession({ user, ...extra })).token;
}

async function drain(events: AsyncIterable<RunEvent>): Promise<RunEvent[]> {
  const all: RunEvent[] = [];
  for await (const event of events) all.push(event);
  return all;
}

function find<N extends RunEvent['event']>(events: RunEvent[], name: N): RunEventOf<N> {
  const event = events.find((e) => e.event === name);
  assert.ok(event, `no ${name} among ${events.map((e) => e.event).join(', ')}`);
  return event as RunEventOf<N>;
}

/** Starts a run through the relay in blocking mode (it answers at the pause). */
async function startPausedViaRelay(token: string, bodyUser = 'attacker'): Promise<{ runId: string; formToken: string }> {
  const answer = await call('POST', '/workflows/run', { token, json: { inputs: {}, response_mode: 'blocking', user: bodyUser } });
  assert.equal(answer.status, 200, JSON.stringify(answer.body));
  const paused = answer.body as WorkflowPausedBlockingResponse;
  assert.equal(paused.data.status, 'paused');
  return { runId: paused.workflow_run_id, formToken: paused.data.reasons[0]!.form_token! };
}

/** Opens a run's events through the relay and waits for the head (the upstream subscription exists). */
async function openEventsViaRelay(token: string, runId: string, query = ''): Promise<AsyncGenerator<RunEvent, void, undefined>> {
  const response = await recordingFetch(`${relayUrl}/workflow/${runId}/events${query}`, { headers: { Authorization: `Bearer ${token}` } });
  assert.equal(response.status, 200);
  assert.match(response.headers.get('content-type') ?? '', /^text\/event-stream/);
  return readRunEvents(response.body!);
}

// ---------------------------------------------------------------------------------------------

describe('sessions', () => {
  test('createSession grants {token, expires_at ≈ now + 900, relay_url}', async () => {
    const now = Math.floor(Date.now() / 1000);
    const grant = await relay.createSession({ user: 'alice' });
    assert.deepEqual(Object.keys(grant).sort(), ['expires_at', 'relay_url', 'token']);
    assert.ok(Math.abs(grant.expires_at - (now + 900)) <= 2, `expires_at ${grant.expires_at}`);
    assert.equal(grant.relay_url, BASE_PATH);
    assert.match(grant.token, /^[\w-]+\.[\w-]+\.[\w-]+$/);
    const claims = decodeJwt(grant.token);
    assert.equal(claims.sub, 'alice');
    assert.equal(claims.aud, 'default');
    assert.equal(claims.iss, ISSUER);
    assert.equal(claims.exp, grant.expires_at);
    assert.equal(claims.run, undefined);
    assert.equal(decodeJwt(await session('alice', { runId: 'r-1' })).run, 'r-1');
    // The token carries nothing secret.
    assert.ok(!JSON.stringify(claims).includes(KEY));
  });

  test('sessionResponse answers the grant as JSON, never cached; publicUrl is handed out', async () => {
    const response = await relay.sessionResponse({ user: 'alice' });
    assert.equal(response.headers.get('cache-control'), 'no-store');
    assert.match(response.headers.get('content-type') ?? '', /^application\/json/);
    const grant = (await response.json()) as Record<string, unknown>;
    assert.equal(grant.relay_url, BASE_PATH);
    assert.equal(decodeJwt(String(grant.token)).sub, 'alice');

    const custom = createRelay(relayOptions({ publicUrl: 'https://example.com/relay', sessionTtlSeconds: 60 }));
    const g = await custom.createSession({ user: 'bob' });
    assert.equal(g.relay_url, 'https://example.com/relay');
    assert.ok(Math.abs(g.expires_at - (Math.floor(Date.now() / 1000) + 60)) <= 2);
  });

  test('createSession needs a user, and the relay a long enough secret', async () => {
    await assert.rejects(relay.createSession({ user: '' }));
    await assert.rejects(relay.createSession({ user: 'alice', ttlSeconds: -5 }), /lifetime/);
    await assert.rejects(relay.createSession({ user: 'alice', ttlSeconds: 2 * 86400 }), /lifetime/);
    await assert.rejects(relay.createSession({ user: 'alice\nbob' }), /control characters/);
    await assert.rejects(relay.createSession({ user: 'alice', runId: '../x' }), /run id/);
    for (const secret of ['short', [SECRET, 'short'], undefined as unknown as string]) {
      await assert.rejects(createRelay(relayOptions({ secret })).createSession({ user: 'alice' }), /at least 32 characters/);
      await assert.rejects(createRelay(relayOptions({ secret })).fetch(new Request(`http://relay${BASE_PATH}/site`, { headers: { authorization: 'Bearer x' } })), /at least 32 characters/);
    }
  });

  test('a relay refuses an API key too short to be one (answers are scrubbed of it)', () => {
    for (const apiKey of ['', 'k', 'app-key']) assert.throws(() => createRelay(relayOptions({ apiKey })), /API key/);
    // Nor is the key told back: it may be a real one, cut short.
    assert.throws(() => createRelay(relayOptions({ apiKey: 'app-key' })), (error: Error) => !error.message.includes('app-key'));
    assert.doesNotThrow(() => createRelay(relayOptions({ apiKey: 'app-1234' })));
  });

  test('creating a relay needs no secret until its first request (a `next build` imports the route without one)', () => {
    const before = upstreamCalls.length;
    assert.doesNotThrow(() => createRelay(relayOptions({ secret: undefined as unknown as string })));
    assert.doesNotThrow(() => createRelay(relayOptions({ secret: 'short' })));
    assert.equal(upstreamCalls.length, before);
  });
});

describe('session checks', () => {
  const key = (s: string) => new TextEncoder().encode(s);
  const jwt = (claims: Record<string, unknown> = {}) =>
    new SignJWT(claims).setProtectedHeader({ alg: 'HS256', typ: 'JWT' }).setIssuer(ISSUER).setSubject('alice').setAudience('default').setIssuedAt();

  async function assertRefused(token: string | null, code: string, authorization?: string): Promise<void> {
    const before = upstreamCalls.length;
    const answer = await call('GET', '/site', { token, ...(authorization !== undefined ? { authorization } : {}) });
    assertError(answer, 401, code);
    assert.match(answer.headers.get('www-authenticate') ?? '', /^Bearer realm="relay"/);
    assert.equal(upstreamCalls.length, before, 'a refused request must not reach upstream');
  }

  test('a valid session passes', async () => {
    const answer = await call('GET', '/site', { token: await session('alice') });
    assert.equal(answer.status, 200);
    assert.equal((answer.body as { title: string }).title, 'Release notes review');
  });

  test('a missing token is refused', async () => {
    await assertRefused(null, 'unauthorized');
    await assertRefused(null, 'unauthorized', 'Basic dXNlcjpwYXNz');
    await assertRefused(null, 'unauthorized', 'Bearer');
  });

  test('garbage, forged, tampered and unsigned tokens are session_invalid', async () => {
    await assertRefused('not-a-jwt', 'session_invalid');
    // Signed with another secret.
    const forged = await createRelay(relayOptions({ secret: OTHER_SECRET })).createSession({ user: 'alice' });
    await assertRefused(forged.token, 'session_invalid');
    // A real token with its payload edited.
    const [header, payload, signature] = (await session('alice')).split('.') as [string, string, string];
    const claims = JSON.parse(Buffer.from(payload, 'base64url').toString()) as Record<string, unknown>;
    const edited = Buffer.from(JSON.stringify({ ...claims, sub: 'mallory' })).toString('base64url');
    await assertRefused(`${header}.${edited}.${signature}`, 'session_invalid');
    // alg "none".
    const unsecured = new UnsecuredJWT({}).setIssuer(ISSUER).setSubject('alice').setAudience('default').setExpirationTime('5m').encode();
    await assertRefused(unsecured, 'session_invalid');
    // Right secret, but another issuer, or no subject.
    await assertRefused(await jwt().setIssuer('someone-else').setExpirationTime('5m').sign(key(SECRET)), 'session_invalid');
    const noSubject = await new SignJWT({}).setProtectedHeader({ alg: 'HS256' }).setIssuer(ISSUER).setAudience('default').setExpirationTime('5m').sign(key(SECRET));
    await assertRefused(noSubject, 'session_invalid');
  });

  test('expired tokens are session_expired', async () => {
    const past = Math.floor(Date.now() / 1000) - 60;
    await assertRefused(await jwt().setIssuedAt(past - 900).setExpirationTime(past).sign(key(SECRET)), 'session_expired');
  });

  test('tokens for another app are session_wrong_audience', async () => {
    const other = await createRelay(relayOptions({ app: 'another-app' })).createSession({ user: 'alice' });
    await assertRefused(other.token, 'session_wrong_audience');
    await assertRefused(await jwt().setAudience('x').setExpirationTime('5m').sign(key(SECRET)), 'session_wrong_audience');
  });

  test('secret rotation: the first secret signs, every secret verifies', async () => {
    const rotated = createRelay(relayOptions({ secret: [OTHER_SECRET, SECRET] }));
    const retired = createRelay(relayOptions({ secret: [OTHER_SECRET] }));
    const site = (r: Relay, token: string) =>
      r.fetch(new Request(`${origin}${BASE_PATH}/site`, { headers: { Authorization: `Bearer ${token}` } })).then(record);

    const oldToken = await session('alice'); // signed with SECRET
    const newToken = (await rotated.createSession({ user: 'alice' })).token; // signed with OTHER_SECRET
    assert.equal((await site(rotated, oldToken)).status, 200);
    assert.equal((await site(rotated, newToken)).status, 200);
    assert.equal((await site(relay, newToken)).status, 401); // not yet known to the old relay
    const refused = await site(retired, oldToken);
    assert.equal(refused.status, 401);
    assert.equal(((await refused.json()) as { code: string }).code, 'session_invalid');
  });
});

describe('the allowlist', () => {
  test('everything but the browser-safe routes is 404 and never reaches upstream', async () => {
    const token = await session('alice');
    const before = upstreamCalls.length;
    for (const [method, path] of [
      ['GET', '/datasets'],
      ['POST', '/datasets'],
      ['GET', '/datasets/abc/documents'],
      ['DELETE', '/datasets/abc'],
      ['POST', '/datasets/abc/document/create-by-text'],
      ['GET', '/datasets/tags'],
      ['PUT', '/conversations'],
      ['GET', '/conversations/abc'],
      ['DELETE', '/messages'],
      ['GET', '/chat-messages'],
      ['GET', '/files/upload'],
      ['GET', '/audio-to-text'],
      ['GET', '/app/feedbacks'],
      ['POST', '/completion-messages'],
      ['POST', '/messages/abc/suggested'],
      ['GET', '/meta'],
      ['POST', '/parameters'],
      ['GET', '/workflows/run'],
      ['GET', '/workflows/run/abc'],
      ['GET', '/workflows/logs'],
      ['GET', '/workflows/tasks/abc/stop'],
      ['PUT', '/form/human_input/abc'],
      ['DELETE', '/form/human_input/abc'],
      ['POST', '/workflow/abc/events'],
      ['GET', '/site/extra'],
      ['GET', ''],
      ['GET', '/'],
    ] as const) {
      assertError(await call(method, path, { token, ...(method === 'GET' ? {} : { json: {} }) }), 404, 'not_found', 'No such relay route.');
    }
    // Outside the mount path.
    const outside = await recordingFetch(`${origin}/v1/site`, { headers: { Authorization: `Bearer ${token}` } });
    assert.equal(outside.status, 404);
    await outside.text();
    assert.equal(upstreamCalls.length, before);
  });

  test('dot segments cannot climb out of an allowed route', async () => {
    const token = await session('alice');
    const raw = (path: string) =>
      new Promise<{ status: number; body: string }>((resolve, reject) => {
        const req = httpRequest(`${origin}${path}`, { headers: { Authorization: `Bearer ${token}` } }, (res) => {
          let body = '';
          res.setEncoding('utf8');
          res.on('data', (c: string) => (body += c));
          res.on('end', () => {
            seen.push({ text: body });
            resolve({ status: res.statusCode ?? 0, body });
          });
        });
        req.on('error', reject);
        req.end();
      });
    const before = upstreamCalls.length;
    for (const path of [`${BASE_PATH}/site/../datasets`, `${BASE_PATH}/form/human_input/x/../../../datasets`, `${BASE_PATH}/../v1/datasets`]) {
      const answer = await raw(path);
      assert.equal(answer.status, 404, `${path} → ${answer.status} ${answer.body}`);
    }
    assert.equal(upstreamCalls.length, before);
    // Encoded slashes and dots never leave the relay, whatever an upstream would make of them.
    for (const path of [`${BASE_PATH}/form/human_input/..%2F..%2Fdatasets`, `${BASE_PATH}/form/human_input/%2e%2e`, `${BASE_PATH}/site%2f..%2fdatasets`]) {
      const encoded = await raw(path);
      assert.equal(encoded.status, 404, path);
      assert.equal(JSON.parse(encoded.body).message, 'No such relay route.');
    }
    assert.equal(upstreamCalls.length, before);
  });
});

describe('user injection', () => {
  test('the session user replaces the user in JSON bodies and queries', async () => {
    const token = await session('alice');
    const { runId, formToken } = await startPausedViaRelay(token, 'attacker');
    const started = lastCall((c) => c.url.pathname === '/v1/workflows/run');
    assert.equal(JSON.parse(started.body!).user, 'alice');
    assert.equal(started.authorization, `Bearer ${KEY}`);

    // A submit without any user gets the session's: the upstream answers the next problem.
    assertError(await call('POST', `/form/human_input/${formToken}`, { token, json: { inputs: {}, action: 'x' } }), 400, 'invalid_form_data', 'Invalid action: x');

    const stream = await openEventsViaRelay(token, runId, '?user=attacker&user=bob&continue_on_pause=false');
    const eventsCall = lastCall((c) => c.url.pathname.endsWith('/events'));
    assert.deepEqual(eventsCall.url.searchParams.getAll('user'), ['alice']);
    assert.equal(eventsCall.url.searchParams.get('continue_on_pause'), 'false');

    const submitted = await call('POST', `/form/human_input/${formToken}`, { token, json: { inputs: { comments: 'ok' }, action: 'approve', user: 'attacker' } });
    assert.equal(submitted.status, 200);
    assert.deepEqual(submitted.body, {});
    assert.equal(JSON.parse(upstreamCalls.at(-1)!.body!).user, 'alice');
    const events = await drain(stream);
    const finished = find(events, 'workflow_finished');
    // The session's user, not the one the browser sent (`id` is its end-user record).
    assert.equal((finished.data.created_by as { user: string }).user, 'alice');

    // Straight to the service: the run belongs to alice, not to the user the browser sent.
    const direct = (user: string) => fetch(`${svc.url}/workflow/${runId}/events?user=${user}`, { headers: { Authorization: `Bearer ${KEY}` } });
    const asAttacker = await direct('attacker');
    assert.equal(asAttacker.status, 404);
    assert.equal(((await asAttacker.json()) as { message: string }).message, 'Workflow run not found');
    const asAlice = await direct('alice');
    assert.equal(asAlice.status, 200);
    assert.deepEqual((await drain(readRunEvents(asAlice.body!))).map((e) => e.event), ['workflow_finished']);
  });

  test('a run-bound session reaches only its run', async () => {
    const free = await session('alice');
    const { runId } = await startPausedViaRelay(free);
    const other = await startPausedViaRelay(free);
    const bound = await session('alice', { runId });
    assertError(await call('GET', `/workflow/${other.runId}/events`, { token: bound }), 403, 'session_run_bound', 'This session is bound to another run.');
    const response = await recordingFetch(`${relayUrl}/workflow/${runId}/events`, { headers: { Authorization: `Bearer ${bound}` } });
    assert.equal(response.status, 200);
    await response.body?.cancel();
  });
});

describe('the slice through the relay', () => {
  test('AppClient with the session token: start, form, submit, follow to workflow_finished', async () => {
    const grant = await relay.createSession({ user: 'erin' });
    const client = new AppClient({ baseUrl: origin + grant.relay_url, credential: () => grant.token, fetch: recordingFetch });

    const site = await client.getSite();
    assert.equal(site.title, 'Release notes review');

    const first = await drain(client.streamWorkflow({ inputs: { version: '9.9.9' }, user: 'ignored' }));
    assert.equal(first.at(-1)?.event, 'workflow_paused');
    const required = find(first, 'human_input_required');
    const runId = required.workflow_run_id!;
    const formToken = required.data.form_token!;
    assert.match(formToken, /^[A-Za-z0-9]{22}$/);
    assert.match(required.data.form_content, /> Version 9\.9\.9 brings/);

    const form = await client.getForm(formToken);
    assert.equal(form.form_content, required.data.form_content);
    assert.deepEqual(form.user_actions.map((a) => a.id), ['approve', 'send_back']);

    await assert.rejects(client.submitForm(formToken, { inputs: {}, action: 'approve', user: 'erin' }), (error: unknown) => {
      assert.ok(error instanceof ServiceError);
      assert.deepEqual(error.toJSON(), { code: 'invalid_form_data', message: 'Missing required inputs: comments', status: 400 });
      return true;
    });

    const { url, init } = await client.prepareWorkflowEvents(runId, { user: 'ignored' });
    const response = await recordingFetch(url, init);
    assert.equal(response.status, 200);
    assert.deepEqual(await client.submitForm(formToken, { inputs: { comments: 'Via the relay.' }, action: 'approve', user: 'ignored' }), {});
    const resumed = await drain(readRunEvents(response.body!));

    assert.equal(find(resumed, 'workflow_started').data.reason, 'resumption');
    const filled = find(resumed, 'human_input_form_filled');
    assert.equal(filled.data.rendered_content, required.data.form_content.replace('{{#$output.comments#}}', 'Via the relay.'));
    assert.equal(filled.data.action_id, 'approve');
    const finished = find(resumed, 'workflow_finished');
    assert.equal(resumed.at(-1), finished);
    assert.equal(finished.data.status, 'succeeded');
    assert.equal(finished.data.outputs?.result, 'published');
    assert.equal((finished.data.created_by as { user: string }).user, 'erin');

    // The same answers as the service itself: one-shot form, one-frame events for a finished run.
    await assert.rejects(client.getForm(formToken), (error: unknown) => error instanceof ServiceError && error.status === 412 && error.code === 'human_input_form_submitted');
    const late = await drain(client.workflowEvents(runId, { user: 'ignored' }));
    assert.deepEqual(late.map((e) => e.event), ['workflow_finished']);
  });

  test('a session bound to the run answers it the way <human-input-form run-id> does, and reaches nothing else', async () => {
    const starter = await relay.createSession({ user: 'gina' });
    const { runId, formToken } = await startPausedViaRelay(starter.token);
    const grant = await relay.createSession({ user: 'gina', runId });
    const client = new AppClient({ baseUrl: origin + grant.relay_url, credential: () => grant.token, fetch: recordingFetch });

    // What the element reads: the site, the parameters, the run's events, the form; and an upload.
    assert.equal((await client.getSite()).title, 'Release notes review');
    assert.ok(await client.getParameters());
    const { url, init } = await client.prepareWorkflowEvents(runId, { user: 'ignored' });
    const events = await recordingFetch(url, init);
    assert.equal(events.status, 200);
    const form = await client.getForm(formToken);
    assert.deepEqual(form.user_actions.map((a) => a.id), ['approve', 'send_back']);
    const uploaded = await client.uploadFile(new Blob(['notes'], { type: 'text/plain' }), 'notes.txt', 'mallory');
    assert.equal(uploaded.name, 'notes.txt');
    assert.deepEqual(await client.submitForm(formToken, { inputs: { comments: 'Bound and answered.' }, action: 'approve', user: 'ignored' }), {});
    const resumed = await drain(readRunEvents(events.body!));
    assert.equal(find(resumed, 'human_input_form_filled').data.action_id, 'approve');
    assert.equal(find(resumed, 'workflow_finished').data.status, 'succeeded');

    // Everything else is refused before the service is asked.
    const before = upstreamCalls.length;
    const refusals = [
      client.streamWorkflow({ inputs: {}, user: 'gina' }).next(),
      client.stopWorkflow('any-task', 'gina'),
      client.listConversations(),
      client.listMessages({ conversation_id: 'c1' }),
    ];
    for (const refusal of refusals) {
      await assert.rejects(refusal, (error: unknown) => error instanceof ServiceError && error.status === 403 && error.code === 'session_run_bound');
    }
    assert.equal(upstreamCalls.length, before);
  });

  test('SSE events arrive incrementally, not when the stream ends', async () => {
    const token = await session('frank');
    const response = await recordingFetch(`${relayUrl}/workflows/run`, {
      method: 'POST',
      headers: { Authorization: `Bearer ${token}`, 'Content-Type': 'application/json' },
      body: JSON.stringify({ inputs: {}, response_mode: 'streaming', user: 'frank' }),
    });
    assert.equal(response.status, 200);
    assert.match(response.headers.get('content-type') ?? '', /^text\/event-stream/);
    const events = readRunEvents(response.body!);
    const first = await events.next();
    assert.equal(first.done, false);
    const started = first.value as RunEventOf<'workflow_started'>;
    assert.equal(started.event, 'workflow_started');
    // The draft takes a while to stream; the run must still be going when its first event arrives.
    const run = svc.service.engine.runs.get(started.workflow_run_id!);
    assert.ok(run);
    assert.equal(run.status, 'running');
    assert.equal(run.pausedOn, null);
    const rest = await drain({ [Symbol.asyncIterator]: () => events });
    assert.ok(rest.filter((e) => e.event === 'text_chunk').length > 1);
    assert.equal(rest.at(-1)?.event, 'workflow_paused');
    assert.equal(run.status, 'paused');
  });
});

describe('failures', () => {
  test('an unreachable upstream answers 502 upstream_unavailable', async () => {
    const probe = createServer();
    const deadUrl = await listen(probe);
    await closeServer(probe);
    const logged: string[] = [];
    const dead = createRelay(relayOptions({ upstreamUrl: `${deadUrl}/v1`, log: (entry) => void logged.push(entry.message) }));
    const server = createServer(toNodeListener(dead));
    const deadOrigin = await listen(server);
    try {
      const token = await session('alice');
      for (const [method, path, json] of [
        ['GET', '/site', undefined],
        ['POST', '/workflows/run', { inputs: {}, response_mode: 'streaming', user: 'x' }],
      ] as const) {
        const response = await recordingFetch(`${deadOrigin}${BASE_PATH}${path}`, {
          method,
          headers: { Authorization: `Bearer ${token}`, ...(json ? { 'Content-Type': 'application/json' } : {}) },
          body: json ? JSON.stringify(json) : undefined,
        });
        assert.equal(response.status, 502);
        const body = (await response.json()) as Record<string, unknown>;
        assert.deepEqual(body, { code: 'upstream_unavailable', message: 'The upstream service could not be reached.', status: 502 });
      }
      assert.deepEqual(logged, [
        'The upstream service could not be reached for GET /site (ECONNREFUSED).',
        'The upstream service could not be reached for POST /workflows/run (ECONNREFUSED).',
      ]);
    } finally {
      await closeServer(server);
    }
  });

  test('a browser leaving a relayed stream releases the upstream subscription, quietly', async () => {
    const token = await session('gina');
    const { runId } = await startPausedViaRelay(token);
    const topic = svc.service.engine.runs.get(runId)!.topic;
    const logged: unknown[] = [];
    const consoleError = console.error;
    console.error = (...args: unknown[]) => void logged.push(args);
    try {
      const response = await recordingFetch(`${relayUrl}/workflow/${runId}/events`, { headers: { Authorization: `Bearer ${token}` } });
      assert.equal(response.status, 200);
      assert.equal(topic.size, 1);
      await response.body!.cancel();
      const deadline = Date.now() + 3000;
      while (topic.size > 0 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
      assert.equal(topic.size, 0, 'the upstream stream is still subscribed');
      await new Promise((r) => setTimeout(r, 50));
    } finally {
      console.error = consoleError;
    }
    assert.deepEqual(logged, []);
  });

  test('a malformed JSON body is refused by the relay itself', async () => {
    const token = await session('alice');
    const before = upstreamCalls.length;
    assertError(await call('POST', '/workflows/run', { token, body: '{nope' }), 400, 'invalid_param', 'Invalid JSON payload received or JSON payload is empty.');
    assertError(await call('POST', '/workflows/run', { token, body: '[1]' }), 400, 'invalid_param');
    assert.equal(upstreamCalls.length, before);
  });
});

test('the API key never appears in a relay answer, and always goes upstream', () => {
  assert.ok(seen.length > 50, `only ${seen.length} answers recorded`);
  const leaks = seen.filter((s) => s.text.includes(KEY));
  assert.deepEqual(leaks, []);
  assert.ok(upstreamCalls.length > 10);
  for (const c of upstreamCalls) assert.equal(c.authorization, `Bearer ${KEY}`);
});
