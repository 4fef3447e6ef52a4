/**
 * Suggested questions and audio to text through the relay, against a recording upstream: exactly
 * what goes upstream, the session's user put in whatever the browser sent (the embedded
 * service's side is in embedded-service.test.ts). The app's feedback listing is no browser route.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { bearer, KEY, mountRelay, multipartBody, parseFormData, startUpstream, type ControlledUpstream, type MountedRelay } from './helpers.js';

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
