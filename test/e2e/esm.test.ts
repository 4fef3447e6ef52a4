/**
 * The ESM package without a framework: importing a class registers nothing, and the page can
 * register it under a tag name of its own. Built with Vite from the package's build output.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { exampleUnderTest } from './helpers/examples.js';
import { collectProblems, firstTextbox, runFinished } from './helpers/forms.js';

const tested = exampleUnderTest('esm');

test('the class, defined as <acme-review>, runs a form; <human-input-form> stays unregistered', async () => {
  const page = await tested.browser.newPage();
  const problems = collectProblems(page);
  await page.goto(tested.example.url);
  assert.equal(await page.locator('#registry').innerText(), '<acme-review>: registered, <human-input-form>: not registered');
  const form = page.locator('acme-review');
  await (await firstTextbox(form)).fill('Fine by me.');
  const finished = runFinished(page, 'acme-review');
  await form.getByRole('button', { name: 'Send back' }).click();
  assert.deepEqual(await finished, { result: 'sent_back', comments: 'Fine by me.' });
  assert.deepEqual(problems, []);
  await page.close();
});
