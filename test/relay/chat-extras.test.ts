/**
 * Suggested questions and audio to text through the relay, against a recording upstream: exactly
 * what goes upstream, the session's user put in whatever the browser sent (the embedded
 * service's side is in embedded-service.test.ts). The app's feedback listing is no browser route.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { isUserField } from '../../src/relay/user-field.js';
import { BASE_PATH, bearer, KEY, mountRelay, multipartBody, parseFormData, rawRequest, startUpstream, type ControlledUpstream, type MountedRelay } from './helpers.js';

const BOUNDARY = 'chatextrasboundary';
const MESSAGE = '3f2b8c1e-9a4d-4e7b-8c2a-1d5e6f7a8b9c';

describe('suggested questions and audio to text through the relay', () => {
  let upstream: ControlledUpstream;
  let mounted: MountedRelay;
  let token: string;
  before(async () => {
    upstream = await startUpstream();
    mounted = await mountRelay(upstream.url, { rateLimit: false, maxStreamsPerUser: false });
    token = (await mounted.relay.createSession({ user: 'alice' })).token;
  });
  after(async () => {
    await mounted?.close();
    await upstream?.close();
  });

  test('GET /messages/{id}/suggested goes up with the session user as the only user in the query', async () => {
    const answer = await fetch(`${mounted.url}/messages/${MESSAGE}/suggested?user=mallory&USER=x&%75ser=y&user[]=z`, { headers: bearer(token) });
    assert.equal(answer.status, 200, await answer.clone().text());
    const sent = upstream.last();
    assert.equal(sent.method, 'GET');
    assert.equal(sent.url.pathname, `/v1/messages/${MESSAGE}/suggested`);
    assert.deepEqual([...sent.url.searchParams], [['user', 'alice']]);
    assert.equal(sent.headers.authorization, `Bearer ${KEY}`);
  });

  test('POST /audio-to-text goes up as multipart with one user part, the session’s, and the audio byte for byte', async () => {
    const audio = Buffer.from([0x49, 0x44, 0x33, 4, 0, 0, 0, 0, 0, 0, 0xff, 0xfb, 0x90, 0x64, 0, 13, 10, 45, 45]);
    const body = multipartBody(BOUNDARY, [
      { headers: 'Content-Disposition: form-data; name="user"', body: 'mallory' },
      { headers: 'Content-Disposition: form-data; name="file"; filename="voice.mp3"\r\nContent-Type: audio/mp3', body: audio },
      { headers: 'Content-Disposition: form-data; name="User"', body: 'eve' },
    ]);
    const answer = await fetch(`${mounted.url}/audio-to-text?user=bob`, { method: 'POST', headers: { ...bearer(token), 'Content-Type': `multipart/form-data; boundary=${BOUNDARY}` }, body });
    assert.equal(answer.status, 200, await answer.clone().text());
    const sent = upstream.last();
    assert.equal(sent.url.pathname, '/v1/audio-to-text');
    assert.deepEqual([...sent.url.searchParams], []);
    const form = await parseFormData(sent.body, String(sent.headers['content-type']));
    assert.deepEqual(form.getAll('user'), ['alice']);
    assert.equal(form.get('User'), null);
    const file = form.get('file') as File;
    assert.equal(file.name, 'voice.mp3');
    assert.equal(file.type, 'audio/mp3');
    assert.deepEqual(Buffer.from(await file.arrayBuffer()), audio);
  });

  test('an audio upload that is no multipart form is refused at the relay', async () => {
    const before = upstream.requests.length;
    const answer = await fetch(`${mounted.url}/audio-to-text`, { method: 'POST', headers: { ...bearer(token), 'Content-Type': 'application/json' }, body: '{"user":"mallory"}' });
    assert.equal(answer.status, 400);
    assert.equal(upstream.requests.length, before);
  });

  test('GET /app/feedbacks (every user’s ratings) is no relay route and reaches nothing', async () => {
    const before = upstream.requests.length;
    for (const path of ['/app/feedbacks', '/app/feedbacks?page=1&limit=20']) {
      const answer = await fetch(mounted.url + path, { headers: bearer(token) });
      assert.equal(answer.status, 404);
      assert.deepEqual(await answer.json(), { code: 'not_found', message: 'No such relay route.', status: 404 });
    }
    assert.equal(upstream.requests.length, before);
  });
});

/**
 * The two routes as an attacker holding alice's session tries them: another user in the query or
 * the form, however spelled or framed; paths that would leave the route once decoded; uploads past
 * the cap, declared or chunked. Each ends refused before the upstream, or with alice, and only
 * alice, as the user the upstream reads.
 */
describe('attacks on suggested questions and audio to text', () => {
  const CAP = 64 * 1024;
  let upstream: ControlledUpstream;
  let mounted: MountedRelay;
  let token: string;
  before(async () => {
    upstream = await startUpstream();
    mounted = await mountRelay(upstream.url, { rateLimit: false, maxStreamsPerUser: false, maxUploadBytes: CAP, log: () => {} });
    token = (await mounted.relay.createSession({ user: 'alice' })).token;
  });
  after(async () => {
    await mounted?.close();
    await upstream?.close();
  });

  /** The request reached the upstream whole: then it names alice, once, and nothing read as a user besides. */
  async function onlyAlice(from: number, what: string): Promise<void> {
    for (const sent of upstream.requests.slice(from)) {
      if ((await sent.ended) !== 'complete') continue;
      assert.deepEqual(sent.url.searchParams.getAll('user'), sent.method === 'GET' ? ['alice'] : [], what);
      assert.deepEqual([...sent.url.searchParams.keys()].filter(isUserField), sent.method === 'GET' ? ['user'] : [], what);
      if (sent.method !== 'POST') continue;
      const form = await parseFormData(sent.body, String(sent.headers['content-type']));
      assert.deepEqual(form.getAll('user'), ['alice'], what);
      assert.deepEqual([...form.keys()].filter(isUserField), ['user'], what);
    }
  }

  test('the query: repeated, bracketed, encoded, double-encoded and folded spellings of user', async () => {
    const spellings = ['user=bob', 'user=bob&user=carol', 'user[]=bob', 'user[0]=bob', 'user%5B%5D=bob', '%75ser=bob', '%2575ser=bob', 'u%C5%BFer=bob', 'USER=bob', 'user%00=bob', '%20user=bob', 'user%0D%0A=bob', 'user.=x', 'x=1;user=bob', 'x=1%26user%3Dbob'];
    for (const query of [...spellings, spellings.join('&')]) {
      const from = upstream.requests.length;
      const answer = await rawRequest(mounted.origin, 'GET', `${BASE_PATH}/messages/${MESSAGE}/suggested?${query}`, bearer(token));
      assert.equal(answer.status, 200, `${query}: ${answer.body}`);
      assert.equal(upstream.requests.length, from + 1);
      await onlyAlice(from, query);
      assert.equal(upstream.last().url.pathname, `/v1/messages/${MESSAGE}/suggested`);
    }
  });

  test('paths that leave the route, or another once decoded, are refused before the upstream', async () => {
    const from = upstream.requests.length;
    for (const path of [
      '/messages/%2e%2e/suggested',
      '/messages/..%2f..%2fapps%2fannotations/suggested',
      '/messages/%252e%252e%252fapps/suggested',
      '/messages/%EF%BC%8E%EF%BC%8E/suggested',
      '/messages/%E2%80%A4%E2%80%A4/suggested',
      '/messages/a.b/suggested',
      '/messages/x%00/suggested',
      '/messages//suggested',
      `/messages/${'a'.repeat(129)}/suggested`,
      `/messages/${MESSAGE}/suggested/`,
      `/messages/${MESSAGE}/suggested;x=1`,
      `/messages/${MESSAGE};/suggested`,
      `/messages/${MESSAGE}/SUGGESTED`,
      `/Messages/${MESSAGE}/suggested`,
      `/messages/${MESSAGE}/suggested/..`,
      `/messages/${MESSAGE}/suggested%2f..%2f..%2fapps%2fannotations`,
      `/messages/${MESSAGE}/../../apps/annotations`,
      `/messages/${MESSAGE}/suggested/../../../app/feedbacks`,
      '/audio-to-text/',
      '/audio-to-text;',
      '/AUDIO-TO-TEXT',
      '/audio-to-text%2f',
      '//audio-to-text',
      '/audio-to-text/..',
    ]) {
      const method = path.toLowerCase().includes('audio') ? 'POST' : 'GET';
      const answer = await rawRequest(mounted.origin, method, BASE_PATH + path, { ...bearer(token), 'Content-Type': `multipart/form-data; boundary=${BOUNDARY}` }, method === 'POST' ? multipartBody(BOUNDARY, []) : undefined);
      assert.ok([400, 404].includes(answer.status), `${method} ${path} → ${answer.status}`);
    }
    assert.deepEqual(upstream.requests.slice(from).map((r) => `${r.method} ${r.url.pathname}`), []);
  });

  test('multipart: user parts repeated, renamed, after the close, in a nested form; all end as alice', async () => {
    const file = { headers: 'Content-Disposition: form-data; name="file"; filename="v.mp3"\r\nContent-Type: audio/mp3', body: 'ID3' };
    const user = (disposition: string, body = 'bob') => ({ headers: `Content-Disposition: ${disposition}`, body });
    const bodies: [string, Buffer][] = [
      ['twice', multipartBody(BOUNDARY, [user('form-data; name="user"'), file, user('form-data; name="user"', 'carol')])],
      ['spellings', multipartBody(BOUNDARY, ['"user[]"', '"USER"', '"u\u017fer"', '"%75ser"', '" user "', 'user', '"user"; filename="user.mp3"'].map((name) => user(`form-data; name=${name}`)).concat(file))],
      ['unspaced, upper-case parameter', multipartBody(BOUNDARY, [user('form-data;NAME=user'), user('FORM-DATA; Name="user"'), file])],
      ['after the closing boundary', Buffer.concat([multipartBody(BOUNDARY, [file]), multipartBody(BOUNDARY, [user('form-data; name="user"')])])],
      ['nested form', multipartBody(BOUNDARY, [file, { headers: 'Content-Disposition: form-data; name="extra"\r\nContent-Type: multipart/form-data; boundary=inner', body: '--inner\r\nContent-Disposition: form-data; name="user"\r\n\r\nbob\r\n--inner--' }])],
    ];
    for (const [what, body] of bodies) {
      const from = upstream.requests.length;
      const answer = await rawRequest(mounted.origin, 'POST', `${BASE_PATH}/audio-to-text?user=bob`, { ...bearer(token), 'Content-Type': `multipart/form-data; boundary=${BOUNDARY}` }, body);
      assert.equal(answer.status, 200, `${what}: ${answer.body}`);
      await onlyAlice(from, what);
    }
  });

  test('multipart: ambiguous framing (RFC 2231 names, folding, CRLF in a name, NUL, repeated parameters, huge headers) is refused', async () => {
    const file = { headers: 'Content-Disposition: form-data; name="file"; filename="v.mp3"', body: 'ID3' };
    const cases: [string, Buffer, Record<string, string>?][] = [
      ['name*', multipartBody(BOUNDARY, [{ headers: "Content-Disposition: form-data; name*=UTF-8''user", body: 'bob' }, file])],
      ['filename*', multipartBody(BOUNDARY, [{ headers: "Content-Disposition: form-data; name=\"file\"; filename*=UTF-8''user", body: 'ID3' }])],
      ['folded', multipartBody(BOUNDARY, [{ headers: 'Content-Disposition: form-data;\r\n name="user"', body: 'bob' }, file])],
      ['CRLF in a name', multipartBody(BOUNDARY, [{ headers: 'Content-Disposition: form-data; name="file\r\nContent-Disposition: form-data; name=user"', body: 'bob' }])],
      ['NUL in a name', multipartBody(BOUNDARY, [{ headers: 'Content-Disposition: form-data; name="user\u0000"', body: 'bob' }, file])],
      ['repeated name', multipartBody(BOUNDARY, [{ headers: 'Content-Disposition: form-data; name="file"; name="user"', body: 'bob' }])],
      ['two dispositions', multipartBody(BOUNDARY, [{ headers: 'Content-Disposition: form-data; name="file"\r\nContent-Disposition: form-data; name="user"', body: 'bob' }])],
      ['huge header', multipartBody(BOUNDARY, [{ headers: `Content-Disposition: form-data; name="file"; filename="${'a'.repeat(9 * 1024)}"`, body: 'ID3' }])],
      ['LF-only delimiter', Buffer.from(`--${BOUNDARY}\nContent-Disposition: form-data; name="user"\n\nbob\n--${BOUNDARY}--\n`)],
      ['17 parts', multipartBody(BOUNDARY, Array.from({ length: 17 }, () => file))],
      ['two boundaries', multipartBody(BOUNDARY, [file]), { 'Content-Type': `multipart/form-data; boundary=${BOUNDARY}; boundary=other` }],
    ];
    for (const [what, body, headers] of cases) {
      const from = upstream.requests.length;
      const answer = await rawRequest(mounted.origin, 'POST', `${BASE_PATH}/audio-to-text`, { ...bearer(token), 'Content-Type': `multipart/form-data; boundary=${BOUNDARY}`, ...headers }, body);
      assert.equal(answer.status, 400, `${what}: ${answer.body}`);
      assert.equal((JSON.parse(answer.body) as { code: string }).code, 'invalid_param', what);
      // Refused mid-stream, the upload was cut off, never completed.
      for (const sent of upstream.requests.slice(from)) assert.equal(await sent.ended, 'aborted', what);
    }
  });

  test('two Content-Type headers with different boundaries end with alice alone, or are refused', async () => {
    const from = upstream.requests.length;
    const body = multipartBody('other', [{ headers: 'Content-Disposition: form-data; name="user"', body: 'bob' }, { headers: 'Content-Disposition: form-data; name="file"; filename="v.mp3"', body: 'ID3' }]);
    const answer = await rawRequest(mounted.origin, 'POST', `${BASE_PATH}/audio-to-text`, { ...bearer(token), 'Content-Type': [`multipart/form-data; boundary=${BOUNDARY}`, 'multipart/form-data; boundary=other'] }, body);
    assert.ok([200, 400].includes(answer.status), answer.body);
    await onlyAlice(from, 'two content types');
  });

  test('the upload cap holds for audio, declared or chunked', async () => {
    const big = multipartBody(BOUNDARY, [{ headers: 'Content-Disposition: form-data; name="file"; filename="v.mp3"\r\nContent-Type: audio/mp3', body: Buffer.alloc(CAP + 1, 0x41) }]);
    const from = upstream.requests.length;
    const declared = await rawRequest(mounted.origin, 'POST', `${BASE_PATH}/audio-to-text`, { ...bearer(token), 'Content-Type': `multipart/form-data; boundary=${BOUNDARY}`, 'Content-Length': big.length }, big);
    assert.equal(declared.status, 413, declared.body);
    assert.equal(upstream.requests.length, from, 'a declared oversize upload never starts upstream');
    const chunks = Array.from({ length: Math.ceil(big.length / 4096) }, (_, i) => big.subarray(i * 4096, (i + 1) * 4096));
    const chunked = await rawRequest(mounted.origin, 'POST', `${BASE_PATH}/audio-to-text`, { ...bearer(token), 'Content-Type': `multipart/form-data; boundary=${BOUNDARY}` }, chunks);
    assert.equal(chunked.status, 413, chunked.body);
    for (const sent of upstream.requests.slice(from)) assert.equal(await sent.ended, 'aborted');
  });
});
