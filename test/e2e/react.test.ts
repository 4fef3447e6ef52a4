/**
 * The React 19 example (demo/react), built with Vite from the package's build output and
 * type-checked against its .d.ts and JSX typings (and DOM lookups and listeners against the
 * package's tag and event maps), completes a run in Chromium: `inputs` reaches the
 * element as an object, and the element's events show up in the app's own UI.
 */
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { cpSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { promisify } from 'node:util';
import { exampleUnderTest, seenByApp, startExampleRun } from './helpers/examples.js';
import { collectProblems, firstTextbox } from './helpers/forms.js';
import { REPO } from './helpers/package-build.js';

const tested = exampleUnderTest('react');

/** Plain DOM code that imports only the define module: the tag and event maps alone type it. */
const DOM_TYPES = `
import 'hitl-elements/define';

const form = document.querySelector('human-input-form');
form?.addEventListener('run-finished', (e) => {
  const outputs: Record<string, unknown> | null = e.result.outputs;
  void outputs;
});
form?.addEventListener('before-submit', (e) => {
  if (e.action === 'discard') e.preventDefault();
});
// @ts-expect-error: a run-finished event has no such field
form?.addEventListener('run-finished', (e) => e.nope);
// @ts-expect-error: inputs is an object, not a string
if (form) form.inputs = 'version=1';
form?.addEventListener('submitted', (e) => e.action.length);
form?.addEventListener('form-error', (e) => e.error.code);
document.querySelector('conversation-list')?.addEventListener('conversation-selected', (e) => e.detail.id.length);
document.querySelector('message-feedback')?.addEventListener('feedback-changed', (e) => e.detail.rating);
`;

/** What the JSX typings refuse: TypeScript checks no unknown hyphenated attribute, so `session-url` is required. */
const JSX_CHECKS = `
import type {} from 'hitl-elements/react';

export const fine = [
  <human-input-form session-url="/api/session" draft-storage="session" />,
  <conversation-list session-url="/api/session" sort-by="-created_at" page-size={10} data-testid="list" />,
];
// @ts-expect-error: a misspelled session-url leaves the required one missing
export const misspelled = <human-input-form sesion-url="/api/session" />;
// @ts-expect-error: "cloud" is not a draft storage
export const badStorage = <human-input-form session-url="/api/session" draft-storage="cloud" />;
// @ts-expect-error: a companion needs its session-url too
export const companion = <message-feedback sesion-url="/api/session" message-id="m1" />;
// @ts-expect-error: not an order the list knows
export const badSort = <conversation-list session-url="/api/session" sort-by="newest" />;
// @ts-expect-error: the handler's event is a SubmittedEvent, which has no "nope"
export const badHandler = <human-input-form session-url="/api/session" onsubmitted={(e) => e.nope} />;
`;

test('the example type-checks against the built package (its JSX typings type the props and events)', async () => {
  // Inside the built copy, `hitl-elements/…` resolves through its package.json, as once installed.
  const copy = mkdtempSync(join(tested.example.packageRoot, '.react-example-'));
  try {
    cpSync(join(REPO, 'demo/react'), copy, { recursive: true, filter: (f) => !f.includes('/dist') });
    // Library checks on: the JSX typings are a generated .d.ts, which skipLibCheck would pass unread.
    const tsc = (project: string) =>
      promisify(execFile)(join(REPO, 'node_modules/.bin/tsc'), ['-p', join(copy, project), '--skipLibCheck', 'false']).catch((error: { stdout?: string }) => {
        assert.fail(`tsc (${project}) found errors:\n${error.stdout}`);
      });
    writeFileSync(join(copy, 'jsx-checks.tsx'), JSX_CHECKS);
    await tsc('tsconfig.json');
    // On its own (no JSX typings in the program to pull the event classes in): DOM lookups and
    // listeners get their element and event types from what the define module brings.
    writeFileSync(join(copy, 'dom-types.ts'), DOM_TYPES);
    writeFileSync(join(copy, 'tsconfig.dom.json'), JSON.stringify({ extends: './tsconfig.json', include: ['dom-types.ts'] }));
    await tsc('tsconfig.dom.json');
  } finally {
    rmSync(copy, { recursive: true, force: true });
  }
});

test('a run started with the app\'s inputs is completed, and the app shows the events it received', async () => {
  const page = await tested.browser.newPage();
  const problems = collectProblems(page);
  await page.goto(tested.example.url);
  const form = page.locator('human-input-form');
  await firstTextbox(form);
  await form.getByText('Version 3.0.0 brings faster uploads').waitFor({ timeout: 5_000 });

  // A new run with other inputs: React passes the new object as the element's `inputs` property.
  await startExampleRun(page, '4.1.0');
  await (await firstTextbox(form)).fill('Looks good.');
  await form.getByRole('button', { name: 'Approve and publish' }).click();

  const outputs = page.locator('#outputs');
  await outputs.waitFor({ timeout: 10_000 });
  const parsed = JSON.parse(await outputs.innerText()) as Record<string, unknown>;
  assert.equal(parsed.result, 'published');
  assert.equal(parsed.comments, 'Looks good.');
  assert.match(String(parsed.notes), /^Version 4\.1\.0/);
  assert.deepEqual(await seenByApp(page), ['Form shown', 'Run finished: succeeded', 'Submitted with action “approve”']);
  assert.deepEqual(problems, []);
  await page.close();
});
