/**
 * The demo, end to end: the page, the sample host backend with the relay, the embedded service,
 * in headless Chromium, from page load to `workflow_finished`.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { useDemo } from './helpers/qa-page.js';

const site = useDemo();

test('a new user fills the form, approves, and sees the run finish', async () => {
  const page = await site.browser.newPage();
  const problems: string[] = [];
  page.on('pageerror', (e) => problems.push(`pageerror: ${e.message}`));
  page.on('console', (m) => m.type() === 'error' && problems.push(`console: ${m.text()}`));
  await page.goto(site.demo.url);

  const form = page.locator('human-input-form');
  const comments = form.getByRole('textbox', { name: 'Comments' });
  await comments.waitFor({ timeout: 10_000 });
  assert.match(await form.locator('[part="content"]').first().innerText(), /Review the draft/);
  // The draft text was substituted into the form content before it was shown.
  assert.match(await form.locator('[part="content"] blockquote').innerText(), /Version 2\.4\.0 brings faster uploads/);

  await comments.fill('Ship it on Monday.');
  await form.getByRole('button', { name: 'Approve and publish' }).click();

  await form.getByRole('status').filter({ hasText: 'The workflow has finished.' }).waitFor({ timeout: 10_000 });
  assert.match(await form.locator('[part="content"]').innerText(), /Review the draft/);
  await form.getByText('You chose “Approve and publish”.').waitFor({ timeout: 1_000 });

  const log = await page.locator('#log').innerText();
  for (const name of ['workflow_started', 'human_input_required', 'workflow_paused', 'human_input_form_filled', 'workflow_finished']) {
    assert.match(log, new RegExp(name), `event log lacks ${name}`);
  }
  assert.deepEqual(problems, []);
  await page.close();
});
