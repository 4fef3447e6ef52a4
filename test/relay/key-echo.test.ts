/**
 * A hostile upstream that echoes the relay's API key everywhere the relay passes something on:
 * a 200 body with no Content-Type, audio, JSON and event streams split so the key straddles
 * chunk boundaries, and the forwarded headers (Content-Disposition raw and percent-encoded,
 * Content-Type). Whatever it sends, the key never reaches the browser.
 */
import assert from 'node:assert/strict';
import type { ServerResponse } from 'node:http';
import { after, before, describe, test } from 'node:test';
import { bearer, KEY, mountRelay, readAll, responseText, sleep, startUpstream, type ControlledUpstream, type MountedRelay } from './helpers.js';

let upstream: ControlledUpstream;
let mounted: MountedRelay;
let token: string;

before(async () => {
  upstream = await startUpstream();
  mounted = await mountRelay(upstream.url);
  token = (await mounted.relay.createSession({ user: 'alice' })).token;
});

after(async () => {
  await mounted?.close();
  await upstream?.close();
});

/** Writes `pieces` as separate chunks, a pause between each, so the relay sees them apart. */
async function writeApart(res: ServerResponse, pieces: (string | Buffer)[]): Promise<void> {
  for (const piece of pieces) {
    res.write(piece);
    await sleep(25);
  }
  res.end();
}

/** The key cut in three, so no chunk holds it whole. */
const keyPieces = [KEY.slice(0, 5), KEY.slice(5, 13), KEY.slice(13)];

/** Everything the browser can see (status, headers, body as latin1 so binary stays byte for byte), checked for the key. */
async function assertKeyless(response: Response): Promise<Buffer> {
  const headerText = [...response.headers].map(([k, v]) => `${k}: ${v}`).join('\n');
  const body = Buffer.from(await response.arrayBuffer());
  for (const text of [headerText, body.toString('latin1')]) {
    assert.ok(!text.includes(KEY), `the key reached the browser: ${text.slice(0, 400)}`);
    let decoded = text;
    try {
      decoded = decodeURIComponent(text);
    } catch {
      // not percent-encoded
    }
    assert.ok(!decoded.includes(KEY), `the key reached the browser percent-encoded: ${text.slice(0, 400)}`);
  }
  return body;
}

async function get(path: string): Promise<Response> {
  return fetch(`${mounted.url}${path}`, { headers: bearer(token) });
}

describe('an upstream that echoes the API key', () => {
  test('a 200 body with no Content-Type is scrubbed, the key split across chunks', async () => {
    upstream.handler = async (req, res) => {
      await readAll(req);
      // Node adds no Content-Type of its own.
      res.writeHead(200);
      await writeApart(res, ['debug: Authorization: Bearer ', ...keyPieces, ' end']);
    };
    const response = await get('/parameters');
    assert.equal(response.status, 200);
    assert.equal(response.headers.get('x-content-type-options'), 'nosniff');
    assert.equal((await assertKeyless(response)).toString(), 'debug: Authorization: Bearer [redacted] end');
  });

  test('an audio body is scrubbed (the key cut across chunks), its other bytes untouched', async () => {
    const head = Buffer.from([0xff, 0xfb, 0x90, 0x64, 0x00, 0x01]);
    const tail = Buffer.alloc(2048, 7);
    upstream.handler = async (req, res) => {
      await readAll(req);
      res.writeHead(200, { 'Content-Type': 'audio/mpeg' });
      await writeApart(res, [head, ...keyPieces.map((p) => Buffer.from(p)), tail]);
    };
    const response = await fetch(`${mounted.url}/text-to-audio`, { method: 'POST', headers: { ...bearer(token), 'Content-Type': 'application/json' }, body: '{"text":"hi"}' });
    assert.equal(response.status, 200);
    assert.equal(response.headers.get('content-type'), 'audio/mpeg');
    const body = await assertKeyless(response);
    assert.deepEqual(body, Buffer.concat([head, Buffer.from('[redacted]'), tail]));
  });

  test('JSON and event streams are scrubbed however the key is split', async () => {
    for (let split = 1; split < KEY.length; split += 4) {
      upstream.handler = async (req, res) => {
        await readAll(req);
        res.writeHead(200, { 'Content-Type': 'text/event-stream' });
        await writeApart(res, [`data: {"event":"ping","x":"${KEY.slice(0, split)}`, `${KEY.slice(split)}"}\n\n`, `data: ${KEY}${KEY}\n\n`]);
      };
      const response = await get(`/workflow/run-${split}/events`);
      assert.equal((await assertKeyless(response)).toString(), 'data: {"event":"ping","x":"[redacted]"}\n\ndata: [redacted][redacted]\n\n');
    }
  });

  test('a key spelled with JSON \\u escapes is scrubbed in 2xx JSON and events, however it is split', async () => {
    // JSON.parse in the browser turns `\\u0061pp-…` back into the key: each character may be escaped (hex here in capitals).
    const escape = (text: string, every: number) => [...text].map((c, i) => (i % every ? c : `\\u${c.charCodeAt(0).toString(16).padStart(4, '0').toUpperCase()}`)).join('');
    for (const every of [1, 3]) {
      const spelled = escape(KEY, every);
      for (let split = 1; split < spelled.length; split += 5) {
        upstream.handler = async (req, res) => {
          await readAll(req);
          res.writeHead(200, { 'Content-Type': 'text/event-stream' });
          await writeApart(res, [`data: {"event":"message","answer":"caf\\u00e9 ${spelled.slice(0, split)}`, `${spelled.slice(split)}\\n"}\n\n`, `data: {"event":"ping"}\n\n`]);
        };
        const text = (await assertKeyless(await get(`/workflow/run-e${every}-${split}/events`))).toString();
        assert.equal(text, 'data: {"event":"message","answer":"caf\\u00e9 [redacted]\\n"}\n\ndata: {"event":"ping"}\n\n', `every ${every}, split ${split}`);
        for (const line of text.split('\n').filter(Boolean)) assert.ok(!JSON.stringify(JSON.parse(line.slice(6))).includes(KEY));
      }
      upstream.handler = async (req, res) => {
        await readAll(req);
        res.writeHead(200, { 'Content-Type': 'application/json' });
        await writeApart(res, [`{"user_input_form":[],"note":"${spelled.slice(0, 7)}`, `${spelled.slice(7)}"}`]);
      };
      const body = await assertKeyless(await get('/parameters'));
      assert.deepEqual(JSON.parse(body.toString()), { user_input_form: [], note: '[redacted]' });
    }
  });

  test('forwarded headers: a raw key is replaced, a percent-encoded one drops the header', async () => {
    const encodedKey = [...Buffer.from(KEY)].map((b) => `%${b.toString(16).padStart(2, '0')}`).join('');
    const cases: { disposition: string; expect: string | null; status?: number }[] = [
      { disposition: `attachment; filename="${KEY}.mp3"`, expect: 'attachment; filename="[redacted].mp3"' },
      { disposition: `attachment; filename*=UTF-8''${encodedKey}.mp3`, expect: null },
      { disposition: `inline; filename="speech.mp3"`, expect: 'inline; filename="speech.mp3"' },
      { disposition: `attachment; filename="${KEY}.json"`, expect: 'attachment; filename="[redacted].json"', status: 400 },
    ];
    for (const c of cases) {
      upstream.handler = async (req, res) => {
        await readAll(req);
        const status = c.status ?? 200;
        const body = status === 200 ? 'audio' : JSON.stringify({ code: 'invalid_param', message: 'no', status });
        res.writeHead(status, { 'Content-Type': status === 200 ? `audio/mpeg; note=${KEY}` : 'application/json', 'Content-Disposition': c.disposition });
        res.end(body);
      };
      const response = await fetch(`${mounted.url}/text-to-audio`, { method: 'POST', headers: { ...bearer(token), 'Content-Type': 'application/json' }, body: '{"text":"hi"}' });
      assert.equal(response.status, c.status ?? 200);
      assert.equal(response.headers.get('content-disposition'), c.expect, c.disposition);
      if (!c.status) assert.equal(response.headers.get('content-type'), 'audio/mpeg; note=[redacted]');
      await assertKeyless(response);
    }
  });

  test('an error answer echoing the key in every place at once is scrubbed too', async () => {
    upstream.handler = async (req, res) => {
      await readAll(req);
      res.writeHead(500, { 'Content-Type': 'application/json', 'Content-Disposition': `inline; filename="${KEY}"` });
      res.end(JSON.stringify({ code: 'internal_server_error', message: `key ${KEY}`, status: 500 }));
    };
    const response = await get('/site');
    assert.equal(response.status, 500);
    const text = await responseText(response.clone());
    assert.match(text, /\[redacted\]/);
    await assertKeyless(response);
  });
});
