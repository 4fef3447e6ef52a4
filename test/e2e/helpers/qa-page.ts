/**
 * The QA demo page under test: one demo (embedded service, host backend, page) and one Chromium
 * for the whole file, started before its tests and closed after them. The fixture is the e2e one
 * unless the file asks for another (the default one is what `npm start` serves).
 */
import { after, before } from 'node:test';
import type { Browser, Page } from 'playwright-core';
import { startDemo, type DemoOptions, type RunningDemo } from '../../../demo/server.js';
import { launchChromium } from '../../helpers/chromium.js';
import { E2E_FIXTURE } from './examples.js';
import { collectProblems, firstTextbox } from './forms.js';

export interface QaPage {
  readonly demo: RunningDemo;
  /** The service's own view (the test, on loopback, may ask its admin endpoint directly). */
  serviceState(): Promise<{ settings: Record<string, unknown>; runs: { id: string; user: string; status: string }[] }>;
  /**
   * A fresh page on the demo (at `hash`, e.g. `#app=<id>`), once it is ready: by default once its
   * form shows a text box; `problems` collects page errors.
   */
  openPage(options?: { hash?: string; viewport?: { width: number; height: number }; ready?: (page: Page) => Promise<unknown> }): Promise<{ page: Page; problems: string[] }>;
  logText(page: Page): Promise<string>;
}

/**
 * One demo (on free ports) and one Chromium for the whole test file, started before its tests and
 * closed after them. `options` runs when the demo starts, so it may first make what the demo is
 * given (an upstream, a folder); the fixture is `npm start`'s unless it names another.
 */
export function useDemo(options: () => DemoOptions | Promise<DemoOptions> = () => ({})): { readonly demo: RunningDemo; readonly browser: Browser } {
  let demo: RunningDemo | undefined;
  let browser: Browser | undefined;
  before(async () => {
    demo = await startDemo({ port: 0, servicePort: 0, ...(await options()) });
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
    get browser() {
      return browser!;
    },
  };
}

export function useQaPage(options: { fixturePath?: string } = {}): QaPage {
  const site = useDemo(() => ({ fixturePath: options.fixturePath ?? E2E_FIXTURE }));
  return {
    get demo() {
      return site.demo;
    },
    async serviceState() {
      return (await fetch(new URL('/_qa/state', new URL(site.demo.backend.upstreamUrl).origin))).json() as never;
    },
    async openPage({ hash = '', viewport, ready = (page: Page) => firstTextbox(page.locator('human-input-form')) } = {}) {
      const page = await site.browser.newPage(viewport ? { viewport } : {});
      const problems = collectProblems(page);
      await page.goto(site.demo.url + hash);
      await ready(page);
      return { page, problems };
    },
    logText: (page) => page.locator('#log').innerText(),
  };
}

/** The run the page records in its URL (`#app=…&run=…`), once there is one other than `not`. */
export async function runInUrl(page: Page, not = '', timeoutMs = 10_000): Promise<string> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const run = new URLSearchParams(new URL(page.url()).hash.slice(1)).get('run');
    if (run && run !== not) return run;
    if (Date.now() > deadline) throw new Error(`no run${not ? ` other than ${not}` : ''} in ${page.url()}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

/** Edits the URL's hash as a user would in the address bar (a same-page navigation, no reload). */
export async function setHash(page: Page, hash: string): Promise<void> {
  await page.evaluate(`location.hash = ${JSON.stringify(hash)}`);
}

/** Whether the page scrolls sideways at its viewport's width. */
export async function scrollsSideways(page: Page): Promise<boolean> {
  return (await page.evaluate('document.documentElement.scrollWidth > window.innerWidth')) as boolean;
}
