/**
 * The relay as an attacker meets it: raw bytes over TCP (no client library tidying paths or
 * headers), hand-made tokens, smuggled requests, path and encoding tricks, hostile multipart
 * and JSON. The attacker holds a real session for `alice` and wants: another user's data, the
 * knowledge routes, the API key, or to crash the relay. At the end, everything the upstream
 * ever received is audited.
 */
import assert from 'node:assert/strict';
import { createHmac } from 'node:crypto';
import { connect } from 'node:net';
import { after, before, describe, test } from 'node:test';
import { SignJWT, UnsecuredJWT, base64url } from 'jose';
import { RELAY_ROUTES } from '../../src/relay/index.js';
import { BASE_PATH, KEY, mountRelay, multipartBody, parseFormData, SECRET, startUpstream, type ControlledUpstream, type MountedRelay } from './helpers.js';

let upstream: ControlledUpstream;
let mounted: MountedRelay;
let token: string;
let port: number;
/** Every raw answer, checked for the key and for reflected attacker input at the end. */
const answers: string[] = [];

before(async () => {
  upstream = await startUpstream();
  mounted = await mountRelay(upstream.url, { cors: { origins: ['https://shop.example.com'] }, maxUploadBytes: 1024 * 1024, log: () => {} });
  port = Number(new URL(mounted.origin).port);
  token = (await mounted.relay.createSession({ user: 'alice' })).token;
});

after(async () => {
  await mounted?.close();
  await upstream?.close();
});

/** A token signed by hand, for claims and headers jose would not produce. */
function hs256(header: Record<string, unknown>, payload: Record<string, unknown>, secret: string): string {
  const encode = (value: unknown) => Buffer.from(JSON.stringify(value)).toString('base64url');
  const input = `${encode(header)}.${encode(payload)}`;
  return `${input}.${createHmac('sha256', secret).update(input).digest('base64url')}`;
}

interface RawAnswer {
  status: number;
  head: string;
  body: string;
  /** Every response on the connection, for pipelined requests. */
  all: string;
}

/** Sends `bytes` as they are and reads until the server closes the connection. */
function raw(bytes: string | Buffer, timeoutMs = 10_000): Promise<RawAnswer> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, '127.0.0.1');
    const chunks: Buffer[] = [];
    const timer = setTimeout(() => socket.destroy(), timeoutMs);
    socket.on('data', (c) => chunks.push(c));
    socket.on('error', reject);
    socket.on('close', () => {
      clearTimeout(timer);
      const all = Buffer.concat(chunks).toString('latin1');
      answers.push(all);
      const split = all.indexOf('\r\n\r\n');
      const head = split >= 0 ? all.slice(0, split) : all;
      resolve({ status: Number(/^HTTP\/1\.1 (\d{3})/.exec(head)?.[1] ?? 0), head, body: split >= 0 ? all.slice(split + 4) : '', all });
    });
    socket.write(bytes);
  });
}

const auth = () => `Authorization: Bearer ${token}\r\n`;
const get = (target: string, extra = '') => `GET ${target} HTTP/1.1\r\nHost: relay.test\r\n${extra}Connection: close\r\n\r\n`;

/** Runs `action` and asserts no new request reached the upstream. */
async function blocked(action: () => Promise<void>): Promise<void> {
  const before = upstream.requests.length;
  await action();
  assert.equal(upstream.requests.length, before, `reached the upstream: ${upstream.requests.slice(before).map((r) => `${r.method} ${r.url.pathname}`).join(', ')}`);
}

describe('reaching routes that are not allowed', () => {
  test('path tricks over raw HTTP never reach the upstream', async () => {
    await blocked(async () => {
      for (const target of [
        `${BASE_PATH}/datasets`,
        `${BASE_PATH}/site/../datasets`,
        `${BASE_PATH}/./datasets`,
        `${BASE_PATH}/%2e%2e/v1/datasets`,
        `${BASE_PATH}/site/%2e%2e/datasets`,
        `${BASE_PATH}/site%2F..%2Fdatasets`,
        `${BASE_PATH}/site\\..\\datasets`,
        `${BASE_PATH}//datasets`,
        `${BASE_PATH}/site/..;/datasets`,
        `${BASE_PATH}/form/human_input/x%2F..%2F..%2F..%2Fdatasets`,
        `${BASE_PATH}/form/human_input/%252e%252e`,
        `${BASE_PATH}/workflow/x/events/../../../datasets`,
        `${BASE_PATH}/Datasets`,
        `${BASE_PATH}/datasets%00/site`,
        `${BASE_PATH}/site%20`,
        `${BASE_PATH}/../v1/datasets`,
        `/v1/datasets`,
        `/api/relayX/site`,
        `http://evil.example/v1/datasets`,
        `*`,
      ]) {
        const answer = await raw(get(target, auth()));
        assert.ok([400, 404].includes(answer.status), `${target} → ${answer.status}`);
        // In the relay's words, as data, even where Node's adapter could make no request of it (a backslash, `*`).
        assert.match(answer.head, /^content-type: application\/json/im, `${target}: ${answer.head}`);
        assert.match(answer.head, /^x-content-type-options: nosniff/im, `${target}: ${answer.head}`);
      }
    });
    // A fragment in the request target is no path: this is a plain request for /site.
    assert.equal((await raw(get(`${BASE_PATH}/site#/../datasets`, auth()))).status, 200);
    assert.equal(upstream.last().url.pathname, '/v1/site');
  });

  test('an absolute-form target or a forged Host still reaches only the configured upstream', async () => {
    const before = upstream.requests.length;
    const answer = await raw(get(`http://evil.example${BASE_PATH}/site`, auth()));
    assert.equal(answer.status, 200);
    const second = await raw(`GET ${BASE_PATH}/site HTTP/1.1\r\nHost: 169.254.169.254\r\nX-Forwarded-Host: evil.example\r\n${auth()}Connection: close\r\n\r\n`);
    assert.equal(second.status, 200);
    const reached = upstream.requests.slice(before);
    assert.equal(reached.length, 2);
    for (const r of reached) {
      assert.equal(r.url.pathname, '/v1/site');
      assert.equal(r.headers.host, new URL(upstream.url).host);
    }
  });

  test('methods outside the allowlist, overrides and odd verbs are refused', async () => {
    await blocked(async () => {
      for (const method of ['HEAD', 'TRACE', 'PATCH', 'PUT', 'CONNECT', 'PROPFIND']) {
        const answer = await raw(`${method} ${BASE_PATH}/site HTTP/1.1\r\nHost: relay.test\r\n${auth()}Content-Length: 0\r\nConnection: close\r\n\r\n`);
        // Node hangs up on a CONNECT nobody handles (status 0).
        assert.ok([400, 404].includes(answer.status) || (method === 'CONNECT' && answer.status === 0), `${method} → ${answer.status}`);
      }
    });
    const before = upstream.requests.length;
    const overridden = await raw(`POST ${BASE_PATH}/workflows/run HTTP/1.1\r\nHost: relay.test\r\n${auth()}X-HTTP-Method-Override: DELETE\r\nX-Original-URL: /v1/datasets\r\nX-Rewrite-URL: /v1/datasets\r\nContent-Type: application/json\r\nContent-Length: 2\r\nConnection: close\r\n\r\n{}`);
    assert.equal(overridden.status, 200);
    const got = upstream.requests.slice(before);
    assert.equal(got.length, 1);
    assert.equal(got[0]!.method, 'POST');
    assert.equal(got[0]!.url.pathname, '/v1/workflows/run');
    for (const h of ['x-http-method-override', 'x-original-url', 'x-rewrite-url']) assert.equal(got[0]!.headers[h], undefined);
  });

  test('requests smuggled behind an allowed one are parsed as their own requests and refused', async () => {
    const before = upstream.requests.length;
    const body = '{"inputs":{}}';
    const smuggled = get(`${BASE_PATH}/datasets`, auth());
    const answer = await raw(
      `POST ${BASE_PATH}/workflows/run HTTP/1.1\r\nHost: relay.test\r\n${auth()}Content-Type: application/json\r\nContent-Length: ${body.length}\r\n\r\n${body}${smuggled}`,
    );
    assert.match(answer.all, /^HTTP\/1\.1 200/);
    assert.match(answer.all, /HTTP\/1\.1 404 [\s\S]*No such relay route/);
    // Both Content-Length and Transfer-Encoding: Node refuses the request outright.
    const ambiguous = await raw(
      `POST ${BASE_PATH}/workflows/run HTTP/1.1\r\nHost: relay.test\r\n${auth()}Content-Type: application/json\r\nContent-Length: 4\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n${smuggled}`,
    );
    assert.equal(ambiguous.status, 400);
    assert.ok(!ambiguous.all.includes('"user"'));
    const reached = upstream.requests.slice(before).map((r) => r.url.pathname);
    assert.deepEqual(reached, ['/v1/workflows/run']);
  });
});

describe('forging sessions', () => {
  const key = new TextEncoder().encode(SECRET);
  const base = () => new SignJWT({}).setIssuer('hitl-elements-relay').setSubject('bob').setAudience('default').setExpirationTime('5m');

  test('hand-made tokens are refused: alg none, other algorithms, wrong key, header tricks, swapped signatures', async () => {
    const aliceParts = token.split('.') as [string, string, string];
    const bobPayload = base64url.encode(JSON.stringify({ ...JSON.parse(new TextDecoder().decode(base64url.decode(aliceParts[1]))), sub: 'bob' }));
    const forgeries = [
      new UnsecuredJWT({}).setIssuer('hitl-elements-relay').setSubject('bob').setAudience('default').setExpirationTime('5m').encode(),
      `${base64url.encode('{"alg":"none","typ":"JWT"}')}.${bobPayload}.`,
      `${base64url.encode('{"alg":"HS256","typ":"JWT"}')}.${bobPayload}.${aliceParts[2]}`,
      `${aliceParts[0]}.${bobPayload}.${aliceParts[2]}`,
      `${aliceParts[0]}.${aliceParts[1]}.${aliceParts[2].slice(0, -2)}AA`,
      `${aliceParts[0]}.${aliceParts[1]}`,
      `${aliceParts[0]}.${aliceParts[1]}.${aliceParts[2]}.extra`,
      await base().setProtectedHeader({ alg: 'HS384' }).sign(new TextEncoder().encode(SECRET + SECRET)),
      await base().setProtectedHeader({ alg: 'HS256', kid: '../../etc/passwd' }).sign(new TextEncoder().encode('x'.repeat(32))),
      await base().setProtectedHeader({ alg: 'HS256', jku: 'https://evil.example/jwks.json' }).sign(new TextEncoder().encode('y'.repeat(32))),
      hs256({ alg: 'HS256', crit: ['x-unknown'], 'x-unknown': 1 }, { iss: 'hitl-elements-relay', sub: 'bob', aud: 'default', exp: Math.floor(Date.now() / 1000) + 300 }, SECRET),
      hs256({ alg: 'HS256' }, { iss: 'hitl-elements-relay', sub: 'bob', aud: 'default', exp: '9999999999' }, SECRET),
      hs256({ alg: 'HS256' }, { iss: 'hitl-elements-relay', sub: 'bob', aud: 'default' }, SECRET),
      await base().setProtectedHeader({ alg: 'HS256' }).setNotBefore('1h').sign(key),
      await new SignJWT({}).setProtectedHeader({ alg: 'HS256' }).setIssuer('hitl-elements-relay').setSubject('').setAudience('default').setExpirationTime('5m').sign(key),
      await new SignJWT({}).setProtectedHeader({ alg: 'HS256' }).setIssuer('hitl-elements-relay').setSubject('bob').setAudience(['other', 'default2']).setExpirationTime('5m').sign(key),
      await new SignJWT({ sub: 42 } as never).setProtectedHeader({ alg: 'HS256' }).setIssuer('hitl-elements-relay').setAudience('default').setExpirationTime('5m').sign(key),
    ];
    await blocked(async () => {
      for (const forged of forgeries) {
        const answer = await raw(get(`${BASE_PATH}/conversations`, `Authorization: Bearer ${forged}\r\n`));
        assert.equal(answer.status, 401, forged);
        assert.match(answer.body, /"code":"(session_invalid|session_wrong_audience|unauthorized)"/);
      }
      // Two credentials, odd spacing, a token split across a header fold: not a Bearer token.
      for (const header of [`Authorization: Bearer ${token}, Bearer x\r\n`, `Authorization: Bearer\t\r\n`, `Authorization: Token ${token}\r\n`]) {
        assert.equal((await raw(get(`${BASE_PATH}/site`, header))).status, 401, header);
      }
    });
    // A folded header is a protocol error before the relay sees it.
    assert.equal((await raw(get(`${BASE_PATH}/site`, `Authorization: Bearer\r\n ${token}\r\n`))).status, 400);
  });

  test('two Authorization headers are refused whatever their order', async () => {
    const bob = await base().setProtectedHeader({ alg: 'HS256' }).sign(new TextEncoder().encode('z'.repeat(32)));
    await blocked(async () => {
      assert.equal((await raw(get(`${BASE_PATH}/conversations`, `Authorization: Bearer ${bob}\r\n${auth()}`))).status, 401);
      assert.equal((await raw(get(`${BASE_PATH}/conversations`, `${auth()}Authorization: Bearer ${bob}\r\n`))).status, 401);
    });
  });
});

describe("posing as another user", () => {
  async function sendJson(path: string, body: string, contentType = 'application/json'): Promise<Record<string, unknown>> {
    const length = Buffer.byteLength(body);
    const answer = await raw(`POST ${BASE_PATH}${path} HTTP/1.1\r\nHost: relay.test\r\n${auth()}Content-Type: ${contentType}\r\nContent-Length: ${length}\r\nConnection: close\r\n\r\n${body}`);
    assert.equal(answer.status, 200, answer.all);
    return JSON.parse(upstream.last().body.toString()) as Record<string, unknown>;
  }

  test('JSON: escaped keys, duplicates, prototype keys, odd content types all end with the session user', async () => {
    for (const body of [
      '{"\\u0075ser":"bob"}',
      '{"user":"alice","user":"bob"}',
      '{"user":"bob","__proto__":{"user":"bob"},"constructor":{"prototype":{"user":"bob"}}}',
      '{"user":["bob"]}',
      '{"User":"bob","USER":"bob"}',
      ' \n {"user":"bob"} \n ',
    ]) {
      const seen = await sendJson('/chat-messages', body);
      assert.equal(seen.user, 'alice', body);
    }
    assert.equal((await sendJson('/chat-messages', '{"user":"bob"}', 'text/plain')).user, 'alice');
    assert.equal(({} as Record<string, unknown>).user, undefined, 'no prototype was polluted');
  });

  test('JSON bombs and wrong encodings are refused cleanly, and the relay keeps serving', async () => {
    await blocked(async () => {
      const deep = '['.repeat(500_000) + ']'.repeat(500_000);
      for (const [body, type] of [
        [deep, 'application/json'],
        ['\ufeff{"user":"bob"', 'application/json'],
        ['{"user":"bob"}//', 'application/json'],
        [Buffer.from('{"user":"bob"}', 'utf16le').toString('latin1'), 'application/json; charset=utf-16'],
        ['x'.repeat(1024 * 1024 + 1), 'application/json'],
      ] as const) {
        const answer = await raw(`POST ${BASE_PATH}/chat-messages HTTP/1.1\r\nHost: relay.test\r\n${auth()}Content-Type: ${type}\r\nContent-Length: ${Buffer.byteLength(body, 'latin1')}\r\nConnection: close\r\n\r\n${body}`);
        assert.ok([400, 413].includes(answer.status), `${body.slice(0, 20)} → ${answer.status}`);
      }
    });
    assert.equal((await raw(get(`${BASE_PATH}/site`, auth()))).status, 200);
  });

  test('deeply nested JSON objects are 400 invalid_param in the error shape, never an empty 500', async () => {
    const nest = (depth: number, open = '[', close = ']') => `{"inputs":${open.repeat(depth)}${close.repeat(depth)}}`;
    const post = (body: string) =>
      raw(`POST ${BASE_PATH}/chat-messages HTTP/1.1\r\nHost: relay.test\r\n${auth()}Content-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`);
    await blocked(async () => {
      // 200,000 levels parse but cannot be serialized again (RangeError); 64 is the cap.
      for (const body of [nest(200_000), nest(5_000, '{"a":', '}'), nest(64), '{"a":"[[[[","b":' + '['.repeat(64) + ']'.repeat(64) + '}']) {
        const answer = await post(body);
        assert.equal(answer.status, 400, answer.head);
        // The body may come chunked: the JSON is between its first and last brace.
        const json = answer.body.slice(answer.body.indexOf('{'), answer.body.lastIndexOf('}') + 1);
        assert.deepEqual(JSON.parse(json), { code: 'invalid_param', message: 'The JSON body nests deeper than 64 levels.', status: 400 });
      }
    });
    // Brackets inside strings don't count, and 63 levels under the top object pass.
    const fine = await post(`{"query":"[[[[{{{{\\"]]]","inputs":${'['.repeat(63)}${']'.repeat(63)}}`);
    assert.equal(fine.status, 200, fine.all);
    assert.equal(JSON.parse(upstream.last().body.toString()).query, '[[[[{{{{"]]]');
  });

  test('query: encodings and array spellings of `user` leave exactly the session user', async () => {
    const answer = await raw(get(`${BASE_PATH}/messages?conversation_id=c1&user=bob&%75ser=bob&user%00=bob&user[]=bob&User=bob&USER%20=bob&user=bob%26user%3Dbob`, auth()));
    assert.equal(answer.status, 200);
    const query = upstream.last().url.searchParams;
    assert.deepEqual([...query], [['conversation_id', 'c1'], ['user', 'alice']]);
  });

  test('multipart: a boundary inside the file, parts in every order, nested multipart, a huge header', async () => {
    const boundary = 'attackerboundary';
    const sneaky = `harmless\r\n--${boundary}\r\nContent-Disposition: form-data; name="user"\r\n\r\nbob`;
    const bodies = [
      multipartBody(boundary, [{ headers: 'Content-Disposition: form-data; name="file"; filename="a.txt"\r\nContent-Type: text/plain', body: sneaky }]),
      multipartBody(boundary, [
        { headers: 'Content-Disposition: form-data; name="user"\r\nContent-Type: multipart/mixed; boundary=inner', body: `--inner\r\nContent-Disposition: form-data; name="user"\r\n\r\nbob\r\n--inner--` },
        { headers: 'Content-Disposition: form-data; name="file"; filename="b.txt"', body: 'B' },
      ]),
      multipartBody(boundary, [
        { headers: 'Content-Disposition: form-data; name="file"; filename="c.txt"', body: 'C' },
        { headers: 'Content-Disposition: form-data; name="USER"', body: 'bob' },
        { headers: 'Content-Disposition: form-data; name="user"; filename="user"', body: 'bob' },
      ]),
    ];
    for (const body of bodies) {
      const answer = await raw(
        Buffer.concat([
          Buffer.from(`POST ${BASE_PATH}/files/upload?user=bob HTTP/1.1\r\nHost: relay.test\r\n${auth()}Content-Type: multipart/form-data; boundary=${boundary}\r\nContent-Length: ${body.length}\r\nConnection: close\r\n\r\n`),
          body,
        ]),
      );
      assert.equal(answer.status, 200, answer.all);
      const form = await parseFormData(upstream.last().body, String(upstream.last().headers['content-type']));
      assert.deepEqual(form.getAll('user'), ['alice']);
      assert.equal(upstream.last().url.searchParams.get('user'), null);
    }
    const before = upstream.requests.length;
    const hugeHeader = multipartBody(boundary, [{ headers: `Content-Disposition: form-data; name="file"; filename="${'a'.repeat(20_000)}"`, body: 'x' }]);
    const answer = await raw(
      Buffer.concat([Buffer.from(`POST ${BASE_PATH}/files/upload HTTP/1.1\r\nHost: relay.test\r\n${auth()}Content-Type: multipart/form-data; boundary=${boundary}\r\nContent-Length: ${hugeHeader.length}\r\nConnection: close\r\n\r\n`), hugeHeader]),
    );
    assert.equal(answer.status, 400);
    // The upload may have started streaming before the header was refused: then it was cut off.
    for (const r of upstream.requests.slice(before)) assert.equal(await r.ended, 'aborted');
  });
});

describe('other abuse', () => {
  test('CORS: look-alike origins are refused, and nothing reflects them', async () => {
    for (const origin of ['https://shop.example.com.evil.net', 'https://evil.net/https://shop.example.com', 'https://shop.example.com@evil.net', 'null', 'https://SHOP.example.com:8443']) {
      const answer = await raw(`OPTIONS ${BASE_PATH}/site HTTP/1.1\r\nHost: relay.test\r\nOrigin: ${origin}\r\nAccess-Control-Request-Method: GET\r\nConnection: close\r\n\r\n`);
      assert.equal(answer.status, 403, origin);
      assert.ok(!/access-control-allow-origin/i.test(answer.head), origin);
    }
    const ok = await raw(`OPTIONS ${BASE_PATH}/site HTTP/1.1\r\nHost: relay.test\r\nOrigin: https://SHOP.example.com\r\nAccess-Control-Request-Method: GET\r\nConnection: close\r\n\r\n`);
    assert.equal(ok.status, 204);
  });

  test('errors never reflect what the attacker sent', async () => {
    const marker = '<script>alert(1)</script>';
    for (const request of [
      get(`${BASE_PATH}/${encodeURIComponent(marker)}`, auth()),
      get(`${BASE_PATH}/site`, `Authorization: Bearer ${encodeURIComponent(marker)}\r\n`),
      `POST ${BASE_PATH}/chat-messages HTTP/1.1\r\nHost: relay.test\r\n${auth()}Content-Type: application/json\r\nContent-Length: ${marker.length}\r\nConnection: close\r\n\r\n${marker}`,
    ]) {
      const answer = await raw(request);
      assert.ok(answer.status >= 400);
      assert.ok(!answer.all.includes(marker) && !answer.all.includes(encodeURIComponent(marker)), answer.all);
      assert.match(answer.head, /content-type: application\/json/i);
    }
  });

  test('an oversized header block is refused by the server before the relay', async () => {
    const answer = await raw(get(`${BASE_PATH}/site`, `${auth()}X-Pad: ${'a'.repeat(20_000)}\r\n`));
    assert.equal(answer.status, 431);
  });
});

test('audit: the upstream only ever saw allowlisted paths, the API key and the session user', () => {
  assert.ok(upstream.requests.length >= 10);
  for (const r of upstream.requests) {
    const path = r.url.pathname.replace(/^\/v1/, '');
    assert.ok(RELAY_ROUTES.some((route) => route.method === r.method && route.pattern.test(path)), `${r.method} ${r.url.pathname}`);
    assert.equal(r.headers.authorization, `Bearer ${KEY}`);
    const users = r.url.searchParams.getAll('user');
    assert.ok(users.length === 0 || (users.length === 1 && users[0] === 'alice'), r.url.search);
  }
  const all = answers.join('\n');
  assert.ok(!all.includes(KEY), 'the API key reached an answer');
  assert.ok(!all.includes(token), 'the session token was echoed');
});
