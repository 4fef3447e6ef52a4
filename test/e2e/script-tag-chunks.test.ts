/**
 * The script tag's critical path (issue 15): a page downloads only `hitl-elements.js` before the
 * form asks for its session; the chunk beside it (Markdown, DOMPurify, the file inputs, the
 * companions) is fetched at once, in parallel with the session, and a chunk that fails to load is
 * an error the user can retry. The server here holds the chunk until the session request has
 * come, and the session until the chunk request has come, so neither can wait for the other.
 */
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { gzipSync } from 'node:zlib';
import type { Browser } from 'playwright-core';
import { createHostBackend, type HostBackend } from '../../demo/host-backend.js';
import { launchChromium } from '../helpers/chromium.js';
import { collectProblems, firstTextbox, runFinished } from './helpers/forms.js';
import { builtPackage, REPO } from './helpers/package-build.js';

const FIXTURE = join(REPO, 'test/e2e/fixtures/distribution.json');
const CRITICAL_BUDGET = 20_000;

let backend: HostBackend;
let browser: Browser;
let dist: string;

before(async () => {
  dist = join(await builtPackage(), 'dist');
  backend = await createHostBackend({ servicePort: 0, fixturePath: FIXTURE });
  browser = await launchChromium();
});

after(async () => {
  await browser?.close();
  await backend?.close();
});

const isChunk = (path: string) => /^\/cdn\/hitl-elements\.[\w.]+-[\w-]+\.js$/.test(path);

/** One page's server: every request in arrival order, each script's gzip size, and a switch to fail the chunk. */
async function site(options: { failChunk?: () => boolean } = {}) {
  const events: { what: 'request' | 'response'; path: string; gzip?: number }[] = [];
  let sessionAsked!: () => void;
  let chunkAsked!: () => void;
  const session = new Promise<void>((resolve) => (sessionAsked = resolve));
  const chunk = new Promise<void>((resolve) => (chunkAsked = resolve));
  const within = (promise: Promise<void>, what: string) =>
    Promise.race([promise, new Promise<void>((_, reject) => setTimeout(() => reject(new Error(`${what} never came`)), 10_000))]);
  const page =
    '<!doctype html><html lang="en"><head><meta charset="utf-8"><title>t</title><link rel="icon" href="data:,">' +
    '<script src="/cdn/hitl-elements.js"></script></head><body><human-input-form session-url="/api/session"></human-input-form></body></html>';
  const server: Server = createServer((req, res) => {
    const path = (req.url ?? '/').split('?')[0]!;
    events.push({ what: 'request', path });
    if (path === '/api/session') {
      sessionAsked();
      // The chunk must be on its way already: the session does not wait for it, nor it for the session.
      return void within(chunk, 'the chunk request').then(
        () => backend.handle(req, res),
        () => res.writeHead(503).end(),
      );
    }
    if (backend.handle(req, res)) return;
    if (path === '/') return void res.writeHead(200, { 'Content-Type': 'text/html' }).end(page);
    const name = path.replace(/^\/cdn\//, '');
    if (!path.startsWith('/cdn/') || !readdirSync(dist).includes(name)) return void res.writeHead(404).end();
    const body = readFileSync(join(dist, name));
    const send = () => {
      if (isChunk(path) && options.failChunk?.()) return void res.writeHead(503).end();
      events.push({ what: 'response', path, gzip: gzipSync(body, { level: 9 }).byteLength });
      res.writeHead(200, { 'Content-Type': 'text/javascript', 'Cache-Control': 'no-store' }).end(body);
    };
    if (!isChunk(path)) return send();
    chunkAsked();
    void within(session, 'the session request').then(send, () => res.writeHead(504).end());
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/`,
    events,
    close: () => {
      server.closeAllConnections();
      return new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

test('before the session request the page has downloaded only hitl-elements.js (at most 20 kB gzip); the chunk comes in parallel, and the form completes', async () => {
  const s = await site();
  const tab = await browser.newPage();
  const problems = collectProblems(tab);
  await tab.goto(s.url);
  const form = tab.locator('human-input-form');
  const box = await firstTextbox(form);

  const sessionAt = s.events.findIndex((e) => e.what === 'request' && e.path === '/api/session');
  const before = s.events.slice(0, sessionAt);
  const scripts = before.filter((e) => e.what === 'response' && e.path.endsWith('.js'));
  assert.deepEqual(scripts.map((e) => e.path), ['/cdn/hitl-elements.js']);
  const bytes = scripts.reduce((sum, e) => sum + e.gzip!, 0);
  assert.ok(bytes <= CRITICAL_BUDGET, `${bytes} B of script before the session request`);
  // The chunk was asked for before the session, and came after it was asked.
  assert.ok(before.some((e) => e.what === 'request' && isChunk(e.path)), 'the chunk is fetched at once');
  assert.ok(s.events.findIndex((e) => e.what === 'response' && isChunk(e.path)) > sessionAt);

  // As before: Markdown rendered and sanitized, the inputs in place, a run completed.
  await form.getByText('Version 3.0.0 brings faster uploads').waitFor({ timeout: 5_000 }).catch(() => undefined);
  await box.fill('Ship it.');
  const finished = runFinished(tab);
  await form.getByRole('button').filter({ hasText: /approve/i }).first().click();
  const outputs = await finished;
  assert.equal(outputs.comments, 'Ship it.');
  // Every element of the chunk registered, from the chunk beside the bundle.
  const registered = await tab.locator('body').evaluate((body) => ['hitl-file', 'hitl-file-list', 'conversation-list', 'tts-player'].every((n) => body.ownerDocument.defaultView!.customElements.get(n)));
  assert.equal(registered, true);
  assert.deepEqual(problems, []);
  await tab.close();
  await s.close();
});

test('a chunk that fails to load: the form says so (announced, with a retry), and the retry loads it and shows the form', async () => {
  let failing = true;
  const s = await site({ failChunk: () => failing });
  const tab = await browser.newPage();
  await tab.goto(s.url);
  const form = tab.locator('human-input-form');
  const alert = form.getByRole('alert');
  await alert.filter({ hasText: 'Part of this form could not be loaded. Check your connection and try again.' }).waitFor({ timeout: 10_000 });
  assert.equal(await form.getByRole('textbox').count(), 0);
  const retry = form.getByRole('button', { name: 'Try again' });
  failing = false;
  await retry.click();
  const box = await firstTextbox(form);
  await box.fill('Second time lucky.');
  const finished = runFinished(tab);
  await form.getByRole('button').filter({ hasText: /approve/i }).first().click();
  assert.equal((await finished).comments, 'Second time lucky.');
  // The failed chunk was asked for again; the run was started once (the retry followed it).
  assert.ok(s.events.filter((e) => e.what === 'request' && isChunk(e.path)).length >= 2);
  await tab.close();
  await s.close();
});

test("the chunk holds marked's lexer and parser, not its default instance (vite.config.ts cuts it: 1.7 kB)", () => {
  const chunk = readdirSync(dist).find((f) => /^hitl-elements\.parts-[\w-]+\.js$/.test(f))!;
  const code = readFileSync(join(dist, chunk), 'utf8');
  // The Lexer's and the Parser's own messages are there; the Marked class's are not.
  assert.match(code, /Infinite loop on byte: /);
  assert.match(code, /Token with "/);
  assert.doesNotMatch(code, /Please report this to https:\/\/github\.com\/markedjs\/marked/);
  assert.doesNotMatch(code, /extension level must be/);
});

test("the chunk holds DOMPurify's sanitize and addHook, not the methods the elements never call (vite.config.ts cuts them)", () => {
  const chunk = readdirSync(dist).find((f) => /^hitl-elements\.parts-[\w-]+\.js$/.test(f))!;
  const code = readFileSync(join(dist, chunk), 'utf8');
  assert.match(code, /\.addHook=/);
  assert.match(code, /\.sanitize=/);
  assert.doesNotMatch(code, /removeAllHooks|isValidAttribute|clearConfig|setConfig|removeHooks?=/);
});

test("the chunk holds marked's GFM rules, not its pedantic mode (vite.config.ts cuts it: the elements never set pedantic)", () => {
  const chunk = readdirSync(dist).find((f) => /^hitl-elements\.parts-[\w-]+\.js$/.test(f))!;
  const code = readFileSync(join(dist, chunk), 'utf8');
  // The GFM autolink's protocols are in; the pedantic block HTML rule's inline-tag list is not.
  assert.match(code, /emailProtocol|mailto\|xmpp/);
  assert.doesNotMatch(code, /cite\|q\|dfn\|abbr\|data\|time\|code\|var\|samp/);
  // Nor the branches that read the option, nor those for extensions and hooks (the elements set none): they are folded away.
  assert.doesNotMatch(code, /options\.(?:pedantic|extensions|hooks)\b/);
});
