/**
 * The one file-type table (`src/protocol/files.ts`): the kinds by extension, the MIME labels, the
 * service's classification on top of it, and the copy `<hitl-file>` ships held equal to it.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { FILE_EXTENSIONS, fileKindOf, MIME_TYPES } from '../../src/protocol/files.js';
import { fileTypeOf, mimeTypeOf } from '../../src/service/files/file-types.js';

describe('file types', () => {
  test('a kind by extension, custom for any other', () => {
    assert.equal(fileKindOf('png'), 'image');
    assert.equal(fileKindOf('pdf'), 'document');
    assert.equal(fileKindOf('mpga'), 'audio');
    assert.equal(fileKindOf('webm'), 'video');
    assert.equal(fileKindOf('exe'), 'custom');
    assert.equal(fileKindOf(''), 'custom');
    // Part of an entry is no extension of it.
    assert.equal(fileKindOf('jp'), 'custom');
    assert.equal(fileKindOf('jpg jpeg'), 'custom');
  });

  test('no extension has two kinds, and each listed one the service can label has its kind\'s MIME type', () => {
    const all = Object.values(FILE_EXTENSIONS).flatMap((list) => list.trim().split(' '));
    assert.equal(new Set(all).size, all.length);
    for (const [kind, list] of Object.entries(FILE_EXTENSIONS)) {
      for (const extension of list.trim().split(' ')) {
        const mime = MIME_TYPES[extension];
        if (mime && kind !== 'document') assert.ok(mime.startsWith(`${kind}/`), `${extension}: ${mime}`);
      }
    }
  });

  test('the service classifies by the table, then by MIME type', () => {
    assert.equal(fileTypeOf('png', 'application/octet-stream'), 'image');
    assert.equal(fileTypeOf('heic', 'image/heic'), 'image');
    assert.equal(fileTypeOf('log', 'text/plain'), 'document');
    assert.equal(fileTypeOf('bin', 'application/octet-stream'), 'custom');
    assert.equal(mimeTypeOf('md'), 'text/markdown');
    assert.equal(mimeTypeOf('bin'), undefined);
  });
});
