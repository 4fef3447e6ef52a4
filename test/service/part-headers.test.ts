/**
 * The upload route's header watcher sees every part's headers however the body is cut into
 * chunks: a delimiter or a header end split between two reads, or a look-alike inside a file.
 */
import assert from 'node:assert/strict';
import { Readable } from 'node:stream';
import { test } from 'node:test';
import { PartHeaderWatcher } from '../../src/service/files/part-headers.js';
import { multipartBody } from '../relay/helpers.js';

const B = 'watcher-boundary-0123456789';

test('part headers are found at every cut between two chunks', async () => {
  const file = Buffer.alloc(150, 'x');
  file.write(`\r\n--${B.slice(0, 12)}`, 40);
  const body = multipartBody(B, [
    { headers: 'Content-Disposition: form-data; name="user"', body: 'sam' },
    { headers: 'Content-Disposition: form-data; name="file"; filename="a.bin"', body: file },
    { headers: 'Content-Disposition: form-data; name="other"; filename="b.bin"\r\nContent-Type: text/plain', body: 'b' },
  ]);
  const expected = [
    { name: 'user', hasContentType: false },
    { name: 'file', hasContentType: false },
    { name: 'other', hasContentType: true },
  ];
  for (let cut = 1; cut < body.length; cut++) {
    const watcher = new PartHeaderWatcher(B);
    const out: Buffer[] = [];
    await new Promise<void>((resolve, reject) => {
      Readable.from([body.subarray(0, cut), body.subarray(cut)]).pipe(watcher).on('data', (d: Buffer) => out.push(d)).on('end', resolve).on('error', reject);
    });
    assert.deepEqual(watcher.parts, expected, `cut at ${cut}`);
    assert.deepEqual(Buffer.concat(out), body);
  }
});
