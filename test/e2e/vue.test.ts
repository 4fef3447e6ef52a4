/**
 * The Vue 3 example (demo/vue), built with Vite from the package's build output, completes a run
 * in Chromium: Vue leaves the package's tags to the browser (isCustomElement from the manifest),
 * binds `inputs` as a property, and the element's events show up in the app's own UI.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { exampleUnderTest, seenByApp, startExampleRun } from './helpers/examples.js';
import { collectProblems, firstTextbox } from './helpers/forms.js';

const tested = exampleUnderTest('vue');

test('a run started with the app\'s inputs is completed, and the app shows the events it received', async () => {
  const page = await tested.browser.newPage();
  const problems = collectProblems(page);
  await page.goto(tested.example.url);
  const form = page.locator('human-input-form');
  await firstTextbox(form);
  await form.getByText('Version 3.0.0 brings faster uploads').waitFor({ timeout: 5_000 });
  // Vue did not treat the tag as an unknown component: the element is the package's class.
  assert.equal(await form.evaluate((element) => element instanceof element.ownerDocument.defaultView.customElements.get('human-input-form')), true);

  await startExampleRun(page, '5.0.0');
  await (await firstTextbox(form)).fill('Needs a changelog link.');
  await form.getByRole('button', { name: 'Send back' }).click();

  const outputs = page.locator('#outputs');
  await outputs.waitFor({ timeout: 10_000 });
  assert.deepEqual(JSON.parse(await outputs.innerText()), { result: 'sent_back', comments: 'Needs a changelog link.' });
  assert.deepEqual(await seenByApp(page), ['Form shown', 'Run finished: succeeded', 'Submitted with action “send_back”']);
  assert.deepEqual(problems, []);
  await page.close();
});
