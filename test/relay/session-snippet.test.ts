/**
 * The inline snippet that asks for the session early: the README and the demo page print what
 * `sessionSnippet` makes (so the copies cannot drift from the function the tests run), and a URL
 * cannot end its script element.
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { test } from 'node:test';
import { sessionSnippet } from '../../src/relay/index.js';

const indented = (text: string, by: string) => text.split('\n').map((line) => (line ? by + line : line)).join('\n');

test('the README and the script-tag demo page print the snippet as sessionSnippet makes it', () => {
  assert.ok(readFileSync('README.md', 'utf8').includes(indented(sessionSnippet('/api/hitl/session'), '  ')), 'README: the snippet of "Ask for the session early"');
  assert.ok(readFileSync('demo/script-tag/index.html', 'utf8').includes(indented(sessionSnippet('/api/session'), '    ')), 'demo/script-tag/index.html');
});

test('a session URL is a JavaScript string in the snippet, and cannot close its script element', () => {
  const snippet = sessionSnippet('/s?a="b"</script><script>alert(1)</script>');
  assert.equal(snippet.match(/<\/script>/g)?.length, 1);
  assert.ok(snippet.endsWith('})("/s?a=\\"b\\"\\u003c/script>\\u003cscript>alert(1)\\u003c/script>");\n</script>'));
});
