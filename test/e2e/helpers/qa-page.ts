/**
 * The QA demo page under test: one demo (embedded service, host backend, page) and one Chromium
 * for the whole file, started before its tests and closed after them.
 */
import { after, before } from 'node:test';
import type { Browser, Page } from 'playwright-core';
import { startDemo, type RunningDemo } from '../../../demo/server.js';
import { launchChromium } from '../../helpers/chromium.js';
import { E2E_FIXTURE } from './examples.js';
import { collectProblems, firstTextbox } from './forms.js';

export interface QaPage {
  readonly demo: RunningDemo;
  /** The service's own view (the test, on loopback, may ask its admin endpoint directly). */
  serviceState(): Promise<{ settings: Record<string, unknown>; runs: { user: string; status: string }[] }>;
  /** A fresh page on the demo, once its form is ready; `problems` collects page errors. */
  openPage(): Promise<{ page: Page; problems: string[] }>;
  logText(page: Page): Promise<string>;
}

export function useQaPage(): QaPage {
  let demo: RunningDemo | undefined;
  let browser: Browser | undefined;
  before(async () => {
    demo = await startDemo({ port: 0, servicePort: 0, fixturePath: E2E_FIXTURE });
    browser = await launchChromium();
  });
  after(async () => {
    await browser?.close();
    await demo?.close();
  });
  return {
    get demo() {
      return demo!;
    },
    async serviceState() {
      return (await fetch(new URL('/_qa/state', new URL(demo!.backend.upstreamUrl).origin))).json() as never;
    },
    async openPage() {
      const page = await browser!.newPage();
      const problems = collectProblems(page);
      await page.goto(demo!.url);
      await firstTextbox(page.locator('human-input-form'));
      return { page, problems };
    },
    logText: (page) => page.locator('#log').innerText(),
  };
}
