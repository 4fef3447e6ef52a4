/**
 * The QA demo page against "a real deployment" (`UPSTREAM_URL` + `APP_API_KEY`): here an
 * embedded service started on its own, which the demo must treat like any upstream. The page
 * works, its QA controls are off and say why, and the backend never reaches the service's admin
 * endpoint.
 */
import assert from 'node:assert/strict';
import { after, test } from 'node:test';
import { loadFixture } from '../../src/service/fixture.js';
import { startService, type RunningService } from '../../src/service/server.js';
import { E2E_FIXTURE } from './helpers/examples.js';
import { collectProblems, firstTextbox, runFinished } from './helpers/forms.js';
import { useDemo } from './helpers/qa-page.js';

let upstream: RunningService | undefined;

// The deployment is started first, then the demo pointed at it.
const site = useDemo(async () => {
  upstream = await startService({ fixture: await loadFixture(E2E_FIXTURE), port: 0 });
  return { upstreamUrl: upstream.url, apiKey: 'app-e2e-expenses' };
});

after(async () => {
  await upstream?.close();
});

test('the page runs the deployment\'s app, with the QA controls off and explained', async () => {
  assert.equal(site.demo.backend.service, undefined, 'an embedded service was started');
  const page = await site.browser.newPage();
  const problems = collectProblems(page);
  await page.goto(site.demo.url);
  await page.getByText('A real deployment (UPSTREAM_URL)', { exact: true }).waitFor();
  // The one app of APP_API_KEY, named by the deployment's GET /info, with its GET /parameters inputs.
  const picker = page.locator('#app');
  assert.deepEqual(await picker.locator('option').allInnerTexts(), ['Expense approval']);
  assert.deepEqual(await picker.locator('optgroup').evaluateAll((groups) => groups.map((g) => g.getAttribute('label'))), ['Workflow']);
  assert.equal(await page.getByLabel('Amount').inputValue(), '120 EUR');

  await page.getByText('The QA controls drive the embedded service').waitFor();
  for (const name of ['Apply', 'New run with a dropped stream', 'Expire the form now', 'Reset the service']) {
    assert.equal(await page.getByRole('button', { name }).isDisabled(), true, `${name} is enabled`);
  }

  const form = page.locator('human-input-form');
  await (await firstTextbox(form)).fill('From the deployment.');
  const finished = runFinished(page);
  await form.getByRole('button', { name: 'Approve claim' }).click();
  assert.deepEqual(await finished, { result: 'approved', note: 'From the deployment.' });
  assert.deepEqual(problems, []);
  await page.close();
});

test('the QA routes answer 404 and leave the upstream\'s admin endpoint alone', async () => {
  const before = await (await fetch(new URL('/_qa/state', new URL(upstream!.url).origin))).json();
  const answer = await fetch(new URL('/api/qa/settings', site.demo.url), { method: 'PATCH', headers: { 'Content-Type': 'application/json' }, body: '{"latencyMs": 1000}' });
  assert.equal(answer.status, 404);
  assert.match(((await answer.json()) as { message: string }).message, /UPSTREAM_URL/);
  assert.equal((await fetch(new URL('/api/qa', site.demo.url))).status, 404);
  assert.deepEqual(await (await fetch(new URL('/_qa/state', new URL(upstream!.url).origin))).json(), before);
});
