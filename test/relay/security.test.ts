/**
 * The relay's security properties against a controlled upstream that records exactly what it
 * received: session checks, `user` binding in the query, the JSON body and the multipart form of
 * every allowlisted route, the allowlist itself, body limits, CORS, the rate limit, error
 * shapes, and no secret in any answer or log line.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { SignJWT } from 'jose';
import { createRelay, MemoryRateLimitStore, RELAY_ROUTES, type RateLimitStore, type RelayLogEntry } from '../../src/relay/index.js';
import { createServer } from 'node:http';
import { toNodeListener } from '../../src/relay/node.js';
import {
  bearer,
  captureConsole,
  closeServer,
  deadUpstreamUrl,
  echo,
  KEY,
  listen,
  mountRelay,
  multipartBody,
  OTHER_SECRET,
  parseFormData,
  responseText,
  SECRET,
  startUpstream,
  type ControlledUpstream,
  type MountedRelay,
} from './helpers.js';

let upstream: ControlledUpstream;
let mounted: MountedRelay;
const logged: RelayLogEntry[] = [];
/** Every token issued in this file and every answer seen, checked for leaks at the end. */
const issued: string[] = [];
const answers: string[] = [];

before(async () => {
  upstream = await startUpstream();
  mounted = await mountRelay(upstream.url, { log: (entry) => void logged.push(entry), maxUploadBytes: 64 * 1024 });
});

after(async () => {
  await mounted?.close();
  await upstream?.close();
});

async function token(user = 'alice', extra: { runId?: string } = {}): Promise<string> {
  const grant = await mounted.relay.createSession({ user, ...extra });
  issued.push(grant.token);
  return grant.token;
}

interface Answer {
  status: number;
  headers: Headers;
  body: any;
}

async function send(method: string, path: string, init: { token?: string; json?: unknown; body?: RequestInit['body']; headers?: Record<string, string> } = {}): Promise<Answer> {
  const headers: Record<string, string> = { ...(init.token ? bearer(init.token) : {}), ...init.headers };
  let body = init.body;
  if (init.json !== undefined) {
    body = JSON.stringify(init.json);
    headers['Content-Type'] ??= 'application/json';
  }
  const response = await fetch(mounted.url + path, { method, headers, body });
  const text = await responseText(response.clone());
  answers.push(text);
  const raw = await response.text();
  let parsed: unknown = raw;
  try {
    parsed = JSON.parse(raw);
  } catch {
    // not JSON
  }
  return { status: response.status, headers: response.headers, body: parsed };
}

function assertError(answer: Answer, status: number, code: string): void {
  assert.equal(answer.status, status, JSON.stringify(answer.body));
  assert.deepEqual(Object.keys(answer.body).sort(), ['code', 'message', 'status']);
  assert.equal(answer.body.code, code);
  assert.equal(answer.body.status, status);
}

/** Runs `action` and asserts it never reached the upstream. */
async function refusedLocally(action: () => Promise<void>): Promise<void> {
  const before = upstream.requests.length;
  await action();
  assert.equal(upstream.requests.length, before, 'the request reached the upstream');
}

const sampleId = 'a1b2c3d4-5678-90ab-cdef-1234567890ab';
/** Each allowlisted route with concrete ids. */
const concrete = (name: string) => name.replace(/\{[a-z_]+\}/g, sampleId);

describe('sessions', () => {
  const key = (s: string) => new TextEncoder().encode(s);
  const claims = () => new SignJWT({}).setProtectedHeader({ alg: 'HS256' }).setIssuer('hitl-elements-relay').setSubject('alice').setAudience('default').setIssuedAt();

  test('forged, tampered, expired and wrong-audience tokens are 401 with a clear code, on every route', async () => {
    const forged = (await createRelay({ upstreamUrl: upstream.url, apiKey: KEY, secret: OTHER_SECRET }).createSession({ user: 'alice' })).token;
    const expired = await claims().setIssuedAt(1_700_000_000).setExpirationTime(1_700_000_900).sign(key(SECRET));
    const otherApp = (await createRelay({ upstreamUrl: upstream.url, apiKey: KEY, secret: SECRET, app: 'billing' }).createSession({ user: 'alice' })).token;
    const noExpiry = await claims().sign(key(SECRET));
    const hs512 = await new SignJWT({}).setProtectedHeader({ alg: 'HS512' }).setIssuer('hitl-elements-relay').setSubject('alice').setAudience('default').setExpirationTime('5m').sign(key(SECRET));
    issued.push(forged, otherApp);
    await refusedLocally(async () => {
      for (const route of RELAY_ROUTES) {
        const path = concrete(route.name);
        const json = route.method === 'GET' ? undefined : {};
        assertError(await send(route.method, path, { json }), 401, 'unauthorized');
        assertError(await send(route.method, path, { token: forged, json }), 401, 'session_invalid');
        assertError(await send(route.method, path, { token: expired, json }), 401, 'session_expired');
        assertError(await send(route.method, path, { token: otherApp, json }), 401, 'session_wrong_audience');
      }
      assertError(await send('GET', '/site', { token: noExpiry }), 401, 'session_invalid');
      assertError(await send('GET', '/site', { token: hs512 }), 401, 'session_invalid');
      assertError(await send('GET', '/site', { token: 'x'.repeat(5000) }), 401, 'session_invalid');
      // The token only counts in the Authorization header.
      const t = await token();
      assertError(await send('GET', `/site?token=${t}&access_token=${t}`), 401, 'unauthorized');
      assertError(await send('GET', '/site', { headers: { Cookie: `token=${t}` } }), 401, 'unauthorized');
      assertError(await send('GET', '/site', { headers: { Authorization: `Basic ${t}` } }), 401, 'unauthorized');
    });
    const ok = await send('GET', '/site', { token: await token(), headers: { Authorization: `bearer   ${await token()}` } });
    assert.equal(ok.status, 200);
  });

  test('secret rotation: tokens signed with the old secret pass until it is dropped', async () => {
    const oldToken = await token();
    const rotated = await mountRelay(upstream.url, { secret: [OTHER_SECRET, SECRET] });
    const dropped = await mountRelay(upstream.url, { secret: [OTHER_SECRET] });
    try {
      const newToken = (await rotated.relay.createSession({ user: 'alice' })).token;
      issued.push(newToken);
      const site = (m: MountedRelay, t: string) => fetch(`${m.url}/site`, { headers: bearer(t) }).then(async (r) => ({ status: r.status, body: (await r.json()) as { code?: string } }));
      assert.equal((await site(rotated, oldToken)).status, 200);
      assert.equal((await site(rotated, newToken)).status, 200);
      assert.equal((await site(dropped, newToken)).status, 200);
      const refused = await site(dropped, oldToken);
      assert.equal(refused.status, 401);
      assert.equal(refused.body.code, 'session_invalid');
    } finally {
      await rotated.close();
      await dropped.close();
    }
  });

  test('a run-bound session reaches what answering its run needs, and nothing else', async () => {
    const bound = await token('alice', { runId: 'run-1' });
    const answersTheRun = [
      'GET /workflow/{workflow_run_id}/events',
      'GET /form/human_input/{form_token}',
      'POST /form/human_input/{form_token}',
      'POST /files/upload',
      'GET /site',
      'GET /parameters',
    ];
    await refusedLocally(async () => {
      for (const route of RELAY_ROUTES) {
        if (answersTheRun.includes(`${route.method} ${route.name}`)) continue;
        const answer = await send(route.method, concrete(route.name), { token: bound, json: route.method === 'GET' ? undefined : { inputs: {} } });
        assertError(answer, 403, 'session_run_bound');
      }
      // Its own run's id in a stop path changes nothing: stops name tasks, which the relay cannot tie to runs.
      assertError(await send('POST', '/workflows/tasks/run-1/stop', { token: bound, json: {} }), 403, 'session_run_bound');
      assertError(await send('GET', '/workflow/run-2/events', { token: bound }), 403, 'session_run_bound');
    });
    const own = await send('GET', '/workflow/run-1/events', { token: bound });
    assert.equal(own.status, 200);
    assert.equal(own.body.path, '/v1/workflow/run-1/events');
    assert.deepEqual(own.body.query, [['user', 'alice']]);
    for (const [method, path] of [['GET', '/site'], ['GET', '/parameters'], ['GET', `/form/human_input/${sampleId}`], ['POST', `/form/human_input/${sampleId}`]] as const) {
      const answer = await send(method, path, { token: bound, json: method === 'POST' ? { action: 'approve', inputs: {} } : undefined });
      assert.equal(answer.status, 200, `${method} ${path}`);
      assert.equal(answer.body.path, `/v1${path}`);
    }
    const form = new FormData();
    form.append('file', new File(['hi'], 'hi.txt', { type: 'text/plain' }));
    const upload = await send('POST', '/files/upload', { token: bound, body: form });
    assert.equal(upload.status, 200);
    assert.deepEqual((await parseFormData(upstream.last().body, String(upstream.last().headers['content-type']))).getAll('user'), ['alice']);
  });
});

describe('user binding', () => {
  test('every allowlisted route carries the session user, and the API key, upstream', async () => {
    const t = await token('alice');
    for (const route of RELAY_ROUTES) {
      if (route.user === 'multipart') continue;
      const path = concrete(route.name);
      const answer = await send(route.method, `${path}?user=mallory&keep=1`, { token: t, json: route.method === 'GET' ? undefined : { user: 'mallory', data: 1 } });
      assert.equal(answer.status, 200, `${route.method} ${route.name}: ${JSON.stringify(answer.body)}`);
      const got = upstream.last();
      assert.equal(got.method, route.method);
      assert.equal(got.url.pathname, `/v1${path}`);
      assert.equal(got.headers.authorization, `Bearer ${KEY}`, route.name);
      const queryUsers = got.url.searchParams.getAll('user');
      assert.equal(got.url.searchParams.get('keep'), '1');
      if (route.user === 'query') {
        assert.deepEqual(queryUsers, ['alice'], route.name);
      } else {
        assert.deepEqual(queryUsers, [], route.name);
      }
      if (route.user === 'json') {
        assert.equal(got.headers['content-type'], 'application/json');
        assert.deepEqual(answer.body.json, { user: 'alice', data: 1 }, route.name);
      } else {
        assert.equal(got.body.length, 0, `${route.name} sent a body`);
      }
    }
  });

  test('query overrides in every spelling are replaced', async () => {
    const t = await token('alice');
    for (const query of ['user=mallory', 'user=mallory&user=eve', '%75ser=mallory', 'user=', 'user', 'user=alice%00mallory', 'x=1&user=mallory&user=mallory2']) {
      const answer = await send('GET', `/conversations?${query}`, { token: t });
      assert.equal(answer.status, 200);
      assert.deepEqual(upstream.last().url.searchParams.getAll('user'), ['alice'], query);
    }
    // Spellings a lenient binder (case-insensitive, trimming, C strings, PHP arrays) reads as
    // `user` are dropped like the multipart rewriter drops them; other keys stay.
    const variants = ['User', 'USER', 'user%00', 'user%00x', 'user[]', 'user%5B%5D', 'user[0]', 'user%20', 'user+', '+user', 'user%09', '%2575ser', 'u%C5%BFer'];
    const query = `${variants.map((v) => `${v}=mallory`).join('&')}&users=kept&username=kept&conversation_id=c1`;
    assert.equal((await send('GET', `/conversations?${query}`, { token: t })).status, 200);
    assert.deepEqual([...upstream.last().url.searchParams], [['users', 'kept'], ['username', 'kept'], ['conversation_id', 'c1'], ['user', 'alice']]);
    // Routes that take no user get none at all, whatever the browser adds.
    await send('GET', `/site?user=mallory&${variants.map((v) => `${v}=mallory`).join('&')}`, { token: t });
    assert.equal(upstream.last().url.search, '');
  });

  test('JSON overrides are replaced: duplicate keys, missing, null, non-string, and DELETE with or without a body', async () => {
    const t = await token('alice');
    const sent: [string, string, string | undefined][] = [
      ['POST', '/workflows/run', '{"user":"mallory","user":"eve","inputs":{"user":"kept"}}'],
      ['POST', '/chat-messages', '{"query":"hi"}'],
      ['POST', `/messages/${sampleId}/feedbacks`, '{"rating":"like","user":null}'],
      ['PUT', `/conversations/${sampleId}/variables/${sampleId}`, '{"value":1,"user":{"id":"mallory"}}'],
      ['POST', '/text-to-audio', '{"text":"hi","user":["mallory"]}'],
      ['DELETE', `/conversations/${sampleId}`, '{"user":"mallory"}'],
      ['DELETE', `/conversations/${sampleId}`, undefined],
      ['POST', `/conversations/${sampleId}/name`, ''],
      ['POST', '/workflows/tasks/t-1/stop', '{"__proto__":{"user":"mallory"},"user":"mallory"}'],
    ];
    for (const [method, path, body] of sent) {
      const answer = await send(method, path, { token: t, body, headers: { 'Content-Type': 'text/plain' } });
      assert.equal(answer.status, 200, `${method} ${path}`);
      const json = JSON.parse(upstream.last().body.toString()) as Record<string, unknown>;
      assert.equal(json.user, 'alice', `${method} ${path} ${body}`);
      assert.equal(upstream.last().headers['content-type'], 'application/json');
    }
    assert.deepEqual(JSON.parse(upstream.requests.at(-sent.length)!.body.toString()).inputs, { user: 'kept' });
  });

  test('multipart overrides are replaced while the file streams through', async () => {
    const t = await token('alice');
    const boundary = 'formboundaryABC123';
    const body = multipartBody(boundary, [
      { headers: 'Content-Disposition: form-data; name="user"', body: 'mallory' },
      { headers: 'Content-Disposition: form-data; name="file"; filename="photo.png"\r\nContent-Type: image/png', body: new Uint8Array([137, 80, 78, 71, 13, 10, 26, 10]) },
      { headers: 'Content-Disposition: form-data; name=user', body: 'eve' },
      { headers: 'Content-Disposition: form-data; name="User"', body: 'trudy' },
    ]);
    const answer = await send('POST', '/files/upload?user=mallory', { token: t, body, headers: { 'Content-Type': `multipart/form-data; boundary=${boundary}` } });
    assert.equal(answer.status, 200);
    const got = upstream.last();
    assert.deepEqual(got.url.searchParams.getAll('user'), []);
    const form = await parseFormData(got.body, String(got.headers['content-type']));
    assert.deepEqual(form.getAll('user'), ['alice']);
    assert.deepEqual([...form.keys()], ['user', 'file']);
    const file = form.get('file') as File;
    assert.equal(file.name, 'photo.png');
    assert.equal(file.type, 'image/png');
    assert.deepEqual(new Uint8Array(await file.arrayBuffer()), new Uint8Array([137, 80, 78, 71, 13, 10, 26, 10]));
    // A browser's own FormData goes through the same way.
    const browserForm = new FormData();
    browserForm.append('user', 'mallory');
    browserForm.append('file', new File(['hello'], 'hello.txt', { type: 'text/plain' }));
    assert.equal((await send('POST', '/files/upload', { token: t, body: browserForm })).status, 200);
    const second = await parseFormData(upstream.last().body, String(upstream.last().headers['content-type']));
    assert.deepEqual(second.getAll('user'), ['alice']);
    assert.equal(await (second.get('file') as File).text(), 'hello');
  });

  test('uploads that are not well-formed multipart never reach the upstream', async () => {
    const t = await token('alice');
    await refusedLocally(async () => {
      assertError(await send('POST', '/files/upload', { token: t, body: 'user=mallory', headers: { 'Content-Type': 'application/x-www-form-urlencoded' } }), 400, 'invalid_param');
      assertError(await send('POST', '/files/upload', { token: t, json: { user: 'mallory' } }), 400, 'invalid_param');
      assertError(await send('POST', '/files/upload', { token: t, body: 'x', headers: { 'Content-Type': 'multipart/form-data; boundary=a; boundary=b' } }), 400, 'invalid_param');
    });
    // Malformed parts are refused while streaming: the upstream request is cut off, never completed.
    const boundary = 'b0undary';
    const ambiguous = multipartBody(boundary, [{ headers: 'Content-Disposition: form-data; name="file"\r\nContent-Disposition: form-data; name="user"', body: 'x' }]);
    const before = upstream.requests.length;
    assertError(await send('POST', '/files/upload', { token: t, body: ambiguous, headers: { 'Content-Type': `multipart/form-data; boundary=${boundary}` } }), 400, 'invalid_param');
    for (const received of upstream.requests.slice(before)) assert.equal(await received.ended, 'aborted');
  });
});

describe('the allowlist', () => {
  test('knowledge routes and everything unlisted are 404 without reaching the upstream', async () => {
    const t = await token();
    await refusedLocally(async () => {
      for (const [method, path] of [
        ['GET', '/datasets'],
        ['POST', '/datasets'],
        ['GET', `/datasets/${sampleId}/documents`],
        ['PATCH', `/datasets/${sampleId}`],
        ['DELETE', `/datasets/${sampleId}/documents/${sampleId}/segments/${sampleId}`],
        ['GET', '/datasets/tags'],
        ['GET', `/workflows/run/${sampleId}`],
        ['HEAD', '/site'],
        ['PATCH', '/site'],
        ['OPTIONS', '/site'],
        ['GET', '/site/'],
        ['GET', '//site'],
        ['GET', '/SITE'],
        ['GET', '/site;.json'],
        ['GET', '/site%00'],
        ['GET', '/conversations/'],
        ['POST', '/files/upload/'],
        ['GET', `/conversations/${sampleId}/variables/${sampleId}`],
        ['GET', `/form/human_input/${'a'.repeat(129)}`],
        ['GET', '/form/human_input/a.b'],
        ['GET', '/form/human_input/a%2Fb'],
        ['GET', '/workflow/%2e%2e/events'],
      ] as const) {
        const answer = await send(method, path, { token: t, json: ['GET', 'HEAD', 'OPTIONS'].includes(method) ? undefined : {} });
        assert.equal(answer.status, 404, `${method} ${path}`);
        if (method !== 'HEAD') assertError(answer, 404, 'not_found');
      }
    });
  });

  test('the allowlist is exactly the browser-safe operations', () => {
    assert.deepEqual(
      RELAY_ROUTES.map((r) => `${r.method} ${r.name}`),
      [
        'POST /workflows/run',
        'POST /workflows/{workflow_id}/run',
        'POST /chat-messages',
        'POST /workflows/tasks/{task_id}/stop',
        'POST /chat-messages/{task_id}/stop',
        'GET /workflow/{workflow_run_id}/events',
        'GET /form/human_input/{form_token}',
        'POST /form/human_input/{form_token}',
        'POST /files/upload',
        'GET /conversations',
        'POST /conversations/{conversation_id}/name',
        'DELETE /conversations/{conversation_id}',
        'GET /conversations/{conversation_id}/variables',
        'PUT /conversations/{conversation_id}/variables/{variable_id}',
        'GET /messages',
        'POST /messages/{message_id}/feedbacks',
        'POST /text-to-audio',
        'GET /site',
        'GET /info',
        'GET /parameters',
        'GET /messages/{message_id}/suggested',
        'POST /audio-to-text',
      ],
    );
    assert.ok(RELAY_ROUTES.every((r) => !r.name.startsWith('/datasets') && r.name !== '/app/feedbacks'));
  });

  test('only harmless request headers go upstream', async () => {
    const t = await token();
    await send('GET', '/site', {
      token: t,
      headers: { Cookie: 'sid=secret', 'X-Forwarded-For': '6.6.6.6', 'Accept-Language': 'de', 'X-Api-Key': 'x', 'Last-Event-ID': '7' },
    });
    const got = upstream.last().headers;
    assert.equal(got.cookie, undefined);
    assert.equal(got['x-forwarded-for'], undefined);
    assert.equal(got['x-api-key'], undefined);
    assert.equal(got['accept-language'], 'de');
    assert.equal(got['last-event-id'], '7');
    assert.equal(got.authorization, `Bearer ${KEY}`);
  });
});

describe('limits', () => {
  test('oversize JSON and uploads are 413 before the upstream is asked', async () => {
    const t = await token();
    const small = await mountRelay(upstream.url, { maxJsonBodyBytes: 100, maxUploadBytes: 1000 });
    try {
      const before = upstream.requests.length;
      const big = await fetch(`${small.url}/workflows/run`, { method: 'POST', headers: { ...bearer(t), 'Content-Type': 'application/json' }, body: JSON.stringify({ inputs: { text: 'x'.repeat(200) } }) });
      assert.equal(big.status, 413);
      assert.equal(((await big.json()) as { code: string }).code, 'payload_too_large');
      const form = new FormData();
      form.append('file', new File(['x'.repeat(2000)], 'big.txt'));
      const upload = await fetch(`${small.url}/files/upload`, { method: 'POST', headers: bearer(t), body: form });
      assert.equal(upload.status, 413);
      assert.deepEqual(await upload.json(), { code: 'payload_too_large', message: 'The upload exceeds the 1000 byte limit.', status: 413 });
      assert.equal(upstream.requests.length, before);
    } finally {
      await small.close();
    }
  });
});

describe('CORS', () => {
  let cross: MountedRelay;
  before(async () => {
    cross = await mountRelay(upstream.url, { cors: { origins: ['https://shop.example.com', 'https://Admin.Example.com:443/'] } });
  });
  after(() => cross.close());

  const preflight = (origin: string, method = 'POST') =>
    fetch(`${cross.url}/workflows/run`, { method: 'OPTIONS', headers: { Origin: origin, 'Access-Control-Request-Method': method, 'Access-Control-Request-Headers': 'authorization, content-type' } });

  test('a preflight from an allowed origin is answered; from others it is refused without CORS headers', async () => {
    const ok = await preflight('https://shop.example.com');
    assert.equal(ok.status, 204);
    assert.equal(ok.headers.get('access-control-allow-origin'), 'https://shop.example.com');
    assert.match(ok.headers.get('access-control-allow-methods') ?? '', /POST/);
    assert.match(ok.headers.get('access-control-allow-headers') ?? '', /Authorization/);
    assert.match(ok.headers.get('vary') ?? '', /Origin/);
    assert.equal(ok.headers.get('access-control-allow-credentials'), null);
    assert.equal((await preflight('https://admin.example.com')).headers.get('access-control-allow-origin'), 'https://admin.example.com');

    for (const origin of ['https://evil.example.com', 'https://shop.example.com.evil.net', 'http://shop.example.com', 'null']) {
      const denied = await preflight(origin);
      assert.equal(denied.status, 403, origin);
      assert.equal(denied.headers.get('access-control-allow-origin'), null, origin);
      assert.equal(((await denied.json()) as { code: string }).code, 'cors_origin_denied');
    }
  });

  test('answers to an allowed origin carry its CORS headers, errors included; other origins are refused', async () => {
    const t = await token();
    const before = upstream.requests.length;
    const ok = await fetch(`${cross.url}/site`, { headers: { ...bearer(t), Origin: 'https://shop.example.com' } });
    assert.equal(ok.status, 200);
    assert.equal(ok.headers.get('access-control-allow-origin'), 'https://shop.example.com');
    assert.match(ok.headers.get('vary') ?? '', /Origin/);
    await ok.text();
    const unauthorized = await fetch(`${cross.url}/site`, { headers: { Origin: 'https://shop.example.com' } });
    assert.equal(unauthorized.status, 401);
    assert.equal(unauthorized.headers.get('access-control-allow-origin'), 'https://shop.example.com');
    assert.match(unauthorized.headers.get('access-control-expose-headers') ?? '', /WWW-Authenticate/);
    await unauthorized.text();
    const denied = await fetch(`${cross.url}/site`, { headers: { ...bearer(t), Origin: 'https://evil.example.com' } });
    assert.equal(denied.status, 403);
    assert.equal(denied.headers.get('access-control-allow-origin'), null);
    await denied.text();
    assert.equal(upstream.requests.length, before + 1);
    // The relay's own origin and origin-less (server-side) calls are not cross-origin.
    const same = await fetch(`${cross.url}/site`, { headers: { ...bearer(t), Origin: cross.origin } });
    assert.equal(same.status, 200);
    await same.text();
    assert.equal((await fetch(`${cross.url}/site`, { headers: bearer(t) }).then((r) => r.text().then(() => r.status))), 200);
  });

  test('without CORS configured, no CORS headers are ever sent; credentials only when asked, never with *', async () => {
    const t = await token();
    const plain = await fetch(`${mounted.url}/site`, { headers: { ...bearer(t), Origin: 'https://shop.example.com' } });
    assert.equal(plain.headers.get('access-control-allow-origin'), null);
    await plain.text();
    const withCredentials = await mountRelay(upstream.url, { cors: { origins: (o) => o.endsWith('.example.com'), credentials: true } });
    try {
      const answer = await fetch(`${withCredentials.url}/site`, { headers: { ...bearer(t), Origin: 'https://a.example.com' } });
      assert.equal(answer.headers.get('access-control-allow-origin'), 'https://a.example.com');
      assert.equal(answer.headers.get('access-control-allow-credentials'), 'true');
      await answer.text();
    } finally {
      await withCredentials.close();
    }
    assert.throws(() => createRelay({ upstreamUrl: upstream.url, apiKey: KEY, secret: SECRET, cors: { origins: '*', credentials: true } }), /credentials/);
  });
});

describe('rate limit', () => {
  test("the budget is the user's: a fresh session brings none; past it, 429 with Retry-After and nothing upstream", async () => {
    const limited = await mountRelay(upstream.url, { rateLimit: { requests: 3, windowSeconds: 60 } });
    const otherApp = await mountRelay(upstream.url, { app: 'billing', rateLimit: { requests: 3, windowSeconds: 60 } });
    try {
      const a = (await limited.relay.createSession({ user: 'alice' })).token;
      const site = async (m: MountedRelay, t: string) => {
        const r = await fetch(`${m.url}/site`, { headers: bearer(t) });
        return { status: r.status, headers: r.headers, body: (await r.json()) as unknown };
      };
      for (let i = 0; i < 3; i++) assert.equal((await site(limited, a)).status, 200);
      const before = upstream.requests.length;
      for (const t of [a, (await limited.relay.createSession({ user: 'alice' })).token, (await limited.relay.createSession({ user: 'alice', runId: 'r1' })).token]) {
        const refused = await site(limited, t);
        assert.equal(refused.status, 429);
        assert.deepEqual(refused.body, { code: 'rate_limited', message: 'Too many requests for this user; try again shortly.', status: 429 });
        const retry = Number(refused.headers.get('retry-after'));
        assert.ok(retry >= 1 && retry <= 60, `Retry-After ${retry}`);
      }
      assert.equal(upstream.requests.length, before);
      // Other users, and the same user of another app, keep their own budgets.
      assert.equal((await site(limited, (await limited.relay.createSession({ user: 'bob' })).token)).status, 200);
      assert.equal((await site(otherApp, (await otherApp.relay.createSession({ user: 'alice' })).token)).status, 200);
    } finally {
      await limited.close();
      await otherApp.close();
    }
  });

  test('the key option still counts each session apart when a host wants that', async () => {
    const perSession = await mountRelay(upstream.url, { rateLimit: { requests: 1, key: (s) => `${s.user}:${s.sessionId}` } });
    try {
      const statuses: number[] = [];
      const a = (await perSession.relay.createSession({ user: 'alice' })).token;
      const b = (await perSession.relay.createSession({ user: 'alice' })).token;
      for (const t of [a, a, b]) {
        const r = await fetch(`${perSession.url}/site`, { headers: bearer(t) });
        statuses.push(r.status);
        await r.text();
      }
      assert.deepEqual(statuses, [200, 429, 200]);
    } finally {
      await perSession.close();
    }
  });

  test('the session endpoint issues a limited number of sessions per user, through the same store interface', async () => {
    const keys: string[] = [];
    const memory = new MemoryRateLimitStore();
    const store: RateLimitStore = {
      increment(key, windowMs) {
        keys.push(key);
        return memory.increment(key, windowMs);
      },
    };
    const limited = await mountRelay(upstream.url, { sessionRateLimit: { requests: 2, windowSeconds: 60, store } });
    const endpoint = createServer(toNodeListener(limited.relay.sessionHandler((request) => request.headers.get('x-login'))));
    const endpointUrl = await listen(endpoint);
    const ask = async (user: string) => {
      const r = await fetch(endpointUrl, { method: 'POST', headers: { 'X-Login': user }, body: '{}' });
      const text = await responseText(r.clone());
      answers.push(text);
      return { status: r.status, headers: r.headers, body: (await r.json()) as Record<string, unknown> };
    };
    try {
      assert.equal((await ask('alice')).status, 200);
      assert.equal((await ask('alice')).status, 200);
      const refused = await ask('alice');
      assert.equal(refused.status, 429);
      assert.deepEqual(refused.body, { code: 'rate_limited', message: 'Too many sessions asked for; try again shortly.', status: 429 });
      const retry = Number(refused.headers.get('retry-after'));
      assert.ok(retry >= 1 && retry <= 60, `Retry-After ${retry}`);
      assert.equal(refused.headers.get('cache-control'), 'no-store');
      assert.equal((await ask('bob')).status, 200);
      // sessionResponse, for hosts with their own endpoint, counts against the same budget.
      const direct = await limited.relay.sessionResponse({ user: 'alice' });
      assert.equal(direct.status, 429);
      assert.equal(((await direct.json()) as { code: string }).code, 'rate_limited');
      assert.equal((await limited.relay.sessionResponse({ user: 'carol' })).status, 200);
      assert.deepEqual(keys, ['session:default:alice', 'session:default:alice', 'session:default:alice', 'session:default:bob', 'session:default:alice', 'session:default:carol']);
    } finally {
      await closeServer(endpoint);
      await limited.close();
    }
    // On by default (30 a minute); `false` turns it off.
    const defaults = createRelay({ upstreamUrl: upstream.url, apiKey: KEY, secret: SECRET });
    const unlimited = createRelay({ upstreamUrl: upstream.url, apiKey: KEY, secret: SECRET, sessionRateLimit: false });
    const statuses = async (relay: typeof defaults) => {
      const all: number[] = [];
      for (let i = 0; i < 31; i++) all.push((await relay.sessionResponse({ user: 'dave' })).status);
      return all;
    };
    assert.deepEqual(await statuses(defaults), [...Array<number>(30).fill(200), 429]);
    assert.deepEqual(await statuses(unlimited), Array<number>(31).fill(200));
  });

  test('a user holds a limited number of streams at once; a stream that ends or is left frees its slot', async () => {
    const streams = await mountRelay(upstream.url, { maxStreamsPerUser: 2 });
    const saved = upstream.handler;
    upstream.handler = (req, res, received) => {
      if (!received.url.pathname.endsWith('/events')) return echo(req, res, received);
      res.writeHead(200, { 'Content-Type': 'text/event-stream' });
      res.write('event: ping\n\n');
      // Open until the relay leaves, or until asked to end.
      if (received.url.pathname.includes('short')) setTimeout(() => res.end(), 20);
    };
    const open = async (t: string, run = 'run-1') => {
      const browser = new AbortController();
      const r = await fetch(`${streams.url}/workflow/${run}/events`, { headers: bearer(t), signal: browser.signal });
      return { status: r.status, body: r.body!, leave: () => browser.abort(), json: () => r.json() as Promise<Record<string, unknown>> };
    };
    try {
      const alice = (await streams.relay.createSession({ user: 'alice' })).token;
      const aliceAgain = (await streams.relay.createSession({ user: 'alice' })).token;
      const first = await open(alice);
      const second = await open(aliceAgain);
      assert.deepEqual([first.status, second.status], [200, 200]);
      const before = upstream.requests.length;
      const third = await open(alice);
      assert.equal(third.status, 429);
      assert.deepEqual(await third.json(), { code: 'too_many_streams', message: 'Too many streams open for this user; close one (another tab, say) and try again.', status: 429 });
      // The cap counts streams, not requests: other routes still answer.
      const site = await fetch(`${streams.url}/site`, { headers: bearer(alice) });
      assert.equal(site.status, 200);
      await site.text();
      assert.equal(upstream.requests.length, before + 1);
      // Another user has slots of their own.
      const bob = await open((await streams.relay.createSession({ user: 'bob' })).token);
      assert.equal(bob.status, 200);
      bob.leave();

      // The browser leaving frees a slot once the relay has let go of the upstream.
      const leftUpstream = upstream.requests.at(before - 2)!;
      first.leave();
      assert.equal(await leftUpstream.answerClosed, true);
      const fourth = await open(alice, 'short');
      assert.equal(fourth.status, 200);
      // A stream that ends on its own frees its slot too.
      assert.equal(await new Response(fourth.body).text(), 'event: ping\n\n');
      const fifth = await open(alice);
      assert.equal(fifth.status, 200);
      second.leave();
      fifth.leave();
    } finally {
      upstream.handler = saved;
      await streams.close();
    }
  });

  test('a shared store implements one interface; a failing store lets requests through and is logged', async () => {
    class MapStore implements RateLimitStore {
      readonly keys: string[] = [];
      readonly #counts = new Map<string, number>();
      async increment(key: string, windowMs: number) {
        this.keys.push(key);
        const count = (this.#counts.get(key) ?? 0) + 1;
        this.#counts.set(key, count);
        return { count, resetAt: Date.now() + windowMs };
      }
    }
    const store = new MapStore();
    const perUser = await mountRelay(upstream.url, { rateLimit: { requests: 2, store, key: (s) => `user:${s.user}` } });
    const entries: RelayLogEntry[] = [];
    const broken = await mountRelay(upstream.url, {
      rateLimit: { requests: 1, store: { increment: () => Promise.reject(new Error(`redis down ${KEY}`)) } },
      log: (entry) => void entries.push(entry),
    });
    try {
      // Two sessions of one user share the budget when keyed by user.
      const s1 = (await perUser.relay.createSession({ user: 'bob' })).token;
      const s2 = (await perUser.relay.createSession({ user: 'bob' })).token;
      const statuses: number[] = [];
      for (const t of [s1, s2, s1]) {
        const r = await fetch(`${perUser.url}/site`, { headers: bearer(t) });
        statuses.push(r.status);
        await r.text();
      }
      assert.deepEqual(statuses, [200, 200, 429]);
      assert.deepEqual(store.keys, ['relay:user:bob', 'relay:user:bob', 'relay:user:bob']);

      const t = (await broken.relay.createSession({ user: 'carol' })).token;
      for (let i = 0; i < 2; i++) {
        const r = await fetch(`${broken.url}/site`, { headers: bearer(t) });
        assert.equal(r.status, 200);
        await r.text();
      }
      // Logged once: an outage would otherwise log every request (at most once per 10 s per kind).
      assert.deepEqual(entries.map((e) => e.code), ['rate_limit_store_failed']);
      assert.ok(!JSON.stringify(entries).includes(KEY));
    } finally {
      await perUser.close();
      await broken.close();
    }
  });

  test('the memory store stays bounded', () => {
    const store = new MemoryRateLimitStore({ maxKeys: 100 });
    for (let i = 0; i < 1000; i++) store.increment(`k${i}`, 60_000);
    assert.ok(store.size <= 100, `${store.size} keys`);
    assert.equal(store.increment('k999', 60_000).count, 2);
  });
});

describe('errors', () => {
  test('upstream {code, message, status} errors pass through unchanged', async () => {
    const t = await token();
    const saved = upstream.handler;
    try {
      for (const [status, code, message] of [
        [404, 'not_found', 'Conversation Not Exists.'],
        [400, 'invalid_param', 'Arg user must be provided.'],
        [412, 'human_input_form_submitted', 'This form has already been submitted by another user, form_id=x'],
        [429, 'too_many_requests', 'Too many requests. Please try again later.'],
        [500, 'internal_server_error', 'The server encountered an internal error.'],
      ] as const) {
        upstream.handler = (_req, res) => {
          res.writeHead(status, { 'Content-Type': 'application/json', 'Retry-After': '3', 'Set-Cookie': 'upstream=1', 'X-Internal': 'yes' });
          res.end(JSON.stringify({ code, message, status }));
        };
        const answer = await send('GET', '/conversations', { token: t });
        assert.equal(answer.status, status);
        assert.deepEqual(answer.body, { code, message, status });
        assert.equal(answer.headers.get('set-cookie'), null);
        assert.equal(answer.headers.get('x-internal'), null);
        assert.equal(answer.headers.get('retry-after'), '3');
      }
    } finally {
      upstream.handler = saved;
    }
  });

  test("an upstream refusing the API key is 502 to the browser (not a session 401), logged without the key", async () => {
    const t = await token();
    const saved = upstream.handler;
    const before = logged.length;
    upstream.handler = (req, res) => {
      res.writeHead(401, { 'Content-Type': 'application/json', 'WWW-Authenticate': 'Bearer realm="api"' });
      res.end(JSON.stringify({ code: 'unauthorized', message: `Access token is invalid: ${req.headers.authorization}`, status: 401 }));
    };
    try {
      const answer = await send('GET', '/site', { token: t });
      assertError(answer, 502, 'upstream_unavailable');
      assert.equal(answer.headers.get('www-authenticate'), null);
      assert.deepEqual(logged.slice(before).map((e) => e.code), ['upstream_auth_failed']);
      assert.match(logged.at(-1)!.message, /GET \/site/);
    } finally {
      upstream.handler = saved;
    }
  });

  test('a non-JSON upstream error page is replaced by an error in the API shape', async () => {
    const t = await token();
    const saved = upstream.handler;
    upstream.handler = (_req, res) => {
      res.writeHead(503, { 'Content-Type': 'text/html' });
      res.end('<html>nginx: upstream at 10.0.0.7 is down</html>');
    };
    try {
      const answer = await send('GET', '/site', { token: t });
      assertError(answer, 503, 'upstream_unavailable');
      assert.ok(!JSON.stringify(answer.body).includes('10.0.0.7'));
    } finally {
      upstream.handler = saved;
    }
  });

  test('upstream answers are scrubbed of the API key, and errors of the upstream address too', async () => {
    const t = await token();
    const saved = upstream.handler;
    const origin = new URL(upstream.url).origin;
    const host = new URL(upstream.url).host;
    const escapedKey = [...KEY].map((c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`).join('');
    const leaky = [
      `Traceback: requests to ${upstream.url}/conversations with headers {'Authorization': 'Bearer ${KEY}'}`,
      `key=${KEY}; socket ${host}; db postgres://dify:pw@10.0.0.5/dify`,
    ].join(' | ');
    try {
      for (const [status, type, body] of [
        // Written the way PHP and some gateways write JSON: every `/` escaped as `\/`.
        [500, 'application/json', JSON.stringify({ code: 'internal_server_error', message: leaky, status: 500 }).replaceAll('/', '\\/')],
        [400, 'application/json; charset=utf-8', `{"code":"invalid_param","message":"bad key ${escapedKey}","status":400}`],
        [403, 'application/problem+json', JSON.stringify({ type: 'about:blank', title: 'Forbidden', detail: `key Bearer ${KEY}`, [KEY]: origin })],
      ] as const) {
        upstream.handler = (_req, res) => {
          res.writeHead(status, { 'Content-Type': type, 'Content-Length': Buffer.byteLength(body) });
          res.end(body);
        };
        const response = await fetch(`${mounted.url}/conversations`, { headers: bearer(t) });
        const text = await responseText(response);
        answers.push(text);
        assert.equal(response.status, status);
        assert.equal(response.headers.get('content-type'), type);
        for (const secret of [KEY, origin, host, origin.replaceAll('/', '\\/')]) assert.ok(!text.includes(secret), `${secret} in ${text}`);
        assert.match(text, /\[redacted\]/);
        const json = JSON.parse(text.slice(text.indexOf('\n\n') + 2)) as Record<string, unknown>;
        if (status === 500) {
          assert.deepEqual(json, {
            code: 'internal_server_error',
            message: "Traceback: requests to [redacted]/v1/conversations with headers {'Authorization': '[redacted]'} | key=[redacted]; socket [redacted]; db postgres://dify:pw@10.0.0.5/dify",
            status: 500,
          });
        }
        if (status === 400) assert.deepEqual(json, { code: 'invalid_param', message: 'bad key [redacted]', status: 400 });
        if (status === 403) assert.deepEqual(json, { type: 'about:blank', title: 'Forbidden', detail: 'key [redacted]', '[redacted]': '[redacted]' });
      }
      // A 2xx JSON answer that echoes the key loses it too (its address stays: file URLs need it).
      upstream.handler = (_req, res) => {
        res.writeHead(200, { 'Content-Type': 'application/json' });
        res.end(JSON.stringify({ opening_statement: `hi ${KEY}`, file: `${origin}/files/x.png` }));
      };
      const ok = await send('GET', '/parameters', { token: t });
      assert.deepEqual(ok.body, { opening_statement: 'hi [redacted]', file: `${origin}/files/x.png` });
    } finally {
      upstream.handler = saved;
    }
  });

  test('an upstream error body past 64 KiB is replaced by a generic error of the same status', async () => {
    const t = await token();
    const saved = upstream.handler;
    try {
      for (const status of [500, 422]) {
        upstream.handler = (_req, res) => {
          res.writeHead(status, { 'Content-Type': 'application/json' });
          res.end(JSON.stringify({ code: 'x', message: `${KEY} `.repeat(3000), status }));
        };
        const answer = await send('POST', '/workflows/run', { token: t, json: { inputs: {} } });
        assertError(answer, status, status === 500 ? 'upstream_unavailable' : 'unknown');
        assert.equal(answer.body.message, `The upstream service answered ${status} with an error too large to pass on.`);
      }
      // Just under the cap still passes, scrubbed.
      upstream.handler = (_req, res) => {
        res.writeHead(409, { 'Content-Type': 'application/json' });
        res.end(JSON.stringify({ code: 'conflict', message: 'x'.repeat(60 * 1024), status: 409 }));
      };
      const under = await send('GET', '/site', { token: t });
      assert.equal(under.status, 409);
      assert.equal(under.body.message.length, 60 * 1024);
    } finally {
      upstream.handler = saved;
    }
  });

  test('a web page answered with 2xx is not passed on as a page: 502 upstream_unavailable, logged by route', async () => {
    const t = await token();
    const saved = upstream.handler;
    const before = logged.length;
    try {
      for (const type of ['text/html; charset=utf-8', 'application/xhtml+xml', 'image/svg+xml', 'TEXT/HTML']) {
        upstream.handler = (_req, res) => {
          res.writeHead(200, { 'Content-Type': type });
          res.end('<script>parent.stolen = localStorage</script>');
        };
        const answer = await send('GET', '/parameters', { token: t });
        assertError(answer, 502, 'upstream_unavailable');
        assert.equal(answer.headers.get('content-type'), 'application/json');
      }
      assert.deepEqual(logged.slice(before).map((e) => [e.level, e.code, e.message]), Array(4).fill(['warn', 'upstream_unavailable', "The upstream service answered GET /parameters with a web page instead of the API's answer."]));
    } finally {
      upstream.handler = saved;
    }
  });

  test('an unreachable upstream is 502 upstream_unavailable; the log line names the route template, not ids', async () => {
    const entries: RelayLogEntry[] = [];
    const dead = await mountRelay(await deadUpstreamUrl(), { log: (e) => void entries.push(e) });
    try {
      const t = (await dead.relay.createSession({ user: 'alice' })).token;
      issued.push(t);
      const response = await fetch(`${dead.url}/form/human_input/SECRETFORMTOKEN1234567`, { headers: bearer(t) });
      answers.push(await responseText(response.clone()));
      assert.deepEqual(await response.json(), { code: 'upstream_unavailable', message: 'The upstream service could not be reached.', status: 502 });
      assert.equal(entries.length, 1);
      assert.match(entries[0]!.message, /GET \/form\/human_input\/\{form_token\} \(ECONNREFUSED\)/);
      assert.ok(!entries[0]!.message.includes('SECRETFORMTOKEN'));
    } finally {
      await dead.close();
    }
  });

  test('the default log goes to the console, without tokens, keys or ids', async () => {
    const dead = createRelay({ upstreamUrl: await deadUpstreamUrl(), apiKey: KEY, secret: SECRET });
    const t = (await dead.createSession({ user: 'alice' })).token;
    const { output } = await captureConsole(async () => {
      const response = await dead.fetch(new Request(`http://relay.test/workflow/RUNID12345/events?user=x`, { headers: bearer(t) }));
      answers.push(await responseText(response));
    });
    assert.match(output, /^\[relay\] The upstream service could not be reached for GET \/workflow\/\{workflow_run_id\}\/events \(ECONNREFUSED\)\.\n$/);
    for (const secret of [KEY, t, 'RUNID12345']) assert.ok(!output.includes(secret), secret);
  });
});

test('no answer or log line ever carried the API key or a session token; every answer was marked nosniff', () => {
  assert.ok(answers.length > 100, `only ${answers.length} answers recorded`);
  for (const answer of answers) assert.match(answer, /^x-content-type-options: nosniff$/m, answer.slice(0, 300));
  assert.ok(issued.length > 10);
  const haystack = answers.join('\n') + JSON.stringify(logged);
  assert.ok(!haystack.includes(KEY), 'the API key leaked');
  for (const t of issued) assert.ok(!haystack.includes(t), 'a session token leaked');
});

