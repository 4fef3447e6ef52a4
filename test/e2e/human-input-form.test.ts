/**
 * `<human-input-form>` end to end, as a user meets it on the QA demo page: the page, the sample
 * host backend with its relay, the embedded service, in Chromium. Two consecutive forms, a
 * file-list upload, a rejected submit, expiry and a dropped stream.
 */
import assert from 'node:assert/strict';
import { fileURLToPath } from 'node:url';
import { test } from 'node:test';
import type { Locator, Page } from 'playwright-core';
import { collectProblems } from './helpers/forms.js';
import { useDemo } from './helpers/qa-page.js';

const FIXTURE = fileURLToPath(new URL('../fixtures/browser.json', import.meta.url));

const site = useDemo(() => ({ fixturePath: FIXTURE }));

/** The QA page on one of the fixture's apps, once its element shows `state` (a custom state). */
async function open(app: string, state = 'ready'): Promise<{ page: Page; form: Locator; problems: string[] }> {
  const page = await site.browser.newPage();
  const problems = collectProblems(page);
  await page.goto(`${site.demo.url}#app=${app}`);
  const form = page.locator('human-input-form');
  await page.locator(`human-input-form:state(${state})`).waitFor({ timeout: 10_000 });
  return { page, form, problems };
}

const status = (form: Locator, text: string) => form.getByRole('status').filter({ hasText: text }).first().waitFor({ timeout: 10_000 });

test('two consecutive forms of one run, each answered and confirmed', async () => {
  const { page, form, problems } = await open('hitl-chain');
  await form.getByRole('textbox', { name: 'What should we build?' }).fill('A bicycle');
  await form.getByRole('button', { name: 'Next' }).click();
  await form.getByRole('heading', { name: 'Second step' }).waitFor({ timeout: 10_000 });
  assert.match(await form.locator('form [part~=content]').innerText(), /You proposed: A bicycle/);
  await form.getByRole('combobox', { name: 'Size' }).selectOption('large');
  await form.getByRole('button', { name: 'Finish' }).click();
  await status(form, 'The workflow has finished.');
  assert.deepEqual(await form.locator('[part~=chosen]').allInnerTexts(), ['You chose “Next”.', 'You chose “Finish”.']);
  assert.deepEqual(problems, []);
  await page.close();
});

test('files uploaded to a file list and a file input; a rejected link shown at its input; the fixed form goes through', async () => {
  const { page, form, problems } = await open('hitl-main');
  await form.getByRole('combobox', { name: 'Priority' }).selectOption('high');
  const screenshot = form.locator('hitl-file');
  await screenshot.locator('input[type=file]').setInputFiles({ name: 'screen.png', mimeType: 'image/png', buffer: Buffer.from('89504e470d0a1a0a', 'hex') });
  const reports = form.locator('hitl-file-list');
  await reports.locator('input[type=file]').setInputFiles([
    { name: 'results.pdf', mimeType: 'application/pdf', buffer: Buffer.from('%PDF-1.4 results') },
    { name: 'notes.txt', mimeType: 'text/plain', buffer: Buffer.from('all green') },
  ]);
  await reports.getByText('results.pdf').waitFor();
  // Both uploads finish: each row offers removal instead of cancel.
  await reports.getByRole('button', { name: 'Remove' }).nth(1).waitFor({ timeout: 10_000 });
  await screenshot.getByRole('button', { name: 'Remove' }).waitFor({ timeout: 10_000 });
  // The list takes two; the third way in, a link, is gone.
  assert.equal(await reports.getByRole('textbox', { name: 'File link' }).count(), 0);

  // A link the service cannot fetch: remove a report and add it as a link, with fetches failing.
  await page.getByLabel('Fail remote file fetches').check();
  await page.getByRole('status').filter({ hasText: 'remote file fetches fail' }).waitFor();
  await reports.getByRole('button', { name: 'Remove' }).nth(1).click();
  await reports.getByRole('textbox', { name: 'File link' }).fill('https://example.com/report.pdf');
  await reports.getByRole('button', { name: 'Add link' }).click();
  await reports.getByText('report.pdf').waitFor();
  await form.getByRole('textbox', { name: 'Your summary for the changelog' }).fill('Ready to ship');
  await form.getByRole('button', { name: 'Approve' }).click();
  await form.getByRole('alert').filter({ hasText: 'Check the highlighted fields.' }).waitFor({ timeout: 10_000 });
  await reports.getByText(/Invalid value for file list input 'reports': Failed to fetch remote file/).waitFor();
  // Everything typed and chosen is still there.
  assert.equal(await form.getByRole('textbox', { name: 'Your summary for the changelog' }).inputValue(), 'Ready to ship');
  assert.equal(await form.getByRole('combobox', { name: 'Priority' }).inputValue(), 'high');

  await reports.getByRole('button', { name: 'Remove' }).nth(1).click();
  await form.getByRole('button', { name: 'Approve' }).click();
  await status(form, 'The workflow has finished.');
  const log = await page.locator('#log').innerText();
  assert.match(log, /human_input_form_filled/);
  assert.deepEqual(problems.filter((p) => !p.includes('400')), []);
  await page.close();
});

test('a form counts down, is disabled when its time is up, and the run takes its timeout branch', async () => {
  const { page, form, problems } = await open('hitl-expiry');
  const expired = form.evaluate((element) => new Promise<boolean>((resolve) => element.addEventListener('timed-out', (e: Event) => resolve((e as unknown as { local: boolean }).local), { once: true })));
  assert.match(await form.getByRole('timer').innerText(), /^Time left: 0:0\d$/);
  await form.getByRole('textbox').fill('too late');
  // The element's own clock ends the form first; the run's timeout follows a moment later.
  assert.equal(await expired, true);
  await form.getByRole('button', { name: 'OK' }).waitFor({ state: 'detached', timeout: 5_000 }).catch(async () => assert.equal(await form.getByRole('button', { name: 'OK' }).isDisabled(), true));
  await status(form, 'The workflow has finished.');
  assert.match(await page.locator('#log').innerText(), /human_input_form_timeout/);
  assert.deepEqual(problems, []);
  await page.close();
});

test('a dropped stream: the element reconnects, shows the form once, and the answer goes through', async () => {
  const { page, problems } = await open('hitl-simple');
  const streams: string[] = [];
  page.on('request', (r) => {
    if (/\/workflow\/[^/]+\/events\?/.test(r.url())) streams.push(new URL(r.url()).search);
  });
  await page.getByLabel('Drop the stream after').fill('3');
  await page.getByRole('button', { name: 'New run with a dropped stream' }).click();
  const form = page.locator('human-input-form');
  await form.getByRole('combobox', { name: 'Choice' }).selectOption('beta', { timeout: 10_000 });
  assert.equal(await form.getByRole('heading', { name: 'Quick question' }).count(), 1);
  assert.ok(streams.length >= 1, 'the element opened the run events stream again');
  assert.ok(streams.every((s) => s.includes('include_state_snapshot=true')));
  await form.getByRole('textbox', { name: 'Comments' }).fill('after the drop');
  await form.getByRole('button', { name: 'Send' }).click();
  await status(form, 'The workflow has finished.');
  const log = await page.locator('#log').innerText();
  assert.equal(log.match(/human_input_required/g)?.length, 1, 'the form was shown once');
  assert.deepEqual(problems, []);
  await page.close();
});
