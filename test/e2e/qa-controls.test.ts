/**
 * The QA demo page's controls in Chromium, driven from the page through the sample host backend to
 * the embedded service: expire the form, fail the run, drop the stream, latency, failing remote
 * fetches, reset.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { firstTextbox } from './helpers/forms.js';
import { useQaPage } from './helpers/qa-page.js';

const qa = useQaPage();
const { serviceState, openPage, logText } = qa;

test('"Expire the form now": the service times the form out and the element stops offering it', async () => {
  const { page, problems } = await openPage();
  const form = page.locator('human-input-form');
  const approve = form.getByRole('button', { name: 'Approve and publish' });
  await approve.waitFor();
  await page.getByRole('button', { name: 'Expire the form now' }).click();
  await page.getByRole('status').filter({ hasText: 'form expired' }).waitFor({ timeout: 5_000 });
  await page.locator('#log').getByText('human_input_form_timeout').waitFor({ timeout: 10_000 });
  await approve.waitFor({ state: 'detached', timeout: 5_000 });
  await page.getByRole('button', { name: 'Expire the form now', disabled: true }).waitFor({ timeout: 5_000 });
  // The status line told of that run: the next one starts without it.
  await page.getByRole('button', { name: 'New run', exact: true }).click();
  await firstTextbox(page.locator('human-input-form'));
  assert.equal(await page.locator('#qa-status').textContent(), '');
  assert.deepEqual(problems, []);
  await page.close();
});

test('"Fail the run": the run ends as failed, and the element says so', async () => {
  const { page, problems } = await openPage();
  const finished = page.locator('human-input-form').evaluate(
    (element) => new Promise<{ status: string; error: string }>((resolve) => element.addEventListener('run-finished', (e: { result: { status: string; error: string } }) => resolve(e.result), { once: true })),
  );
  const typed = await firstTextbox(page.locator('human-input-form'));
  await typed.fill('Half-written answer');
  await page.getByRole('button', { name: 'Fail the run' }).click();
  await page.getByRole('status').filter({ hasText: 'run failed' }).waitFor({ timeout: 5_000 });
  // A Workflow's failure is its failed `workflow_finished` (Dify's workflow pipeline sends no
  // `error` after it): the element ends the run with its reason on screen.
  assert.deepEqual(await finished, { ...(await finished), status: 'failed', error: 'Completion request failed.' });
  await page.locator('human-input-form').getByText('Completion request failed.').waitFor({ timeout: 5_000 });
  // The form stays on screen, closed, with what was typed.
  const kept = page.locator('human-input-form').getByRole('textbox').first();
  assert.equal(await kept.inputValue(), 'Half-written answer');
  assert.equal(await kept.isDisabled(), true);
  await page.locator('#log').getByText('workflow_finished failed').waitFor({ timeout: 5_000 });
  assert.doesNotMatch(await logText(page), /form-error/);
  await page.getByRole('button', { name: 'Fail the run', disabled: true }).waitFor({ timeout: 5_000 });
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
  await page.locator('#app').selectOption({ label: 'Expense approval' });
  await page.locator('#log').getByText('human_input_required').waitFor({ timeout: 10_000 });
  await page.getByLabel('Latency of every response and stream event (ms)').fill('300');
  await page.getByRole('button', { name: 'Apply' }).click();
  await page.getByRole('status').filter({ hasText: 'latency set to 300 ms' }).waitFor({ timeout: 5_000 });
  await page.getByLabel('Fail remote file fetches').check();
  await page.getByRole('status').filter({ hasText: 'remote file fetches fail' }).waitFor({ timeout: 5_000 });
  await page.getByLabel(/Close a stream left this long without an event/).fill('60000');
  await page.getByRole('button', { name: 'Set the idle close' }).click();
  await page.getByRole('status').filter({ hasText: 'streams close after 60000 ms without an event' }).waitFor({ timeout: 5_000 });
  const changed = (await serviceState()).settings;
  assert.deepEqual({ latency: changed.latencyMs, fail: changed.failRemoteFetch, idle: changed.streamIdleTimeoutMs }, { latency: 300, fail: true, idle: 60_000 });

  // Every response and run event now takes 300 ms more: the form of a new run takes longer than that.
  const started = Date.now();
  await page.getByRole('button', { name: 'New run', exact: true }).click();
  await page.locator('#log').getByText('human_input_required').waitFor({ timeout: 10_000 });
  assert.ok(Date.now() - started >= 300, `a new run showed its form in ${Date.now() - started} ms`);

  // The page reads the settings back between the reset and its new run: slowed, it leaves time
  // for a form still on the page to find its run gone (it must not be there to try).
  await page.route(/\/api\/qa$/, async (route) => {
    if (route.request().method() === 'GET') await new Promise((resolve) => setTimeout(resolve, 1500));
    await route.continue();
  });
  await page.getByRole('button', { name: 'Reset the service' }).click();
  await page.getByRole('status').filter({ hasText: 'service reset' }).waitFor({ timeout: 10_000 });
  assert.equal(await page.getByLabel('Latency of every response and stream event (ms)').inputValue(), '0');
  assert.equal(await page.getByLabel('Fail remote file fetches').isChecked(), false);
  assert.equal(await page.getByLabel(/Close a stream left this long without an event/).inputValue(), '300000');
  const state = await serviceState();
  assert.deepEqual({ latency: state.settings.latencyMs, fail: state.settings.failRemoteFetch, idle: state.settings.streamIdleTimeoutMs }, { latency: 0, fail: false, idle: 300_000 });
  await firstTextbox(page.locator('human-input-form'));
  assert.deepEqual(problems, []);
  await page.close();
});
