/**
 * The QA page as `npm start` serves it (the default fixture, every app mode) in Chromium: what the
 * page shows for each mode, the email-only form driven from the QA controls, a phone-sized
 * viewport, keyboard access to the log, and axe in the states reached.
 */
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { test } from 'node:test';
import type { Page } from 'playwright-core';
import { loadFixture } from '../../src/service/fixture.js';
import { axeViolations } from './helpers/axe.js';
import { firstTextbox } from './helpers/forms.js';
import { REPO } from './helpers/package-build.js';
import { scrollsSideways, useQaPage } from './helpers/qa-page.js';

const DEFAULT_FIXTURE = join(REPO, 'demo/fixtures/default.json');
const PHONE = { width: 320, height: 800 };

const { openPage, logText } = useQaPage({ fixturePath: DEFAULT_FIXTURE });

async function app(mode: string): Promise<string> {
  return (await loadFixture(DEFAULT_FIXTURE)).apps.find((a) => a.mode === mode)!.id;
}

/** Resolves once `page`'s chat answer shows `text`. */
const answered = (text: string) => (page: Page) => page.locator('#chat-answer').getByText(text).waitFor({ timeout: 10_000 });

test('a workflow app on a 320 px phone: no chat field, no sideways scroll, a log the keyboard can scroll, no axe violations', async () => {
  const { page, problems } = await openPage({ hash: `#app=${await app('workflow')}`, viewport: PHONE });
  // Hidden means gone: not shown and not a Tab stop (the page's label layout must not bring it back).
  assert.equal(await page.getByLabel('Chat message').isVisible(), false);
  // The full scenario, whose events overflow the log.
  await page.locator('#inputs').getByLabel('Scenario').selectOption('full');
  await page.getByRole('button', { name: 'New run', exact: true }).click();
  await page.locator('human-input-form').getByRole('button', { name: 'Approve' }).waitFor({ timeout: 10_000 });
  assert.equal(await scrollsSideways(page), false, 'the page is wider than the phone');

  const log = page.getByRole('list', { name: 'Run events' });
  assert.ok(await log.evaluate((list) => list.scrollHeight > list.clientHeight), 'the log does not overflow: nothing to scroll');
  await page.getByRole('button', { name: 'Clear' }).focus();
  await page.keyboard.press('Tab');
  assert.equal(await log.evaluate((list) => list.ownerDocument.activeElement === list), true, 'Tab does not reach the log');
  await page.keyboard.press('Home');
  await page.waitForFunction((list) => list.scrollTop === 0, await log.elementHandle(), { timeout: 5_000 });

  assert.deepEqual(await axeViolations(page), []);
  assert.deepEqual(problems, []);
  await page.close();
});

test('the full scenario\'s form: each input has one visible label, taken from the fixture\'s Markdown', async () => {
  const { page, problems } = await openPage({ hash: `#app=${await app('workflow')}` });
  await page.locator('#inputs').getByLabel('Scenario').selectOption('full');
  await page.getByRole('button', { name: 'New run', exact: true }).click();
  const form = page.locator('human-input-form');
  await form.getByRole('button', { name: 'Approve' }).waitFor({ timeout: 10_000 });
  const labels = {
    'Summary (prefilled from the plan)': form.getByRole('textbox', { name: 'Summary (prefilled from the plan)' }),
    'Reviewer notes': form.getByRole('textbox', { name: 'Reviewer notes' }),
    Priority: form.getByRole('combobox', { name: 'Priority' }),
    'Cover image (PNG or JPEG)': form.getByRole('group', { name: 'Cover image (PNG or JPEG)' }),
    'Brief (a Markdown or text file, uploaded)': form.getByRole('group', { name: 'Brief (a Markdown or text file, uploaded)' }),
    'Supporting files (up to 3 documents or images)': form.getByRole('group', { name: 'Supporting files (up to 3 documents or images)' }),
  };
  for (const [label, input] of Object.entries(labels)) {
    assert.equal(await input.count(), 1, `no input labelled “${label}”`);
    // Text in the element's shadow roots too: the Markdown's bold line is not left beside the label.
    const name = label.split(' (')[0]!;
    const shown = (await form.getByText(name).allInnerTexts()).map((text) => text.replace(/\s*\*$/, ''));
    assert.deepEqual(shown, [label], `“${name}” shows as ${JSON.stringify(shown)}`);
  }
  assert.deepEqual(problems, []);
  await page.close();
});

test('the email scenario: the form has no token, yet "Expire the form now" times it out', async () => {
  const { page, problems } = await openPage({ hash: `#app=${await app('workflow')}` });
  await page.locator('#inputs').getByLabel('Scenario').selectOption('email');
  await page.getByRole('button', { name: 'New run', exact: true }).click();
  const form = page.locator('human-input-form');
  await form.getByText('This step is answered by email and cannot be completed here.').waitFor({ timeout: 10_000 });
  await page.locator('#run-info').getByText(/\(answered by email\) open$/).waitFor({ timeout: 5_000 });
  assert.deepEqual(await axeViolations(page), []);

  await page.getByRole('button', { name: 'Expire the form now' }).click();
  await page.getByRole('status').filter({ hasText: 'form expired' }).waitFor({ timeout: 5_000 });
  await page.locator('#log').getByText('human_input_form_timeout').waitFor({ timeout: 10_000 });
  await page.locator('#log').getByText('workflow_finished succeeded').waitFor({ timeout: 10_000 });
  await page.getByRole('button', { name: 'Expire the form now', disabled: true }).waitFor({ timeout: 5_000 });
  assert.match(await logText(page), /human_input_required “Budget approval \(email\)” \(answered by email/);
  assert.deepEqual(problems, []);
  await page.close();
});

test('a chatbot on a 320 px phone fits and passes axe; deleting the chosen conversation clears its answer and tools', async () => {
  const { page, problems } = await openPage({ hash: `#app=${await app('chat')}`, viewport: PHONE, ready: answered('You asked') });
  const variables = page.locator('conversation-variables');
  await variables.getByText('customer_name').waitFor({ timeout: 10_000 });
  await page.locator('tts-player').getByRole('button', { name: 'Play' }).waitFor({ timeout: 10_000 });
  assert.equal(await scrollsSideways(page), false, 'the page is wider than the phone');
  assert.equal(await page.locator('#run-info').textContent(), '', 'a chat app has no run to tell of');
  assert.deepEqual(await axeViolations(page), []);

  const list = page.locator('conversation-list');
  await list.getByRole('button', { name: /^Delete: / }).click();
  await list.getByRole('button', { name: 'Delete', exact: true }).click();
  await variables.getByText('Choose a conversation to see its variables.').first().waitFor({ timeout: 5_000 });
  await page.locator('#chat-answer').waitFor({ state: 'hidden', timeout: 5_000 });
  assert.equal(await page.locator('#answer-tools > *').count(), 0, 'the deleted conversation\'s feedback and player stay');
  assert.match(await logText(page), /conversation \S+ deleted: its tools are cleared/);
  assert.deepEqual(problems, []);
  await page.close();
});

test('the app picker names each app once, under its mode; an agent app gets no conversation variables and no run status', async () => {
  const fixture = await loadFixture(DEFAULT_FIXTURE);
  const { page, problems } = await openPage({ hash: `#app=${await app('agent')}`, viewport: PHONE, ready: answered('I looked it up') });
  const picker = page.locator('#app');
  assert.deepEqual(
    await picker.locator('option').allInnerTexts(),
    fixture.apps.filter((a) => a.mode !== 'completion').map((a) => a.name),
  );
  assert.deepEqual(await picker.locator('optgroup').evaluateAll((groups) => groups.map((g) => g.getAttribute('label'))), ['Chatflow', 'Workflow', 'Agent', 'Chatbot', 'Agent (legacy)']);

  // The agent mode has no variables API, so no element that could only fail.
  assert.equal(await page.locator('conversation-variables').count(), 0);
  assert.equal(await page.locator('#variables').innerText(), 'Apps of mode “agent” have no conversation variables.');
  assert.equal(await page.locator('#run-info').textContent(), '');
  assert.equal(await scrollsSideways(page), false, 'the page is wider than the phone');
  assert.deepEqual(await axeViolations(page), []);

  // The legacy agent has the variables; neither has "Starting a run…".
  await picker.selectOption(await app('agent-chat'));
  await page.locator('conversation-variables').waitFor({ timeout: 5_000 });
  await answered('Here is a plan for')(page);
  assert.equal(await page.locator('#run-info').textContent(), '');
  assert.deepEqual(problems, []);
  await page.close();
});

test('a Chatflow on a 320 px phone: form and conversation fit, and axe finds nothing', async () => {
  const { page, problems } = await openPage({ hash: `#app=${await app('advanced-chat')}`, viewport: PHONE, ready: (p) => firstTextbox(p.locator('human-input-form')) });
  await page.locator('#chat-answer').getByText('Here is a draft answer').waitFor({ timeout: 10_000 });
  await page.locator('tts-player').getByRole('button', { name: 'Play' }).waitFor({ timeout: 10_000 });
  assert.equal(await scrollsSideways(page), false, 'the page is wider than the phone');
  assert.deepEqual(await axeViolations(page), []);
  assert.deepEqual(problems, []);
  await page.close();
});
