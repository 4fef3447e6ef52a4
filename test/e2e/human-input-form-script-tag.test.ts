/**
 * The script-tag bundle's languages: English is built in; another language is a file beside the
 * bundle, loaded the first time a page needs it, wherever the bundle is hosted.
 */
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import type { Browser } from 'playwright-core';
import { createHostBackend, type HostBackend } from '../../demo/host-backend.js';
import { launchChromium } from '../helpers/chromium.js';
import { collectProblems } from './helpers/forms.js';
import { builtPackage, REPO } from './helpers/package-build.js';
import { serveSite, type Site } from './helpers/site.js';

let backend: HostBackend;
let site: Site;
let browser: Browser;

const page = (lang: string) =>
  `<!doctype html><html lang="${lang}"><head><meta charset="utf-8"><title>t</title><link rel="icon" href="data:,">` +
  '<script src="/cdn/v1/hitl-elements.js"></script></head>' +
  '<body><human-input-form session-url="/api/session?app=hitl-simple"></human-input-form></body></html>';

before(async () => {
  const pkg = await builtPackage();
  backend = await createHostBackend({ servicePort: 0, fixturePath: join(REPO, 'test/fixtures/browser.json') });
  site = await serveSite(backend, {
    pages: { '/ja.html': page('ja'), '/zh.html': page('zh-CN'), '/en.html': page('en') },
    folders: { '/cdn/v1/': join(pkg, 'dist') },
  });
  browser = await launchChromium();
});

after(async () => {
  await browser?.close();
  await site?.close();
  await backend?.close();
});

for (const [path, file, ready] of [
  ['/ja.html', 'hitl-elements.ja.js', '入力してください。'],
  ['/zh.html', 'hitl-elements.zh-Hans.js', '请填写表单。'],
  ['/en.html', '', 'Ready for your input.'],
] as const) {
  test(`${path}: the form speaks the page's language${file ? `, from ${file} beside the bundle` : ', with no extra file'}`, async () => {
    const tab = await browser.newPage();
    const problems = collectProblems(tab);
    const scripts: string[] = [];
    tab.on('request', (r) => {
      if (r.url().endsWith('.js')) scripts.push(new URL(r.url()).pathname);
    });
    await tab.goto(site.url + path);
    await tab.locator('human-input-form').getByRole('status').filter({ hasText: ready }).waitFor({ timeout: 10_000 });
    // The bundle, the chunk beside it (fetched at once, whatever the language), and the language's terms.
    assert.deepEqual(scripts.map((s) => s.replace(/parts-[\w-]+\.js$/, 'parts.js')).sort(), ['/cdn/v1/hitl-elements.js', '/cdn/v1/hitl-elements.parts.js', ...(file ? [`/cdn/v1/${file}`] : [])].sort());
    assert.deepEqual(problems, []);
    await tab.close();
  });
}
