/**
 * The script-tag build cuts marked down to what the elements run (vite.config.ts: no default
 * instance, no pedantic mode, no extension or hook branches). Built through the same plugins and
 * minifiers, marked must render what the untouched package renders with the elements' options.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { pathToFileURL } from 'node:url';
import { getDefaults, Lexer, Parser } from 'marked';
import { build } from 'vite';

const root = new URL('../..', import.meta.url).pathname;
const out = mkdtempSync(join(tmpdir(), 'marked-cut-'));
let cut: (markdown: string) => string;

before(async () => {
  await build({
    configFile: join(root, 'vite.config.ts'),
    root,
    logLevel: 'error',
    build: { outDir: out, emptyOutDir: true, sourcemap: false, lib: { entry: join(root, 'test/fixtures/bundle/markdown-to-html.ts'), formats: ['es'], fileName: () => 'markdown-to-html.js' } },
  });
  ({ markdownToHtml: cut } = (await import(pathToFileURL(join(out, 'markdown-to-html.js')).href)) as { markdownToHtml: typeof cut });
});
after(() => rmSync(out, { recursive: true, force: true }));

const untouched = (markdown: string) => {
  const options = { ...getDefaults(), gfm: true, breaks: true };
  return Parser.parse(Lexer.lex(markdown, options), options);
};

const SAMPLES = [
  '# Title\n\nSome *em* and **strong** and ***both*** and _u_ __uu__ ~~del~~ ~single~',
  '- a\n- b\n  - c\n1. one\n2) two\n\n* [ ] task\n* [x] done',
  '| a | b |\n|:-|-:|\n| 1 | 2 |\n| x \\| y | z |',
  '```js\nconst x = 1;\n```\n\n    indented code\n\n> quote\n> > nested',
  'Link [t](http://x.com "title") and <http://auto.link> and www.example.com and a@b.co and ![img](http://i/p.png)',
  'Line one\nline two  \nline three\\\nfour',
  '<div>html block</div>\n\n<span>inline</span> text <!-- c -->',
  'Heading\n===\n\nSub\n---\n\n***\n\n___',
  '[ref]: http://r.example "R"\n\nSee [ref] and [text][ref] and [ref][]',
  '**Your comment**\n\n<hitl-slot data-name="a" data-key="k"></hitl-slot>\n\nPick one: <hitl-slot data-name="b" data-key="k"></hitl-slot>',
  'Nested **bold *em* bold** and *em **strong** em* and foo*bar*baz and 5*3*2 and _snake_case_word_',
  'Escapes \\* \\_ \\# &amp; &copy; &#35; &#x23; < > " \'',
  '1. a\n\n   para\n\n2. b\n\n- [link](<url with spaces>)\n- `code ``span`` `',
  '# 日本語の見出し\n\n**太字**と*斜体*、「引用」',
  'a\n\n\n\nb\t\ttab\n\n  - x\n -y\n+ z',
  '<script>alert(1)</script>\n\n<img src=x onerror=alert(1)>\n\n[x](javascript:alert(1))',
];

test('the cut marked renders every sample as the untouched package does', () => {
  for (const sample of SAMPLES) assert.equal(cut(sample), untouched(sample), JSON.stringify(sample));
});
