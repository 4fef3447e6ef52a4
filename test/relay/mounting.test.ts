/**
 * Mounting the relay and its session endpoint the ways the README shows: Node's http server,
 * a Hono app (`app.all`) and an Express app (`app.use`, with a JSON body parser in front),
 * each driven over real HTTP from the session request to relayed calls, plus the session
 * endpoint's contract (shared with the elements through `SessionGrant`) and its refresh path.
 */
import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import { after, before, describe, test } from 'node:test';
import { getRequestListener } from '@hono/node-server';
import express from 'express';
import { Hono } from 'hono';
import { decodeJwt } from 'jose';
import { isSessionGrant, type SessionGrant, type WorkflowPausedBlockingResponse } from '../../src/protocol/index.js';
import { createRelay, type Relay } from '../../src/relay/index.js';
import { toNodeListener, toNodeSessionListener, type SignedInRequest } from '../../src/relay/node.js';
import { loadFixture, startService, type RunningService } from '../../src/service/index.js';
import { bearer, closeServer, KEY, listen, multipartBody, parseFormData, SECRET, startUpstream, type ControlledUpstream } from './helpers.js';

let upstream: ControlledUpstream;
let service: RunningService;

before(async () => {
  upstream = await startUpstream();
  service = await startService({ fixture: await loadFixture(), port: 0 });
});

after(async () => {
  await upstream?.close();
  await service?.close();
});

/** The host's own login, reduced to a cookie naming the user. */
function userFromCookie(cookie: string | null | undefined): string | null {
  const match = /(?:^|;\s*)login=([\w-]+)/.exec(cookie ?? '');
  return match ? match[1]! : null;
}

async function askSession(origin: string, path: string, init: { cookie?: string; body?: string; method?: string } = {}): Promise<Response> {
  return fetch(origin + path, {
    method: init.method ?? 'POST',
    headers: { ...(init.cookie ? { Cookie: init.cookie } : {}), 'Content-Type': 'application/json' },
    body: init.method === 'GET' ? undefined : (init.body ?? '{}'),
  });
}

async function grantOf(response: Response): Promise<SessionGrant> {
  assert.equal(response.status, 200, await response.clone().text());
  assert.equal(response.headers.get('cache-control'), 'no-store');
  const body: unknown = await response.json();
  assert.ok(isSessionGrant(body), JSON.stringify(body));
  return body;
}

describe("Node's http server", () => {
  let server: Server;
  let origin: string;
  let relay: Relay;

  before(async () => {
    relay = createRelay({ upstreamUrl: upstream.url, apiKey: KEY, secret: SECRET, basePath: '/api/relay', sessionTtlSeconds: 300 });
    const relayListener = toNodeListener(relay);
    const sessionListener = toNodeSessionListener(relay, (req) => userFromCookie(req.headers.cookie));
    server = createServer((req, res) => {
      if (req.url === '/api/session') void sessionListener(req, res);
      else if (req.url?.startsWith('/api/relay/')) void relayListener(req, res);
      else res.writeHead(404).end();
    });
    origin = await listen(server);
  });
  after(() => closeServer(server));

  test('the session endpoint answers the shared contract for the signed-in user only', async () => {
    const grant = await grantOf(await askSession(origin, '/api/session', { cookie: 'login=alice', body: '{"user":"mallory"}' }));
    assert.equal(grant.relay_url, '/api/relay');
    assert.equal(decodeJwt(grant.token).sub, 'alice');
    assert.ok(Math.abs(grant.expires_at - (Math.floor(Date.now() / 1000) + 300)) <= 2);
    assert.equal(decodeJwt(grant.token).run, undefined);

    const bound = await grantOf(await askSession(origin, '/api/session', { cookie: 'login=alice', body: '{"run_id":"run-42"}' }));
    assert.equal(decodeJwt(bound.token).run, 'run-42');

    const refused = await askSession(origin, '/api/session');
    assert.equal(refused.status, 401);
    assert.deepEqual(await refused.json(), { code: 'unauthorized', message: 'Sign in to get a session.', status: 401 });
    const get = await askSession(origin, '/api/session', { cookie: 'login=alice', method: 'GET' });
    assert.equal(get.status, 405);
    assert.equal(get.headers.get('allow'), 'POST');
    await get.text();
    for (const body of ['not json', '[1]', '{"run_id":"../x"}', '{"run_id":42}']) {
      const bad = await askSession(origin, '/api/session', { cookie: 'login=alice', body });
      assert.equal(bad.status, 400, body);
      assert.equal(((await bad.json()) as { code: string }).code, 'invalid_param');
    }
    const huge = await askSession(origin, '/api/session', { cookie: 'login=alice', body: JSON.stringify({ pad: 'x'.repeat(5000) }) });
    assert.equal(huge.status, 413);
    await huge.text();
  });

  test('refresh: asking again before expiry gives a fresh token; signing out stops the renewals', async () => {
    const first = await grantOf(await askSession(origin, '/api/session', { cookie: 'login=bob' }));
    const second = await grantOf(await askSession(origin, '/api/session', { cookie: 'login=bob' }));
    assert.notEqual(second.token, first.token);
    assert.ok(second.expires_at >= first.expires_at);
    assert.notEqual(decodeJwt(second.token).jti, decodeJwt(first.token).jti);
    for (const grant of [first, second]) {
      const site = await fetch(`${origin}${grant.relay_url}/site`, { headers: bearer(grant.token) });
      assert.equal(site.status, 200);
      await site.text();
    }
    const signedOut = await askSession(origin, '/api/session');
    assert.equal(signedOut.status, 401);
    await signedOut.text();
  });

  test('the host decides the run binding and lifetime when it wants to', async () => {
    const custom = createRelay({ upstreamUrl: upstream.url, apiKey: KEY, secret: SECRET });
    const handler = custom.sessionHandler((request, asked) => {
      assert.equal(asked.runId, 'run-1');
      return { user: userFromCookie(request.headers.get('cookie')) ?? 'nobody', runId: 'run-2', ttlSeconds: 60 };
    });
    const response = await handler(new Request('http://host.test/api/session', { method: 'POST', headers: { Cookie: 'login=carol' }, body: '{"run_id":"run-1"}' }));
    const grant = await grantOf(response);
    const claims = decodeJwt(grant.token);
    assert.equal(claims.sub, 'carol');
    assert.equal(claims.run, 'run-2');
    assert.ok(Math.abs(grant.expires_at - (Math.floor(Date.now() / 1000) + 60)) <= 2);
  });
});

describe('a Hono app', () => {
  let server: Server;
  let origin: string;

  before(async () => {
    // The README's Hono example, in front of the embedded service.
    const relay = createRelay({ upstreamUrl: service.url, apiKey: 'app-demo-workflow', secret: SECRET, basePath: '/api/relay' });
    const app = new Hono();
    app.post('/api/session', (c) => relay.sessionHandler((request) => userFromCookie(request.headers.get('cookie')))(c.req.raw));
    app.all('/api/relay/*', (c) => relay.fetch(c.req.raw));
    app.get('/', (c) => c.text('host page'));
    server = createServer(getRequestListener(app.fetch));
    origin = await listen(server);
  });
  after(() => closeServer(server));

  test('session, then a run and its form through the relay, with the session user', async () => {
    const grant = await grantOf(await askSession(origin, '/api/session', { cookie: 'login=dana' }));
    const relayUrl = origin + grant.relay_url;
    const site = await fetch(`${relayUrl}/site`, { headers: bearer(grant.token) });
    assert.equal(((await site.json()) as { title: string }).title, 'Release notes review');

    const run = await fetch(`${relayUrl}/workflows/run`, {
      method: 'POST',
      headers: { ...bearer(grant.token), 'Content-Type': 'application/json' },
      body: JSON.stringify({ inputs: {}, response_mode: 'blocking', user: 'mallory' }),
    });
    assert.equal(run.status, 200);
    const paused = (await run.json()) as WorkflowPausedBlockingResponse;
    const formToken = paused.data.reasons[0]!.form_token!;
    const form = await fetch(`${relayUrl}/form/human_input/${formToken}`, { headers: bearer(grant.token) });
    assert.equal(form.status, 200);
    assert.deepEqual(((await form.json()) as { user_actions: { id: string }[] }).user_actions.map((a) => a.id), ['approve', 'send_back']);

    // The run belongs to the session's user, not to the `user` the browser sent.
    const asDana = await fetch(`${service.url}/workflow/${paused.workflow_run_id}/events?user=dana`, { headers: bearer('app-demo-workflow') });
    assert.equal(asDana.status, 200);
    await asDana.body?.cancel();
    const asMallory = await fetch(`${service.url}/workflow/${paused.workflow_run_id}/events?user=mallory`, { headers: bearer('app-demo-workflow') });
    assert.equal(asMallory.status, 404);
    await asMallory.text();

    const notAllowed = await fetch(`${relayUrl}/workflows/run/${paused.workflow_run_id}`, { headers: bearer(grant.token) });
    assert.equal(notAllowed.status, 404);
    await notAllowed.text();
    assert.equal(await (await fetch(`${origin}/`)).text(), 'host page');
  });
});

describe('an Express app', () => {
  let server: Server;
  let origin: string;

  before(async () => {
    const relay = createRelay({ upstreamUrl: upstream.url, apiKey: KEY, secret: SECRET, basePath: '/api/relay' });
    const app = express();
    // A host whose app parses JSON everywhere, before the relay.
    app.use(express.json());
    // A login middleware, as Passport sets it: `req.user` with an `id`.
    app.use((req, _res, next) => {
      const id = userFromCookie(req.headers.cookie);
      (req as SignedInRequest).user = id ? { id } : undefined;
      next();
    });
    // As the README prints it: `req` is typed as a signed-in request without a cast.
    app.post('/api/session', toNodeSessionListener(relay, (req) => req.user?.id));
    app.use('/api/relay', toNodeListener(relay));
    app.post('/api/form-parsed', express.urlencoded({ extended: false }), (req, res, next) => {
      req.url = '/api/relay/chat-messages';
      req.originalUrl = '/api/relay/chat-messages';
      void toNodeListener(relay)(req, res).catch(next);
    });
    server = createServer(app);
    origin = await listen(server);
  });
  after(() => closeServer(server));

  test('app.use(path) keeps the full path; JSON parsed by express.json() is relayed with the session user', async () => {
    const grant = await grantOf(await askSession(origin, '/api/session', { cookie: 'login=erin', body: '{"run_id":"run-9"}' }));
    assert.equal(decodeJwt(grant.token).sub, 'erin');
    assert.equal(decodeJwt(grant.token).run, 'run-9');
    const free = await grantOf(await askSession(origin, '/api/session', { cookie: 'login=erin' }));

    const answer = await fetch(`${origin}/api/relay/chat-messages?user=mallory`, {
      method: 'POST',
      headers: { ...bearer(free.token), 'Content-Type': 'application/json' },
      body: JSON.stringify({ query: 'hello', user: 'mallory', inputs: {} }),
    });
    assert.equal(answer.status, 200);
    const echoed = (await answer.json()) as { path: string; json: unknown; query: unknown };
    assert.equal(echoed.path, '/v1/chat-messages');
    assert.deepEqual(echoed.json, { query: 'hello', user: 'erin', inputs: {} });
    assert.deepEqual(echoed.query, []);

    // Multipart is untouched by express.json(): the upload streams through with the user replaced.
    const boundary = 'expressboundary';
    const upload = await fetch(`${origin}/api/relay/files/upload`, {
      method: 'POST',
      headers: { ...bearer(free.token), 'Content-Type': `multipart/form-data; boundary=${boundary}` },
      body: multipartBody(boundary, [
        { headers: 'Content-Disposition: form-data; name="user"', body: 'mallory' },
        { headers: 'Content-Disposition: form-data; name="file"; filename="a.txt"\r\nContent-Type: text/plain', body: 'contents' },
      ]),
    });
    assert.equal(upload.status, 200);
    await upload.text();
    const form = await parseFormData(upstream.last().body, String(upstream.last().headers['content-type']));
    assert.deepEqual(form.getAll('user'), ['erin']);
    assert.equal(await (form.get('file') as File).text(), 'contents');

    const datasets = await fetch(`${origin}/api/relay/datasets`, { headers: bearer(free.token) });
    assert.equal(datasets.status, 404);
    await datasets.text();
  });

  test('a JSON body express.json() parsed but nested too deep to serialize again is 400, and the server keeps serving', async () => {
    const free = await grantOf(await askSession(origin, '/api/session', { cookie: 'login=erin' }));
    // 5,000 levels fit express.json()'s 100 kB limit; JSON.stringify overflows its stack on them.
    const deep = `{"inputs":${'['.repeat(5000)}${']'.repeat(5000)}}`;
    const before = upstream.requests.length;
    const answer = await fetch(`${origin}/api/relay/chat-messages`, { method: 'POST', headers: { ...bearer(free.token), 'Content-Type': 'application/json' }, body: deep });
    assert.equal(answer.status, 400);
    assert.equal(answer.headers.get('x-content-type-options'), 'nosniff');
    assert.deepEqual(await answer.json(), { code: 'invalid_param', message: 'The JSON body nests too deeply.', status: 400 });
    assert.equal(upstream.requests.length, before);
    const site = await fetch(`${origin}/api/relay/site`, { headers: bearer(free.token) });
    assert.equal(site.status, 200);
    await site.text();
  });

  test('a body a parser consumed and the relay cannot restore is refused with a clear message', async () => {
    const free = await grantOf(await askSession(origin, '/api/session', { cookie: 'login=erin' }));
    const answer = await fetch(`${origin}/api/form-parsed`, {
      method: 'POST',
      headers: { ...bearer(free.token), 'Content-Type': 'application/x-www-form-urlencoded' },
      body: 'query=hi&user=mallory',
    });
    assert.equal(answer.status, 500);
    const body = (await answer.json()) as { code: string; message: string };
    assert.equal(body.code, 'internal_server_error');
    assert.match(body.message, /mount the relay before express\.urlencoded\(\)/);
  });
});
