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

test('whatever the URL (script ends, comments, line and paragraph separators, quotes, backslashes), the snippet runs as written and asks exactly that URL', () => {
  const urls = [
    '/s</script><script>alert(1)</script>',
    '/s</SCRIPT >',
    '/s<!--<script>',
    '/s-->alert(1)//',
    '/s\u2028alert(1)\u2029',
    '/s\\";alert(1);//',
    "/s');alert(1);//",
    '/s`${alert(1)}`',
    '/s\\u0022);alert(1);//',
    '/s\r\nalert(1)',
    '/s\ud800',
    '/s?next=' + encodeURIComponent('</script>'),
    'javascript:alert(1)',
    "data:text/html,<script>alert(1)</script>",
  ];
  for (const url of urls) {
    const snippet = sessionSnippet(url);
    // One script element: `<` appears only in its own tags.
    assert.deepEqual(snippet.match(/</g), ['<', '<'], url);
    const asked: string[] = [];
    const window: { hitlSession?: (url: string) => unknown } = {};
    const context = {
      window,
      document: { baseURI: 'https://shop.example/page' },
      URL,
      fetch: (target: string) => (asked.push(target), Promise.resolve('answer')),
      alert: () => assert.fail(`the URL ran as script: ${url}`),
    };
    const body = snippet.replace(/^<script>\n/, '').replace(/<\/script>$/, '');
    new Function(...Object.keys(context), body)(...Object.values(context));
    assert.deepEqual(asked, [new URL(url, 'https://shop.example/page').href], url);
    assert.ok(window.hitlSession?.(asked[0]!), url);
    assert.equal(window.hitlSession?.(asked[0]!), null, 'the answer is handed over once');
  }
});
