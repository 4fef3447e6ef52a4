/**
 * The QA demo page (`npm start`) in Chromium: scenarios from the fixture (Workflow and Chatflow
 * apps, their run inputs), the user picker, the live event log, and what its backend routes let
 * through. The QA controls themselves: qa-controls.test.ts.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { loadFixture } from '../../src/service/fixture.js';
import { E2E_FIXTURE } from './helpers/examples.js';
import { expectCount, firstTextbox } from './helpers/forms.js';
import { useQaPage } from './helpers/qa-page.js';

const qa = useQaPage();
const { serviceState, openPage, logText } = qa;

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
  assert.match(await logText(page), /following run [0-9a-f-]{36}/);
  assert.equal(await form.evaluate((element) => element.runId.length > 0), true, 'the element does not follow a run id');
  await form.getByRole('button', { name: 'Send reply' }).click();
  await page.locator('#log').getByText('workflow_finished succeeded').waitFor({ timeout: 10_000 });
  assert.deepEqual(problems, []);
  await page.close();
});

test('a chat app: no form, the answer, and the companion elements on its conversation', async () => {
  const { page, problems } = await openPage();
  await page.getByLabel('App').selectOption({ label: 'Store helper (chat)' });
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
  await page.getByRole('button', { name: 'Reply' }).click();
  await answer.getByText('You asked: Thanks! And when will it arrive?').waitFor({ timeout: 10_000 });
  await expectCount(conversations.getByRole('option'), 1);
  assert.deepEqual(problems, []);
  await page.close();
});

test('the QA routes take only the page\'s controls and never show an app key', async () => {
  const api = (path: string, init?: RequestInit) => fetch(new URL(path, qa.demo.url), init);
  assert.equal((await api('/api/qa/state')).status, 404);
  assert.equal((await api('/api/qa/runs/x/cut-stream', { method: 'POST', body: '{"after":1}' })).status, 404);
  const bad = await api('/api/qa/cut-next-stream', { method: 'POST', body: '{"after":0}' });
  assert.deepEqual(await bad.json(), { code: 'invalid_param', message: 'after must be an integer of at least 1.', status: 400 });
  const apps = await (await api('/api/apps')).text();
  for (const app of (await loadFixture(E2E_FIXTURE)).apps) assert.ok(!apps.includes(app.key), `/api/apps shows ${app.key}`);
});
