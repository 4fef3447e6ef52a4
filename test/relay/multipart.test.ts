/**
 * The streaming multipart rewriter on its own: fed bodies split at every byte, checked with the
 * platform's own multipart parser (undici's `Response.formData()`), so the relay's parser is
 * never its own judge.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { formDataBoundary, indexOf, MultipartError, rewriteMultipartUser } from '../../src/relay/multipart.js';
import { multipartBody, parseFormData } from './helpers.js';

const B = 'WebKitFormBoundary7MA4YWxkTrZu0gW';

function streamOf(body: Uint8Array, chunkSize: number): ReadableStream<Uint8Array> {
  let offset = 0;
  return new ReadableStream({
    pull(controller) {
      if (offset >= body.length) return controller.close();
      controller.enqueue(body.slice(offset, offset + chunkSize));
      offset += chunkSize;
    },
  });
}

async function rewrite(body: Uint8Array, user = 'alice', chunkSize = body.length || 1, maxBytes = 1 << 20): Promise<{ bytes: Buffer; contentType: string }> {
  const result = rewriteMultipartUser(streamOf(body, chunkSize), B, user, { maxBytes });
  const bytes = Buffer.from(await new Response(result.body).arrayBuffer());
  return { bytes, contentType: result.contentType };
}

async function rewriteError(body: Uint8Array, maxBytes = 1 << 20, chunkSize = 7): Promise<MultipartError> {
  const result = rewriteMultipartUser(streamOf(body, chunkSize), B, 'alice', { maxBytes });
  await assert.rejects(new Response(result.body).arrayBuffer());
  assert.ok(result.failure instanceof MultipartError, 'the failure is recorded');
  return result.failure;
}

const filePart = (content: string | Uint8Array, name = 'file', filename = 'notes.txt') => ({
  headers: `Content-Disposition: form-data; name="${name}"; filename="${filename}"\r\nContent-Type: text/plain`,
  body: content,
});
const field = (name: string, value: string) => ({ headers: `Content-Disposition: form-data; name="${name}"`, body: value });

describe('formDataBoundary', () => {
  test('reads the boundary of multipart/form-data, quoted or not', () => {
    assert.equal(formDataBoundary(`multipart/form-data; boundary=${B}`), B);
    assert.equal(formDataBoundary(`Multipart/Form-Data;boundary="${B}"`), B);
    assert.equal(formDataBoundary(`multipart/form-data; charset=utf-8; boundary=abc`), 'abc');
  });
  test('refuses other types, missing, repeated or invalid boundaries', () => {
    for (const value of [
      null,
      'application/json',
      'multipart/mixed; boundary=abc',
      'multipart/form-data',
      'multipart/form-data; boundary=',
      'multipart/form-data; boundary=a; boundary=b',
      `multipart/form-data; boundary=${'x'.repeat(71)}`,
      'multipart/form-data; boundary="a\\"b"',
      'multipart/form-data; boundary="ends with space "',
    ]) {
      assert.equal(formDataBoundary(value), undefined, String(value));
    }
  });
});

describe('rewriteMultipartUser', () => {
  test('puts the session user first and passes every other part through byte for byte, at every chunk split', async () => {
    const binary = new Uint8Array(3000).map((_, i) => (i * 7919) % 256);
    // Bytes that look like the start of a delimiter, inside the file.
    binary.set(Buffer.from(`\r\n--${B.slice(0, 20)}`), 1000);
    binary.set(Buffer.from('\r\n\r\n--'), 2000);
    const body = multipartBody(B, [field('note', 'hello'), filePart(binary, 'file', 'data.bin'), field('user', 'mallory')]);
    for (const chunkSize of [1, 2, 3, 5, 13, 64, 71, 1024, body.length]) {
      const { bytes, contentType } = await rewrite(body, 'alice', chunkSize);
      const form = await parseFormData(bytes, contentType);
      assert.deepEqual(form.getAll('user'), ['alice'], `chunk ${chunkSize}`);
      assert.equal(form.get('note'), 'hello');
      const file = form.get('file') as File;
      assert.equal(file.name, 'data.bin');
      assert.equal(file.type, 'text/plain');
      assert.deepEqual(new Uint8Array(await file.arrayBuffer()), binary, `chunk ${chunkSize}`);
      assert.deepEqual([...form.keys()], ['user', 'note', 'file']);
    }
  });

  test('a delimiter or a look-alike cut at any byte between two large chunks is found (the seam between reads)', async () => {
    const binary = new Uint8Array(200).map((_, i) => (i * 31) % 256);
    binary.set(Buffer.from(`\r\n--${B.slice(0, 30)}`), 60);
    const body = multipartBody(B, [field('note', 'hi'), filePart(binary, 'file', 'seam.bin')]);
    const twoChunks = (cut: number) =>
      new ReadableStream<Uint8Array>({
        start(controller) {
          controller.enqueue(body.slice(0, cut));
          controller.enqueue(body.slice(cut));
          controller.close();
        },
      });
    for (let cut = 1; cut < body.length; cut++) {
      const result = rewriteMultipartUser(twoChunks(cut), B, 'alice', { maxBytes: 1 << 20 });
      const form = await parseFormData(Buffer.from(await new Response(result.body).arrayBuffer()), result.contentType);
      assert.equal(form.get('note'), 'hi', `cut at ${cut}`);
      assert.deepEqual(new Uint8Array(await (form.get('file') as File).arrayBuffer()), binary, `cut at ${cut}`);
    }
  });

  test('the output uses its own random boundary', async () => {
    const body = multipartBody(B, [filePart('x')]);
    const a = await rewrite(body);
    const b = await rewrite(body);
    assert.match(a.contentType, /^multipart\/form-data; boundary=----relay[0-9a-f]{32}$/);
    assert.notEqual(a.contentType, b.contentType);
    assert.ok(!a.bytes.includes(B));
  });

  test('drops every spelling of a user field a lenient server might read as `user`', async () => {
    const body = multipartBody(B, [
      field('user', 'one'),
      { headers: 'content-disposition: form-data; name=user', body: 'two' },
      field('User', 'three'),
      field('us%65r', 'four'),
      field(' user', 'five'),
      { headers: 'Content-Disposition: form-data; name="user"; filename="user.txt"', body: 'six' },
      field('username', 'kept'),
      filePart('payload'),
      field('user', 'seven'),
      field('user[]', 'eight'),
      field('USER[id]', 'nine'),
      field('u\u017fer', 'ten'),
    ]);
    const { bytes, contentType } = await rewrite(body, 'alice', 9);
    const form = await parseFormData(bytes, contentType);
    assert.deepEqual(form.getAll('user'), ['alice']);
    assert.deepEqual([...form.keys()], ['user', 'username', 'file']);
    assert.equal(form.get('username'), 'kept');
    for (const leaked of ['one', 'two', 'three', 'four', 'five', 'six', 'seven', 'eight', 'nine', 'ten']) assert.ok(!bytes.includes(`\r\n${leaked}\r\n`), leaked);
  });

  test('a preamble, transport padding and an epilogue are tolerated; an empty form still carries the user', async () => {
    const inner = multipartBody(B, [filePart('abc')]).toString('latin1').replace(`--${B}\r\n`, `--${B}  \t\r\n`);
    const body = Buffer.from(`This is a preamble.\r\n${inner}epilogue text\r\n`, 'latin1');
    const { bytes, contentType } = await rewrite(body, 'alice', 4);
    const form = await parseFormData(bytes, contentType);
    assert.equal(await (form.get('file') as File).text(), 'abc');
    const empty = await rewrite(Buffer.from(`--${B}--\r\n`));
    assert.deepEqual([...(await parseFormData(empty.bytes, empty.contentType)).entries()], [['user', 'alice']]);
  });

  test('ambiguous or malformed part headers are refused, not guessed', async () => {
    const cases: [string, { headers: string; body: string }[] | Buffer][] = [
      ['folded header', [{ headers: 'Content-Disposition: form-data;\r\n name="user"', body: 'x' }]],
      ['two dispositions', [{ headers: 'Content-Disposition: form-data; name="file"\r\nContent-Disposition: form-data; name="user"', body: 'x' }]],
      ['repeated name', [{ headers: 'Content-Disposition: form-data; name="file"; name="user"', body: 'x' }]],
      ['RFC 2231 name', [{ headers: "Content-Disposition: form-data; name*=utf-8''user", body: 'x' }]],
      ['escaped quote', [{ headers: 'Content-Disposition: form-data; name="us\\"er"', body: 'x' }]],
      ['backslash in file name', [{ headers: 'Content-Disposition: form-data; name="file"; filename="a\\b.txt"', body: 'x' }]],
      ['no disposition', [{ headers: 'Content-Type: text/plain', body: 'x' }]],
      ['no name', [{ headers: 'Content-Disposition: form-data; filename="a.txt"', body: 'x' }]],
      ['not form-data', [{ headers: 'Content-Disposition: attachment; name="file"', body: 'x' }]],
      ['header without colon', [{ headers: 'Content-Disposition form-data; name="file"', body: 'x' }]],
      ['bad content type', [{ headers: 'Content-Disposition: form-data; name="file"\r\nContent-Type: text/plain\u0001', body: 'x' }]],
      // Copied into the rewritten headers, a bare LF would start a header line of the browser's writing.
      ['line feed in a quoted type parameter', [{ headers: 'Content-Disposition: form-data; name="file"\r\nContent-Type: text/plain; a="x\ny"', body: 'x' }]],
      ['carriage return in a quoted type parameter', [{ headers: 'Content-Disposition: form-data; name="file"\r\nContent-Type: text/plain; a="x\ry"', body: 'x' }]],
      ['NUL in a quoted type parameter', [{ headers: 'Content-Disposition: form-data; name="file"\r\nContent-Type: text/plain; a="\u0000"', body: 'x' }]],
      ['vertical tab between type parameters', [{ headers: 'Content-Disposition: form-data; name="file"\r\nContent-Type: text/plain;\u000bq=1', body: 'x' }]],
      ['two content types', [{ headers: 'Content-Disposition: form-data; name="file"\r\nContent-Type: text/plain\r\nContent-Type: image/png', body: 'x' }]],
      ['truncated', Buffer.from(`--${B}\r\nContent-Disposition: form-data; name="file"\r\n\r\nno closing boundary`)],
      ['garbage after delimiter', Buffer.from(`--${B}XYZ\r\n`)],
      ['no delimiter at all', Buffer.from('just some bytes')],
      ['headers too long', [{ headers: `Content-Disposition: form-data; name="file"\r\nX-Pad: ${'a'.repeat(9000)}`, body: 'x' }]],
      ['too many parts', Array.from({ length: 17 }, (_, i) => field(`f${i}`, 'x'))],
    ];
    for (const [what, parts] of cases) {
      const body = Buffer.isBuffer(parts) ? parts : multipartBody(B, parts);
      for (const chunkSize of [7, body.length]) {
        const error = await rewriteError(body, 1 << 20, chunkSize);
        assert.equal(error.status, 400, `${what}, chunks of ${chunkSize}`);
      }
    }
  });

  test('the header and padding limits answer the same however the chunks fall', async () => {
    // A header block of exactly the limit is accepted, even when a read ends inside its blank line.
    const head = `--${B}\r\nContent-Disposition: form-data; name="f"\r\nX: `;
    const block = `Content-Disposition: form-data; name="f"\r\nX: ${'a'.repeat(8192 - 45)}`;
    assert.equal(block.length, 8192);
    const atLimit = Buffer.from(`${head}${'a'.repeat(8192 - 45)}\r\n\r\nhello\r\n--${B}--\r\n`);
    // More than 64 spaces after a boundary is refused, even when a read ends right after them.
    const padded = Buffer.from(`--${B}${' '.repeat(65)}\r\nContent-Disposition: form-data; name="f"\r\n\r\nhello\r\n--${B}--\r\n`);
    for (const [body, cut, accepted] of [
      [atLimit, atLimit.indexOf('\r\n\r\n') + 1, true],
      [atLimit, atLimit.indexOf('\r\n\r\n') + 3, true],
      [padded, B.length + 2 + 65, false],
    ] as const) {
      for (const chunks of [[body], [body.subarray(0, cut), body.subarray(cut)]]) {
        let offset = 0;
        const source = new ReadableStream<Uint8Array>({ pull: (controller) => (offset < chunks.length ? controller.enqueue(chunks[offset++]!) : controller.close()) });
        const result = rewriteMultipartUser(source, B, 'alice', { maxBytes: 1 << 20 });
        const read = new Response(result.body).arrayBuffer();
        if (accepted) await read;
        else assert.equal((await read.then(() => undefined, () => result.failure))?.status, 400, `${chunks.length} chunk(s)`);
      }
    }
  });

  test('long part names cost time in proportion to their length (the user-field check)', async () => {
    // 16 names of 8,000 `[` once took 1.7 s of one core: a trailing-bracket pattern backtracked from every start.
    const body = multipartBody(B, Array.from({ length: 16 }, () => field('['.repeat(8000), 'x')));
    const started = performance.now();
    const { bytes, contentType } = await rewrite(body);
    assert.ok(performance.now() - started < 400, `${Math.round(performance.now() - started)} ms`);
    assert.equal((await parseFormData(bytes, contentType)).getAll('['.repeat(8000)).length, 16);
  });

  test('the byte limit stops reading as soon as it is passed', async () => {
    const body = multipartBody(B, [filePart('x'.repeat(10_000))]);
    let pulled = 0;
    let offset = 0;
    const source = new ReadableStream<Uint8Array>({
      pull(controller) {
        if (offset >= body.length) return controller.close();
        pulled += 1000;
        controller.enqueue(body.subarray(offset, offset + 1000));
        offset += 1000;
      },
    });
    const result = rewriteMultipartUser(source, B, 'alice', { maxBytes: 4000 });
    await assert.rejects(new Response(result.body).arrayBuffer());
    assert.equal(result.failure?.status, 413);
    assert.match(result.failure!.message, /4000 byte limit/);
    assert.ok(pulled <= 6000, `read ${pulled} bytes of ${body.length}`);
  });

  test('indexOf finds needles across repeated first bytes', () => {
    const hay = Buffer.from('\r\r\n\r\n-\r\n--b\r\n--bo');
    assert.equal(indexOf(hay, Buffer.from('\r\n--bo')), hay.length - 6);
    assert.equal(indexOf(hay, Buffer.from('\r\n--bx')), -1);
    assert.equal(indexOf(Buffer.from('ab'), Buffer.from('abc')), -1);
  });
});
