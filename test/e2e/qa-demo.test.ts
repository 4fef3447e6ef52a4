/**
 * The QA demo page (`npm start`) in Chromium: scenarios from the fixture, the user picker, the live
 * event log, and the embedded service's QA controls driven from the page through the sample host
 * backend.
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import type { Browser, Page } from 'playwright-core';
import { startDemo, type RunningDemo } from '../../demo/server.js';
import { loadFixture } from '../../src/service/fixture.js';
import { launchChromium } from '../helpers/chromium.js';
import { E2E_FIXTURE } from './helpers/examples.js';
import { collectProblems, firstTextbox } from './helpers/forms.js';

let demo: RunningDemo;
let browser: Browser;

before(async () => {
  demo = await startDemo({ port: 0, servicePort: 0, fixturePath: E2E_FIXTURE });
  browser = await launchChromium();
});

after(async () => {
  await browser?.close();
  await demo?.close();
});

/** The service's own view (the test, on loopback, may ask its admin endpoint directly). */
async function serviceState(): Promise<{ settings: Record<string, unknown>; runs: { user: string; status: string }[] }> {
  return (await fetch(new URL('/_qa/state', new URL(demo.backend.upstreamUrl).origin))).json() as never;
}

async function openPage(): Promise<{ page: Page; problems: string[] }> {
  const page = await browser.newPage();
  const problems = collectProblems(page);
  await page.goto(demo.url);
  await firstTextbox(page.locator('human-input-form'));
  return { page, problems };
}

const logText = (page: Page) => page.locator('#log').innerText();

test('QA picks a scenario and a user; the run is that app\'s, with those inputs, for that user', async () => {
  const { page, problems } = await openPage();
  const fixture = await loadFixture(E2E_FIXTURE);
  const options = await page.getByLabel('App').locator('option').allInnerTexts();
  assert.deepEqual(options, fixture.apps.map((a) => `${a.name} (${a.mode})`));

  // The user: the page's stand-in for a login, which the backend puts in the session.
  await page.getByLabel('Signed in as').fill('qa-alice');
  await page.getByRole('button', { name: 'Switch user' }).click();
  await page.waitForLoadState('load');
  assert.equal(await page.getByLabel('Signed in as').inputValue(), 'qa-alice');

  // The scenario: the second app, with its run input (from GET /parameters) changed.
  await page.getByLabel('App').selectOption({ label: 'Expense approval (workflow)' });
  await page.getByLabel('Amount').fill('75 EUR');
  await page.getByRole('button', { name: 'New run', exact: true }).click();
  const form = page.locator('human-input-form');
  await form.getByText('An expense claim of 75 EUR waits for you.').waitFor({ timeout: 10_000 });
  await (await firstTextbox(form)).fill('Receipt attached.');
  await form.getByRole('button', { name: 'Approve claim' }).click();
  await page.locator('#log').getByText('workflow_finished succeeded').waitFor({ timeout: 10_000 });
  assert.ok((await serviceState()).runs.some((r) => r.user === 'qa-alice' && r.status === 'succeeded'), 'no finished run of qa-alice');
  assert.deepEqual(problems, []);
  await page.close();
});

test('a Chatflow scenario: the page sends the chat message, and the element follows the run it started', async () => {
  const { page, problems } = await openPage();
  await page.getByLabel('App').selectOption({ label: 'Support reply review (advanced-chat)' });
  await page.getByLabel('Chat message').fill('Where is my parcel?');
  await page.getByRole('button', { name: 'New run', exact: true }).click();
  const form = page.locator('human-input-form');
  await form.getByText('The customer wrote: Where is my parcel?').waitFor({ timeout: 10_000 });
  assert.match(await logText(page), /chat message sent; following run [0-9a-f-]{36}/);
  assert.equal(await form.evaluate((element) => element.runId.length > 0), true, 'the element does not follow a run id');
  await form.getByRole('button', { name: 'Send reply' }).click();
  await page.locator('#log').getByText('workflow_finished succeeded').waitFor({ timeout: 10_000 });
  assert.deepEqual(problems, []);
  await page.close();
});

test('"Expire the form now": the service times the form out and the element stops offering it', async () => {
  const { page, problems } = await openPage();
  const form = page.locator('human-input-form');
  const approve = form.getByRole('button', { name: 'Approve and publish' });
  await approve.waitFor();
  await page.getByRole('button', { name: 'Expire the form now' }).click();
  await page.getByRole('status').filter({ hasText: 'form expired' }).waitFor({ timeout: 5_000 });
  await page.locator('#log').getByText('human_input_form_timeout').waitFor({ timeout: 10_000 });
  await approve.waitFor({ state: 'detached', timeout: 5_000 });
  assert.equal(await page.getByRole('button', { name: 'Expire the form now' }).isDisabled(), true);
  assert.deepEqual(problems, []);
  await page.close();
});

test('a run whose stream drops: the element reconnects, shows the form once, and completes the run', async () => {
  const { page, problems } = await openPage();
  const reconnects: string[] = [];
  page.on('request', (r) => {
    if (/\/workflow\/[^/]+\/events\?/.test(r.url())) reconnects.push(r.url());
  });
  await page.getByLabel('Drop the stream after').fill('3');
  await page.getByRole('button', { name: 'New run with a dropped stream' }).click();
  const form = page.locator('human-input-form');
  await (await firstTextbox(form)).fill('Fine after a reconnect.');
  assert.ok(reconnects.some((url) => url.includes('include_state_snapshot=true')), 'the element did not reconnect with a state snapshot');
  const log = await logText(page);
  assert.match(log, /the next stream drops after 3 events/);
  assert.equal(log.match(/human_input_required/g)?.length, 1, 'the form was announced twice');
  // The cut was for one stream only: the service's setting is back to none.
  assert.equal((await serviceState()).settings.cutStreamAfter, null);
  await form.getByRole('button', { name: 'Approve and publish' }).click();
  await page.locator('#log').getByText('workflow_finished succeeded').waitFor({ timeout: 10_000 });
  assert.deepEqual(problems, []);
  await page.close();
});

test('latency and failing remote fetches are set on the service from the page; reset puts them back', async () => {
  const { page, problems } = await openPage();
  // The app without a drafting step: few events, so the added latency stays short.
  await page.getByLabel('App').selectOption({ label: 'Expense approval (workflow)' });
  await page.locator('#log').getByText('human_input_required').waitFor({ timeout: 10_000 });
  await page.getByLabel('Latency of every response (ms)').fill('300');
  await page.getByRole('button', { name: 'Apply' }).click();
  await page.getByRole('status').filter({ hasText: 'latency set to 300 ms' }).waitFor({ timeout: 5_000 });
  await page.getByLabel('Fail remote file fetches').check();
  await page.getByRole('status').filter({ hasText: 'remote file fetches fail' }).waitFor({ timeout: 5_000 });
  assert.deepEqual(
    { latency: (await serviceState()).settings.latencyMs, fail: (await serviceState()).settings.failRemoteFetch },
    { latency: 300, fail: true },
  );

  // Every response and run event now takes 300 ms more: the form of a new run takes longer than that.
  const started = Date.now();
  await page.getByRole('button', { name: 'New run', exact: true }).click();
  await page.locator('#log').getByText('human_input_required').waitFor({ timeout: 10_000 });
  assert.ok(Date.now() - started >= 300, `a new run showed its form in ${Date.now() - started} ms`);

  await page.getByRole('button', { name: 'Reset the service' }).click();
  await page.getByRole('status').filter({ hasText: 'service reset' }).waitFor({ timeout: 10_000 });
  assert.equal(await page.getByLabel('Latency of every response (ms)').inputValue(), '0');
  assert.equal(await page.getByLabel('Fail remote file fetches').isChecked(), false);
  const state = await serviceState();
  assert.deepEqual({ latency: state.settings.latencyMs, fail: state.settings.failRemoteFetch }, { latency: 0, fail: false });
  await firstTextbox(page.locator('human-input-form'));
  assert.deepEqual(problems, []);
  await page.close();
});

test('the QA routes take only the page\'s controls and never show an app key', async () => {
  const api = (path: string, init?: RequestInit) => fetch(new URL(path, demo.url), init);
  assert.equal((await api('/api/qa/state')).status, 404);
  assert.equal((await api('/api/qa/runs/x/cut-stream', { method: 'POST', body: '{"after":1}' })).status, 404);
  const bad = await api('/api/qa/cut-next-stream', { method: 'POST', body: '{"after":0}' });
  assert.deepEqual(await bad.json(), { code: 'invalid_param', message: 'after must be an integer of at least 1.', status: 400 });
  const apps = await (await api('/api/apps')).text();
  for (const app of (await loadFixture(E2E_FIXTURE)).apps) assert.ok(!apps.includes(app.key), `/api/apps shows ${app.key}`);
});
