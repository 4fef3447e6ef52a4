/**
 * The script-tag bundle as a customer site uses it: built by `npm run build`, served as a static
 * file next to pages that have no script of their own, against the sample host backend, in
 * Chromium.
 */
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import type { Browser } from 'playwright-core';
import { createHostBackend, type HostBackend } from '../../demo/host-backend.js';
import { sessionSnippet } from '../../src/relay/session-snippet.js';
import { launchChromium } from '../helpers/chromium.js';
import { collectProblems, firstTextbox, runFinished } from './helpers/forms.js';
import { builtPackage, REPO } from './helpers/package-build.js';
import { serveSite, type Site } from './helpers/site.js';

const FIXTURE = join(REPO, 'test/e2e/fixtures/distribution.json');

let backend: HostBackend;
let site: Site;
let browser: Browser;
let tags: string[];

const page = (head: string, body: string) =>
  `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>t</title><link rel="icon" href="data:,">${head}</head><body>${body}</body></html>`;

before(async () => {
  const pkg = await builtPackage();
  const manifest = JSON.parse(readFileSync(join(pkg, 'custom-elements.json'), 'utf8')) as { modules: { declarations?: { tagName?: string }[] }[] };
  tags = manifest.modules.flatMap((m) => m.declarations ?? []).flatMap((d) => (d.tagName ? [d.tagName] : []));
  backend = await createHostBackend({ servicePort: 0, fixturePath: FIXTURE });
  const script = '<script src="/hitl-elements.js"></script>';
  site = await serveSite(backend, {
    pages: {
      // Defined before the element is parsed, and the bundle loaded a second time.
      '/head-twice.html': page(script + script, '<human-input-form session-url="/api/session"></human-input-form>'),
      // An empty page, to create elements after the bundle ran.
      '/empty.html': page(script, '<main></main>'),
      // No snippet, and HTML in the page that names an element `hitlSession` (DOM clobbering).
      '/clobbered.html': page(script, '<a id="hitlSession" href="#">x</a><human-input-form session-url="/api/session"></human-input-form>'),
      // The session asked by the inline snippet, for an app the backend does not have.
      '/early-refused.html': page(sessionSnippet('/api/session?app=nope') + script, '<human-input-form session-url="/api/session?app=nope"></human-input-form>'),
    },
    // The bundle and the files beside it (its chunks, the term files), at the site's root.
    folders: {
      '/script-tag/': join(REPO, 'demo/script-tag'),
      ...Object.fromEntries(
        readdirSync(join(pkg, 'dist'))
          .filter((f) => /^hitl-elements\..*js$/.test(f))
          .map((f) => [`/${f}`, join(pkg, 'dist', f)]),
      ),
    },
  });
  browser = await launchChromium();
});

after(async () => {
  await browser?.close();
  await site?.close();
  await backend?.close();
});

test('the demo page with only the script tag: the element upgrades, takes its inputs from an attribute, and completes a run', async () => {
  const tab = await browser.newPage();
  const problems = collectProblems(tab);
  // The bundle held back, as a slow network would: the snippet's session request goes meanwhile.
  const sessions: string[] = [];
  tab.on('request', (request) => void (new URL(request.url()).pathname === '/api/session' && sessions.push(request.method())));
  await tab.route('**/hitl-elements.js', async (route) => {
    await new Promise((resolve) => setTimeout(resolve, 700));
    await route.continue();
  });
  await tab.goto(`${site.url}/script-tag/`);
  assert.deepEqual(await tab.locator('script[src]').evaluateAll((scripts) => scripts.map((s) => s.getAttribute('src'))), ['/hitl-elements.js'], 'the page loads a script of its own');

  const form = tab.locator('human-input-form');
  const comments = await firstTextbox(form);
  // The `inputs` attribute (JSON) reached the run: the drafted text names its version.
  await form.getByText('Version 3.0.0 brings faster uploads').waitFor({ timeout: 5_000 });
  await comments.fill('Ship it.');
  const finished = runFinished(tab);
  await form.getByRole('button', { name: 'Approve and publish' }).click();
  const outputs = await finished;
  assert.equal(outputs.result, 'published');
  assert.equal(outputs.comments, 'Ship it.');
  // One session request, the snippet's, sent before the bundle had arrived; the form took its answer.
  assert.deepEqual(sessions, ['POST']);
  const [session, bundle] = (await tab.evaluate(`['/api/session', '/hitl-elements.js'].map((path) => performance.getEntriesByType('resource').find((e) => new URL(e.name).pathname === path))`)) as { startTime: number; responseEnd: number }[];
  assert.ok(session!.startTime < bundle!.responseEnd, `the session was asked at ${session!.startTime} ms, the bundle arrived at ${bundle!.responseEnd} ms`);
  assert.deepEqual(problems, []);
  await tab.close();
});

test('an element the page names hitlSession is no snippet: the form asks for its session itself', async () => {
  const tab = await browser.newPage();
  const problems = collectProblems(tab);
  await tab.goto(`${site.url}/clobbered.html`);
  assert.equal(await tab.evaluate('typeof window.hitlSession'), 'object');
  await firstTextbox(tab.locator('human-input-form'));
  assert.deepEqual(problems, []);
  await tab.close();
});

test('a session the snippet asked for and was refused: the form shows the refusal, and asks once', async () => {
  const tab = await browser.newPage();
  const sessions: string[] = [];
  tab.on('request', (request) => void (new URL(request.url()).pathname === '/api/session' && sessions.push(request.url())));
  await tab.goto(`${site.url}/early-refused.html`);
  const alert = tab.locator('human-input-form').getByRole('alert');
  await alert.waitFor({ timeout: 5_000 });
  assert.match(await alert.innerText(), /No app "nope" here/);
  assert.equal(sessions.length, 1);
  await tab.close();
});

test('the bundle registers every element of the manifest; loaded twice, it does not throw', async () => {
  const tab = await browser.newPage();
  const problems = collectProblems(tab);
  await tab.goto(`${site.url}/head-twice.html`);
  assert.equal(await tab.locator('script[src="/hitl-elements.js"]').count(), 2);
  assert.ok(tags.length > 0);
  // The form and its first inputs register with the bundle; the rest when its chunk arrives.
  await tab.locator('body').evaluate(
    (body, names) =>
      Promise.race([
        Promise.all(names.map((n) => body.ownerDocument.defaultView!.customElements.whenDefined(n))),
        new Promise((_, reject) => setTimeout(() => reject(new Error('not every tag was defined within 10 s')), 10_000)),
      ]),
    tags,
  );
  // Parsed after the definition (the script is in <head>): the element works from the start.
  await firstTextbox(tab.locator('human-input-form'));
  assert.deepEqual(problems, []);
  await tab.close();
});

test('an element created after the bundle ran works, under any of the documented ways of making one', async () => {
  const tab = await browser.newPage();
  const problems = collectProblems(tab);
  await tab.goto(`${site.url}/empty.html`);
  await tab.locator('main').evaluate((main) => {
    main.insertAdjacentHTML('beforeend', '<human-input-form id="from-html" session-url="/api/session?app=5e0c7d41-2b6a-4f8e-b1c3-9d8e7f6a5b40"></human-input-form>');
    const made = main.ownerDocument.createElement('human-input-form');
    made.id = 'from-dom';
    made.setAttribute('session-url', '/api/session');
    main.append(made);
  });
  // The session URL picked the second app of the fixture: its form, its inputs.
  const expenses = tab.locator('#from-html');
  await firstTextbox(expenses);
  await expenses.getByText('An expense claim of 120 EUR waits for you.').waitFor({ timeout: 5_000 });
  await firstTextbox(tab.locator('#from-dom'));
  const finished = runFinished(tab, '#from-html');
  await expenses.getByRole('button', { name: 'Reject claim' }).click();
  assert.equal((await finished).result, 'rejected');
  assert.deepEqual(problems, []);
  await tab.close();
});
