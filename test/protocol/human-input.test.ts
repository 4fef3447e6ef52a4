// submitRefusal: the one place that reads what a refused form submission blames from the real
// service's message text (it has no structured field for it).
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { submitRefusal } from '../../src/protocol/index.js';

test('missing inputs are named, and marked missing', () => {
  assert.deepEqual(submitRefusal('Missing required inputs: comments, size'), { inputs: ['comments', 'size'], missing: true, linkFailed: false });
});

test('one invalid input is named; a link the service could not fetch is told apart', () => {
  assert.deepEqual(submitRefusal("Invalid value for select input 'size': XL"), { inputs: ['size'], missing: false, linkFailed: false });
  assert.deepEqual(submitRefusal("Invalid value for file input 'report': Failed to fetch remote file https://example.com/a.pdf: HTTP 404"), {
    inputs: ['report'],
    missing: false,
    linkFailed: true,
  });
});

test('a message that names no input blames none', () => {
  assert.deepEqual(submitRefusal('Form data is invalid.'), { inputs: [], missing: false, linkFailed: false });
});
