/**
 * A bounded, deterministic fuzz pass over every route of the operation table: a thousand malformed requests
 * (wrong methods, mangled ids and queries, broken JSON and multipart, wrong types, truncated and
 * abandoned bodies) from a fixed seed. None may get a 5xx or end the process; every 4xx is
 * `{code, message, status}`. A failure prints the seed and the request, so it replays.
 */
import assert from 'node:assert/strict';
import { connect } from 'node:net';
import { after, before, test } from 'node:test';
import { startChildService, type ChildService } from './child-service.js';
import { operationList } from '../../src/protocol/operation-table.js';
import { seededRandom } from '../seeded-random.js';

const SEED = Number(process.env.FUZZ_SEED ?? 0x5eed12);
const REQUESTS = Number(process.env.FUZZ_REQUESTS ?? 1000);

/**
 * Every operation of the table, app side and knowledge side, so an operation added there is
 * fuzzed without a list to keep; `:id` stands for each path parameter.
 */
const TEMPLATES = operationList().map((op) => ({ ...op, template: op.path.replace(/\{\w+\}/g, ':id') }));
const ROUTES = TEMPLATES.map((op) => `${op.method} ${op.template}`);
/** Routes whose body is multipart (an upload, a document from a file). */
const MULTIPART = new Set(TEMPLATES.filter((op) => op.user === 'multipart' || /by[-_]file/.test(op.path)).map((op) => op.template));
const KEYS = ['app-demo-workflow', 'app-demo-chatflow', 'app-demo-chatbot', 'app-demo-agent', 'app-demo-text-generator', 'dataset-demo', 'app-nope', '', 'Bearer', '\u00ff'];
const IDS = ['00000000-0000-0000-0000-000000000000', 'not-a-uuid', '%', '%E0%A4%A', '..', '%2e%2e%2f', 'a'.repeat(2000), '💥', '0', '-1', 'null', '%00'];
const QUERIES = ['', '?user=', '?user=fuzz&limit=-1', '?user=fuzz&limit=abc', '?user=fuzz&last_id=%', '?user=fuzz&sort_by=nope', '?user=fuzz&first_id=x&limit=1e9', '?user[]=a&user[]=b', '?user=fuzz&conversation_id=%FF', `?user=${'u'.repeat(5000)}`];
const VALUES: unknown[] = [null, true, 0, -1, 1e308, 'x', '', 'a'.repeat(70_000), [], [[[[[]]]]], {}, { __proto__: { polluted: 1 } }, { constructor: { prototype: { x: 1 } } }, '\u0000', '\ud800'];
const FIELDS = ['question', 'answer', 'score_threshold', 'embedding_provider_name', 'embedding_model_name', 'keyword', 'status', 'page', 'document_ids', 'inputs', 'user', 'query', 'response_mode', 'conversation_id', 'files', 'action', 'name', 'auto_generate', 'value', 'rating', 'content', 'text', 'message_id', 'indexing_technique', 'streaming', 'voice'];

interface FuzzRequest {
  method: string;
  path: string;
  headers: Record<string, string>;
  body: Buffer | undefined;
  /** Send the head and part of the body, then leave. */
  abandon: boolean;
  /** Declare more bytes than are sent, then finish writing (the server waits, then the client leaves). */
  shortBody: boolean;
}

function generate(next: () => number): FuzzRequest {
  const pick = <T>(items: readonly T[]): T => items[Math.floor(next() * items.length)]!;
  const route = pick(ROUTES);
  let [method, template] = route.split(' ') as [string, string];
  if (next() < 0.1) method = pick(['GET', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS', 'HEAD']);
  const path = `/v1${template.replace(/:id/g, () => (next() < 0.5 ? crypto.randomUUID() : pick(IDS)))}${pick(QUERIES)}`;
  const headers: Record<string, string> = {};
  const key = pick(KEYS);
  if (next() < 0.9) headers.Authorization = next() < 0.9 ? `Bearer ${key}` : key;
  let body: Buffer | undefined;
  const kind = next();
  if (method === 'GET' || method === 'HEAD') {
    body = undefined;
  } else if (MULTIPART.has(template) || kind < 0.15) {
    const boundary = next() < 0.8 ? 'fz' : pick(['', '"unterminated', 'a'.repeat(200)]);
    headers['Content-Type'] = pick([`multipart/form-data; boundary=${boundary}`, 'multipart/form-data', 'multipart/mixed; boundary=fz', `multipart/form-data; boundary=${boundary}; boundary=other`]);
    const file = Buffer.alloc(Math.floor(next() * 5000), 'f');
    const full = Buffer.concat([
      Buffer.from(`--fz\r\nContent-Disposition: form-data; name="user"\r\n\r\nfuzz\r\n`),
      Buffer.from(`--fz\r\nContent-Disposition: form-data; name="${pick(['file', 'other', 'fi"le', ''])}"${pick(['; filename="a.txt"', '; filename=""', '; filename="../../etc/passwd"', "; filename*=UTF-8''%E2%82%AC.txt", ''])}\r\n${pick(['Content-Type: text/plain\r\n', '', 'Content-Type: \r\n', 'Content-Type: image/png\r\n'])}\r\n`),
      file,
      Buffer.from(pick(['\r\n--fz--\r\n', '\r\n--fz\r\n', '', '\r\n--fz--', '\r\n--fzfz--\r\n'])),
    ]);
    body = next() < 0.3 ? full.subarray(0, Math.floor(next() * full.length)) : full;
    if (next() < 0.2) body = Buffer.from(body.map((b) => (next() < 0.01 ? Math.floor(next() * 256) : b)));
  } else {
    headers['Content-Type'] = pick(['application/json', 'application/json; charset=utf-8', 'text/plain', 'application/x-www-form-urlencoded', '']);
    const object: Record<string, unknown> = {};
    const count = Math.floor(next() * 5);
    for (let i = 0; i < count; i++) object[pick(FIELDS)] = pick(VALUES);
    if (next() < 0.5) Object.assign(object, { inputs: {}, user: 'fuzz', query: 'q' });
    let text = JSON.stringify(object);
    const mangle = next();
    if (mangle < 0.15) text = text.slice(0, Math.floor(next() * text.length));
    else if (mangle < 0.25) text = pick(['', 'null', '[]', '"str"', '{"a":', '\u0000', '{"inputs": NaN}', '{'.repeat(5000) + '}'.repeat(5000)]);
    body = Buffer.from(text);
  }
  const cut = next();
  return { method, path, headers, body, abandon: body !== undefined && cut < 0.05, shortBody: body !== undefined && cut >= 0.05 && cut < 0.08 };
}

/** Sends one request on a raw connection (fetch would refuse the malformed ones); the answer's status and body. */
function send(origin: string, request: FuzzRequest): Promise<{ status: number; body: string } | undefined> {
  const { hostname, port } = new URL(origin);
  const body = request.body ?? Buffer.alloc(0);
  const declared = request.shortBody ? body.length + 100 : body.length;
  const head = [`${request.method} ${request.path} HTTP/1.1`, 'Host: 127.0.0.1', 'Connection: close', ...Object.entries(request.headers).map(([k, v]) => `${k}: ${v}`)];
  if (request.body !== undefined) head.push(`Content-Length: ${declared}`);
  return new Promise((resolve) => {
    const socket = connect(Number(port), hostname);
    const chunks: Buffer[] = [];
    let settled = false;
    const finish = () => {
      if (settled) return;
      settled = true;
      socket.destroy();
      const text = Buffer.concat(chunks).toString('utf8');
      const status = Number(/^HTTP\/1\.1 (\d{3})/.exec(text)?.[1]);
      if (!status) return resolve(undefined);
      const headerEnd = text.indexOf('\r\n\r\n');
      let payload = text.slice(headerEnd + 4);
      if (/transfer-encoding: chunked/i.test(text.slice(0, headerEnd))) payload = dechunk(payload);
      resolve({ status, body: payload });
    };
    socket.on('data', (d) => chunks.push(d));
    socket.on('error', () => {});
    socket.on('close', finish);
    // Streams (runs in streaming mode) stay open: the status line and the first bytes are enough.
    const timer = setTimeout(finish, 1500);
    socket.on('close', () => clearTimeout(timer));
    socket.on('connect', () => {
      socket.write(`${head.join('\r\n')}\r\n\r\n`);
      if (request.abandon) {
        socket.write(body.subarray(0, Math.floor(body.length / 2)), () => socket.destroy());
        return;
      }
      socket.write(body);
      if (request.shortBody) setTimeout(finish, 300);
    });
  });
}

function dechunk(payload: string): string {
  let out = '';
  let rest = payload;
  for (;;) {
    const line = rest.indexOf('\r\n');
    if (line < 0) return out + rest;
    const size = parseInt(rest.slice(0, line), 16);
    if (!size) return out;
    out += rest.slice(line + 2, line + 2 + size);
    rest = rest.slice(line + 4 + size);
  }
}

let service: ChildService;

before(async () => {
  service = await startChildService();
});

after(async () => {
  await service?.stop();
});

test(`${REQUESTS} malformed requests (seed ${SEED}): no 5xx, no crash, every 4xx in shape`, async () => {
  const next = seededRandom(SEED);
  const problems: string[] = [];
  let answered = 0;
  for (let i = 0; i < REQUESTS; i++) {
    const request = generate(next);
    const answer = await send(service.origin, request);
    const what = `#${i} ${request.method} ${request.path.slice(0, 120)} ${JSON.stringify(request.headers)} ${request.body?.subarray(0, 120).toString('latin1') ?? ''}`;
    if (service.exited()) assert.fail(`the service ended at ${what}\n${service.output()}`);
    if (!answer || request.abandon || request.shortBody) continue;
    answered++;
    if (answer.status >= 500) problems.push(`${answer.status} for ${what}: ${answer.body.slice(0, 300)}`);
    else if (answer.status >= 400 && request.method !== 'HEAD') {
      let parsed: unknown;
      try {
        parsed = JSON.parse(answer.body);
      } catch {
        parsed = undefined;
      }
      const shaped = parsed !== null && typeof parsed === 'object' && Object.keys(parsed).sort().join() === 'code,message,status' && (parsed as { status: number }).status === answer.status;
      if (!shaped) problems.push(`unshaped ${answer.status} for ${what}: ${answer.body.slice(0, 300)}`);
    }
  }
  assert.equal(service.exited(), undefined, service.output());
  assert.ok(answered > REQUESTS / 2, `only ${answered} answers`);
  assert.deepEqual(problems, [], `seed ${SEED}`);
});
