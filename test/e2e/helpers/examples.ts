/**
 * The example apps under demo/ built as their READMEs say (`vite build demo/<name>`), from the
 * package's build output, and served like any static site with the sample host backend on /api.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before } from 'node:test';
import type { Browser, Page } from 'playwright-core';
import { build } from 'vite';
import { createHostBackend, type HostBackend } from '../../../demo/host-backend.js';
import { launchChromium } from '../../helpers/chromium.js';
import { builtPackage, REPO } from './package-build.js';
import { serveSite, type Site } from './site.js';

export const E2E_FIXTURE = join(REPO, 'test/e2e/fixtures/distribution.json');

export interface ServedExample {
  url: string;
  backend: HostBackend;
  /** The copy of the package the example was built from. */
  packageRoot: string;
  close(): Promise<void>;
}

export async function serveExample(name: string): Promise<ServedExample> {
  const packageRoot = await builtPackage();
  const outDir = mkdtempSync(join(tmpdir(), `hitl-example-${name}-`));
  // The examples' configs resolve `hitl-elements` through this copy's package.json "exports".
  process.env.HITL_PACKAGE_ROOT = packageRoot;
  await build({ configFile: join(REPO, 'demo', name, 'vite.config.ts'), build: { outDir, emptyOutDir: true }, logLevel: 'warn' });
  const backend = await createHostBackend({ servicePort: 0, fixturePath: E2E_FIXTURE });
  let site: Site;
  try {
    site = await serveSite(backend, { folders: { '/': outDir } });
  } catch (error) {
    await backend.close();
    throw error;
  }
  return {
    url: `${site.url}/`,
    backend,
    packageRoot,
    close: async () => {
      await site.close();
      await backend.close();
      rmSync(outDir, { recursive: true, force: true });
    },
  };
}

/** For the calling test file: the example served and Chromium launched before its tests, both closed after. */
export function exampleUnderTest(name: string): { readonly example: ServedExample; readonly browser: Browser } {
  const context = {} as { example: ServedExample; browser: Browser };
  before(async () => {
    context.example = await serveExample(name);
    context.browser = await launchChromium();
  });
  after(async () => {
    await context.browser?.close();
    await context.example?.close();
  });
  return context;
}

/**
 * The React and Vue examples share a toolbar: a new run with `version`, started from it, once the
 * element shows that version's form.
 */
export async function startExampleRun(page: Page, version: string): Promise<void> {
  await page.getByLabel('Version to release').fill(version);
  await page.getByRole('button', { name: 'Start a new run' }).click();
  await page.locator('human-input-form').getByText(`Version ${version} brings faster uploads`).waitFor({ timeout: 10_000 });
}

/** The element's events an example app listed, sorted: that each arrived is the point here (their order is tested with the element). */
export async function seenByApp(page: Page): Promise<string[]> {
  return (await page.locator('#seen li').allInnerTexts()).sort();
}
