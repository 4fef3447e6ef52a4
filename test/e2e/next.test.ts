/**
 * The Next.js example (demo/next, App Router): built with `next build` without RELAY_SECRET or
 * APP_API_KEY (the relay is created at the first request; the define modules are imported on the
 * server with no DOM), started with `next start` against the embedded service, type-checked,
 * and completed in Chromium: the form through the session and relay routes, and the
 * conversation list beside it.
 */
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { promisify } from 'node:util';
import type { Browser } from 'playwright-core';
import { loadFixture } from '../../src/service/fixture.js';
import { startService, type RunningService } from '../../src/service/server.js';
import { launchChromium } from '../helpers/chromium.js';
import { E2E_FIXTURE } from './helpers/examples.js';
import { collectProblems, firstTextbox } from './helpers/forms.js';
import { builtNextExample, startNextExample, type StartedNext } from './helpers/next-example.js';
import { REPO } from './helpers/package-build.js';

let service: RunningService;
let next: StartedNext;
let browser: Browser;
let dir: string;

before(async () => {
  const started = Date.now();
  const example = await builtNextExample();
  dir = example.dir;
  // What this file costs the suite: the build only when its inputs changed.
  console.log(`# next example: ${example.buildMs ? `built in ${(example.buildMs / 1000).toFixed(1)} s` : 'build reused'}, ready after ${((Date.now() - started) / 1000).toFixed(1)} s`);
  service = await startService({ fixture: await loadFixture(E2E_FIXTURE), port: 0 });
  next = await startNextExample(dir, { UPSTREAM_URL: service.url, APP_API_KEY: 'app-demo-workflow', RELAY_SECRET: randomBytes(32).toString('base64url') });
  browser = await launchChromium();
});

after(async () => {
  await browser?.close();
  await next?.close();
  await service?.close();
});

test('the example type-checks against the built package', async () => {
  await promisify(execFile)(join(REPO, 'node_modules/.bin/tsc'), ['-p', join(dir, 'tsconfig.json')]).catch((error: { stdout?: string }) => {
    assert.fail(`tsc found errors:\n${error.stdout}`);
  });
});

test('the session route refuses a visitor its authentication does not know', async () => {
  const answer = await fetch(`${next.url}/api/session`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}' });
  assert.equal(answer.status, 401);
});

test('a run is completed in the page, through the session and relay routes; the list says the app has no conversations', async () => {
  const context = await browser.newContext();
  await context.addCookies([{ name: 'demo-user', value: 'next-e2e', url: next.url }]);
  const page = await context.newPage();
  const problems = collectProblems(page);
  await page.goto(`${next.url}/`);
  const form = page.locator('human-input-form');
  await (await firstTextbox(form)).fill('Ship it.');
  await form.getByText('Version 3.0.0 brings faster uploads').waitFor({ timeout: 10_000 });
  await form.getByRole('button', { name: 'Approve and publish' }).click();
  const outputs = page.locator('#outputs');
  await outputs.waitFor({ timeout: 15_000 });
  const parsed = JSON.parse(await outputs.innerText()) as Record<string, unknown>;
  assert.equal(parsed.result, 'published');
  assert.equal(parsed.comments, 'Ship it.');
  // A workflow app keeps no conversations: the list says so instead of an upstream error.
  await page.locator('conversation-list').getByText('This app has no conversations').waitFor({ timeout: 10_000 });
  assert.deepEqual(problems, []);
  await context.close();
});
