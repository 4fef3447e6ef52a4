/**
 * The QA demo page (`npm start`) in Chromium: scenarios from the fixture (Workflow and Chatflow
 * apps, their run inputs), the user picker, the live event log, the run kept in the URL, and what
 * its backend routes let through. The QA controls themselves: qa-controls.test.ts; the page on
 * the default fixture (layout, accessibility, the other app modes): qa-page-default.test.ts.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { Page } from 'playwright-core';
import { loadFixture } from '../../src/service/fixture.js';
import { E2E_FIXTURE } from './helpers/examples.js';
import { expectCount, expectValue, firstTextbox } from './helpers/forms.js';
import { runInUrl, setHash, useQaPage } from './helpers/qa-page.js';

const qa = useQaPage();
const { serviceState, openPage, logText } = qa;

async function appId(name: string): Promise<string> {
  return (await loadFixture(E2E_FIXTURE)).apps.find((a) => a.name === name)!.id;
}

test('QA picks a scenario and a user; the run is that app\'s, with those inputs, for that user', async () => {
  const { page, problems } = await openPage();
  const fixture = await loadFixture(E2E_FIXTURE);
  // The apps by name, grouped under their mode (so a name that already says its mode is not followed by it again).
  const options = await page.locator('#app').locator('option').allInnerTexts();
  assert.deepEqual([...options].sort(), fixture.apps.map((a) => a.name).sort());
  const groups = await page.locator('#app').locator('optgroup').evaluateAll((gs) => gs.map((g) => [g.getAttribute('label'), g.children.length]));
  assert.deepEqual(groups, [['Workflow', 2], ['Chatflow', 1], ['Chatbot', 1]]);

  // The user: the page's stand-in for a login, which the backend puts in the session.
  await page.getByLabel('Signed in as').fill('qa-alice');
  await page.getByRole('button', { name: 'Switch user' }).click();
  await page.waitForLoadState('load');
  assert.equal(await page.getByLabel('Signed in as').inputValue(), 'qa-alice');

  // The scenario: the second app, with its run input (from GET /parameters) changed.
  await page.locator('#app').selectOption({ label: 'Expense approval' });
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

test('a Chatflow scenario: the page sends the chat message, the element follows the run it started, and the answer goes on after the form', async () => {
  const { page, problems } = await openPage();
  await page.locator('#app').selectOption({ label: 'Support reply review' });
  await page.getByLabel('Chat message').fill('Where is my parcel?');
  await page.getByRole('button', { name: 'New run', exact: true }).click();
  const form = page.locator('human-input-form');
  await form.getByText('The customer wrote: Where is my parcel?').waitFor({ timeout: 10_000 });
  const run = await runInUrl(page);
  assert.equal(await form.evaluate((element) => element.runId), run, 'the element does not follow the run in the URL');
  assert.match(await logText(page), new RegExp(`following run ${run}, started by the chat message`));
  // The answer so far, without the blank lines its answer node ends with.
  const answer = page.locator('#chat-answer');
  await answer.getByText('Drafting a reply to “Where is my parcel?”.').waitFor({ timeout: 10_000 });
  assert.equal(await answer.textContent(), 'Drafting a reply to “Where is my parcel?”.');
  await form.getByRole('button', { name: 'Send reply' }).click();
  await page.locator('#log').getByText('workflow_finished succeeded').waitFor({ timeout: 10_000 });
  // The answer streamed by the run after the form is in the Conversation panel too.
  await answer.getByText('Sent: We are sorry; a replacement is on its way.').waitFor({ timeout: 5_000 });
  assert.equal(await answer.textContent(), 'Drafting a reply to “Where is my parcel?”.\n\nSent: We are sorry; a replacement is on its way.');
  assert.deepEqual(problems, []);
  await page.close();
});

test('a Reply while a Chatflow form waits: the reply\'s run has a form of its own, and the page follows that run', async () => {
  const chatflow = await appId('Support reply review');
  const form = (page: Page) => page.locator('human-input-form');
  const { page, problems } = await openPage({
    hash: `#app=${chatflow}`,
    ready: (p) => form(p).getByText('The customer wrote: My order arrived damaged.').waitFor({ timeout: 10_000 }),
  });
  const first = await runInUrl(page);
  await page.getByRole('button', { name: 'Reply', exact: true }).click();
  await form(page).getByText('The customer wrote: Thanks! And when will it arrive?').waitFor({ timeout: 10_000 });
  const second = await runInUrl(page, first);
  assert.equal(await form(page).evaluate((element) => element.runId), second);
  assert.match(await page.locator('#run-info').innerText(), new RegExp(`^Run ${second} · form \\S+ open$`));
  assert.match(await logText(page), new RegExp(`following run ${second}, started by the reply \\(run ${first} still waits for its form\\)`));
  // The first run still waits in the service; the reply's is the one answered here.
  await form(page).getByRole('button', { name: 'Send reply' }).click();
  await page.locator('#chat-answer').getByText('Sent: We are sorry; a replacement is on its way.').waitFor({ timeout: 10_000 });
  await page.locator('#log').getByText('workflow_finished succeeded').waitFor({ timeout: 5_000 });
  const runs = (await serviceState()).runs;
  assert.deepEqual([runs.find((r) => r.id === first)?.status, runs.find((r) => r.id === second)?.status], ['paused', 'succeeded']);
  assert.deepEqual(problems, []);
  await page.close();
});

test('the URL keeps the run: a reload follows it and restores what was typed; New run starts another', async () => {
  const { page, problems } = await openPage();
  // A run with inputs of its own.
  const first = await runInUrl(page);
  await page.locator('#inputs').getByLabel('Version').fill('7.7.7');
  await page.getByRole('button', { name: 'New run', exact: true }).click();
  const run = await runInUrl(page, first);
  await page.locator('human-input-form').getByText('7.7.7').first().waitFor({ timeout: 10_000 });
  await (await firstTextbox(page.locator('human-input-form'))).fill('Typed before the reload.');
  const runs = (await serviceState()).runs.length;

  await page.reload();
  await expectValue(await firstTextbox(page.locator('human-input-form')), 'Typed before the reload.');
  // The Scenario fields show the followed run's inputs, not the defaults.
  await expectValue(page.locator('#inputs').getByLabel('Version'), '7.7.7');
  assert.equal(await runInUrl(page), run);
  assert.equal(await page.locator('human-input-form').evaluate((element) => element.runId), run);
  assert.equal((await serviceState()).runs.length, runs, 'the reload started a run');
  assert.match(await logText(page), new RegExp(`following run ${run} \\(named in the URL\\)`));

  await page.getByRole('button', { name: 'New run', exact: true }).click();
  const next = await runInUrl(page, run);
  assert.equal(await (await firstTextbox(page.locator('human-input-form'))).inputValue(), '');
  assert.equal((await serviceState()).runs.length, runs + 1);
  assert.match(await page.locator('#run-info').innerText(), new RegExp(`^Run ${next}`));
  assert.deepEqual(problems, []);
  await page.close();
});

test('editing #app= in the URL switches the app without a reload; #run= follows that run', async () => {
  const [release, expenses] = [await appId('Release notes review'), await appId('Expense approval')];
  const { page, problems } = await openPage({ hash: `#app=${release}` });
  const first = await runInUrl(page);
  await page.evaluate('window.notReloaded = true');
  const form = page.locator('human-input-form');

  await setHash(page, `#app=${expenses}`);
  await form.getByText('An expense claim of 120 EUR waits for you.').waitFor({ timeout: 10_000 });
  assert.equal(await page.locator('#app').inputValue(), expenses);
  assert.equal(await page.getByLabel('Amount').inputValue(), '120 EUR');
  const second = await runInUrl(page, first);
  assert.match(page.url(), new RegExp(`#app=${expenses}&run=${second}$`));

  // Back to the first run by its URL: its form again, in the element following it.
  await setHash(page, `#app=${release}&run=${first}`);
  await form.getByText('Review the draft').waitFor({ timeout: 10_000 });
  assert.equal(await form.evaluate((element) => element.runId), first);
  assert.equal(await page.locator('#app').inputValue(), release);
  assert.equal(await page.evaluate("'notReloaded' in window"), true, 'the page reloaded');
  assert.deepEqual(problems, []);
  await page.close();
});

test('a chat app: no form, the answer, and the companion elements on its conversation', async () => {
  const { page, problems } = await openPage();
  await page.locator('#app').selectOption({ label: 'Store helper' });
  const answer = page.locator('#chat-answer');
  await answer.getByText('Your order ships tomorrow. You asked: My order arrived damaged.').waitFor({ timeout: 10_000 });
  // The page hides the form once it knows the app has none; wait for it rather than look once.
  await page.locator('human-input-form').waitFor({ state: 'hidden', timeout: 5_000 });

  // The conversation is listed and chosen; its variables and the answer's feedback are on it.
  const conversations = page.getByRole('listbox', { name: 'Conversations' });
  await conversations.getByRole('option').first().waitFor({ timeout: 10_000 });
  await expectCount(conversations.getByRole('option'), 1);
  await page.locator('conversation-variables').getByText('customer_name').waitFor({ timeout: 10_000 });
  await page.locator('message-feedback').getByRole('button', { name: 'Like', exact: true }).click();
  await page.locator('message-feedback').getByRole('button', { name: 'Like', exact: true, pressed: true }).waitFor({ timeout: 10_000 });
  assert.equal(await page.locator('tts-player').count(), 1);

  // A reply goes into the same conversation.
  await page.getByRole('button', { name: 'Reply', exact: true }).click();
  await answer.getByText('You asked: Thanks! And when will it arrive?').waitFor({ timeout: 10_000 });
  await expectCount(conversations.getByRole('option'), 1);
  assert.deepEqual(problems, []);
  await page.close();
});

test('the QA routes take only the page\'s controls and never show an app key', async () => {
  const api = (path: string, init?: RequestInit) => fetch(new URL(path, qa.demo.url), init);
  assert.equal((await api('/api/qa/state')).status, 404);
  assert.equal((await api('/api/qa/runs/x/cut-stream', { method: 'POST', body: '{"after":1}' })).status, 404);
  const bad = await api('/api/qa/cut-next-stream', { method: 'POST', body: '{"after":-1}' });
  assert.deepEqual(await bad.json(), { code: 'invalid_param', message: 'after must be an integer of at least 0.', status: 400 });
  const apps = await (await api('/api/apps')).text();
  for (const app of (await loadFixture(E2E_FIXTURE)).apps) assert.ok(!apps.includes(app.key), `/api/apps shows ${app.key}`);
});
