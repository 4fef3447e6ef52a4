/**
 * The Vue 3 example (demo/vue), built with Vite from the package's build output, completes a run
 * in Chromium: Vue leaves the package's tags to the browser (isCustomElement from the manifest),
 * binds `inputs` as a property, and the element's events show up in the app's own UI.
 */
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { cpSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { promisify } from 'node:util';
import { exampleUnderTest, seenByApp, startExampleRun } from './helpers/examples.js';
import { collectProblems, firstTextbox } from './helpers/forms.js';
import { REPO } from './helpers/package-build.js';

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

/**
 * The official `vue-ts` template's shape (create-vite): a solution tsconfig referencing an app
 * config (extending @vue/tsconfig) and a node config for vite.config.ts, checked with `vue-tsc -b`.
 * The vite.config.ts and env.d.ts are the README's.
 */
const TEMPLATE: Record<string, string> = {
  'tsconfig.json': JSON.stringify({ files: [], references: [{ path: './tsconfig.app.json' }, { path: './tsconfig.node.json' }] }),
  'tsconfig.app.json': JSON.stringify({
    extends: '@vue/tsconfig/tsconfig.dom.json',
    compilerOptions: { tsBuildInfoFile: './.tmp/app.tsbuildinfo', types: ['vite/client'], strict: true, noUnusedLocals: true, noUnusedParameters: true, erasableSyntaxOnly: true, noFallthroughCasesInSwitch: true, noUncheckedSideEffectImports: true },
    // Attributes and props of the package's tags are checked against its Vue typings.
    vueCompilerOptions: { strictTemplates: true },
    include: ['src/**/*.ts', 'src/**/*.tsx', 'src/**/*.vue'],
  }),
  'tsconfig.node.json': JSON.stringify({
    compilerOptions: { tsBuildInfoFile: './.tmp/node.tsbuildinfo', target: 'ES2023', lib: ['ES2023'], module: 'ESNext', types: ['node'], skipLibCheck: true, moduleResolution: 'bundler', allowImportingTsExtensions: true, verbatimModuleSyntax: true, moduleDetection: 'force', noEmit: true, strict: true, noUnusedLocals: true, noUnusedParameters: true, erasableSyntaxOnly: true, noFallthroughCasesInSwitch: true, noUncheckedSideEffectImports: true },
    include: ['vite.config.ts'],
  }),
  'vite.config.ts': `import vue from '@vitejs/plugin-vue';
import { defineConfig } from 'vite';
import { isCustomElement } from 'hitl-elements/tags';

export default defineConfig({ plugins: [vue({ template: { compilerOptions: { isCustomElement } } })] });
`,
  'src/env.d.ts': `/// <reference types="vite/client" />
import type {} from 'hitl-elements/vue';
`,
  'src/Checks.vue': `<script setup lang="ts">
import 'hitl-elements/define';
</script>
<template>
  <human-input-form session-url="/api/session" draft-storage="session" />
  <conversation-list session-url="/api/session" sort-by="-created_at" :page-size="10" />
  <!-- @vue-expect-error a misspelled attribute -->
  <human-input-form sesion-url="/api/session" />
  <!-- @vue-expect-error not a draft storage -->
  <human-input-form session-url="/api/session" draft-storage="cloud" />
  <!-- @vue-expect-error not an order the list knows -->
  <conversation-list session-url="/api/session" sort-by="newest" />
</template>
`,
};

test('the example type-checks with vue-tsc in the vue-ts template, against the package\'s Vue typings', async () => {
  // Inside the built copy, `hitl-elements/…` resolves through its package.json, as once installed.
  const copy = mkdtempSync(join(tested.example.packageRoot, '.vue-example-'));
  try {
    mkdirSync(join(copy, 'src'));
    cpSync(join(REPO, 'demo/vue/App.vue'), join(copy, 'src/App.vue'));
    cpSync(join(REPO, 'demo/vue/main.ts'), join(copy, 'src/main.ts'));
    for (const [file, content] of Object.entries(TEMPLATE)) writeFileSync(join(copy, file), content);
    await promisify(execFile)(process.execPath, [join(import.meta.dirname, 'helpers/vue-tsc.cjs'), '-b'], { cwd: copy }).catch((error: { stdout?: string; stderr?: string }) => {
      assert.fail(`vue-tsc found errors:\n${error.stdout}${error.stderr}`);
    });
  } finally {
    rmSync(copy, { recursive: true, force: true });
  }
});
