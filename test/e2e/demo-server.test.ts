/**
 * What `npm start` serves beside the QA page: the start-up line with every example's URL, and the
 * script-tag example (`/script-tag/`), which before `npm run build` says on the page what to do and
 * after it is served with the locale files built beside the bundle, so it works in the shipped
 * languages too. The bundle folder is a temporary one, empty at first and then filled from the
 * shared test build, so a developer's own `dist/` plays no part.
 */
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { copyFileSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { axeViolations } from './helpers/axe.js';
import { E2E_FIXTURE } from './helpers/examples.js';
import { collectProblems, firstTextbox } from './helpers/forms.js';
import { builtPackage, REPO } from './helpers/package-build.js';
import { useDemo } from './helpers/qa-page.js';

const BESIDE_THE_BUNDLE = ['hitl-elements.ja.js', 'hitl-elements.zh-Hans.js', 'hitl-elements.companions.ja.js', 'hitl-elements.companions.zh-Hans.js'];

let bundleDir = '';

// The bundle's folder is made first (empty: no build yet), then the demo serves it.
const site = useDemo(() => {
  bundleDir = mkdtempSync(join(tmpdir(), 'hitl-demo-bundle-'));
  return { fixturePath: E2E_FIXTURE, bundleDir };
});

after(() => {
  if (bundleDir) rmSync(bundleDir, { recursive: true, force: true });
});

test('before a build: the page says on screen to run npm run build, and is otherwise sound (axe)', async () => {
  const page = await site.browser.newPage();
  await page.goto(new URL('script-tag/', site.demo.url).href);
  const notice = page.getByRole('alert');
  await notice.waitFor({ timeout: 10_000 });
  assert.match(await notice.innerText(), /^Run npm run build first: the script-tag page loads dist\/hitl-elements\.js\. Then reload this page\.$/);
  assert.equal((await fetch(new URL('hitl-elements.js', site.demo.url))).status, 404);
  assert.deepEqual(await axeViolations(page), []);
  await page.close();
});

test('after a build: the bundle and its locale files are served, and lang="ja" reads Japanese', async () => {
  const dist = join(await builtPackage(), 'dist');
  for (const file of readdirSync(dist).filter((f) => f.startsWith('hitl-elements.'))) copyFileSync(join(dist, file), join(bundleDir, file));
  for (const file of ['hitl-elements.js', 'hitl-elements.js.map', ...BESIDE_THE_BUNDLE]) {
    const answer = await fetch(new URL(file, site.demo.url));
    assert.equal(answer.status, 200, `${file}: ${answer.status}`);
    assert.match(answer.headers.get('content-type') ?? '', file.endsWith('.map') ? /json/ : /javascript/, file);
  }

  const page = await site.browser.newPage();
  const problems = collectProblems(page);
  const loaded: string[] = [];
  page.on('response', (r) => loaded.push(`${new URL(r.url()).pathname} ${r.status()}`));
  await page.goto(new URL('script-tag/', site.demo.url).href);
  // Served as a static site would serve it: no script but the session snippet and the bundle (no dev-server client).
  const scripts = await page.locator('script').evaluateAll((all) => all.map((s) => s.getAttribute('src') ?? (s.textContent!.includes('window.hitlSession') ? 'the session snippet' : s.textContent)));
  assert.deepEqual(scripts, ['the session snippet', '/hitl-elements.js']);
  const form = page.locator('human-input-form');
  await firstTextbox(form);
  // The page in Japanese, as a Japanese site would have it (the element follows the change).
  await page.locator('html').evaluate((html) => html.setAttribute('lang', 'ja'));
  // The element's own words (the status line, the time left), not the app's content.
  await form.getByText(/入力してください。|残り時間/).first().waitFor({ timeout: 10_000 });
  assert.ok(loaded.includes('/hitl-elements.ja.js 200'), `the Japanese terms were not loaded: ${loaded.join(', ')}`);
  assert.equal(await page.getByRole('alert').count(), 0, 'the build notice stays after the build');
  assert.deepEqual(await axeViolations(page), []);
  assert.deepEqual(problems, []);
  await page.close();
});

test('npm start prints the demo\'s URL and every example\'s, and each answers', async () => {
  const child = spawn(process.execPath, ['--import', 'tsx', 'demo/server.ts'], { cwd: REPO, env: { ...process.env, PORT: '0', SERVICE_PORT: '0' } });
  try {
    const line = await new Promise<string>((resolve, reject) => {
      let out = '';
      child.stdout.on('data', (chunk: Buffer) => {
        out += chunk;
        const found = /^Demo: .*$/m.exec(out);
        if (found) resolve(found[0]);
      });
      child.once('exit', (code) => reject(new Error(`npm start exited (${code}): ${out}`)));
    });
    const urls = line.match(/http:\/\/[^\s)]+/g) ?? [];
    assert.deepEqual(urls.map((url) => new URL(url).pathname), ['/', '/react/', '/vue/', '/esm/', '/script-tag/']);
    for (const url of urls) assert.equal((await fetch(url)).status, 200, url);
  } finally {
    const exited = new Promise((resolve) => child.once('exit', resolve));
    child.kill('SIGTERM');
    await exited;
  }
});
