/**
 * The QA page on a 320 px screen in Firefox (headless, WebDriver BiDi) and WebKitGTK
 * (WebKitWebDriver): a form and a chat, each without sideways scrolling. Chromium checks the same
 * page, with much more, in qa-page-default.test.ts. The screen is a 320 px frame on a page of the
 * same origin: MiniBrowser's window does not get narrower than about 450 px.
 */
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import puppeteer from 'puppeteer-core';
import { remote } from 'webdriverio';
import { startDemo, type RunningDemo } from '../../demo/server.js';
import { loadFixture } from '../../src/service/fixture.js';
import { FIREFOX_PREFS, firefoxPath, startWebKitDriver, webkitCapabilities } from '../helpers/engines.js';
import { REPO } from './helpers/package-build.js';

const DEFAULT_FIXTURE = join(REPO, 'demo/fixtures/default.json');
const PHONE = { width: 320, height: 800 };

/** What a test needs of a browser page, whichever protocol drives it. */
interface Tab {
  open(url: string): Promise<void>;
  evaluate<T>(expression: string): Promise<T>;
  close(): Promise<void>;
}

/** The phone: a frame of PHONE's size showing `url`. */
async function openPhone(tab: Tab, url: string): Promise<void> {
  await tab.open(new URL('/no-such-page', url).href);
  await tab.evaluate(`(() => {
    const frame = document.createElement('iframe');
    frame.id = 'phone';
    frame.style.cssText = 'width: ${PHONE.width}px; height: ${PHONE.height}px; border: 0';
    frame.src = ${JSON.stringify(url)};
    document.body.replaceChildren(frame);
  })()`);
}

/** An expression on the phone's document. */
const inPhone = (expression: string) => `((window) => ((document) => ${expression})(window.document))(document.getElementById('phone').contentWindow)`;

async function firefoxTab(): Promise<Tab> {
  const browser = await puppeteer.launch({ browser: 'firefox', executablePath: firefoxPath(), headless: true, extraPrefsFirefox: FIREFOX_PREFS });
  const page = await browser.newPage();
  return {
    open: async (url) => void (await page.goto(url)),
    evaluate: (expression) => page.evaluate(expression) as never,
    close: () => browser.close(),
  };
}

async function webkitTab(): Promise<Tab> {
  const driver = await startWebKitDriver();
  try {
    const browser = await remote({ hostname: '127.0.0.1', port: driver.port, capabilities: webkitCapabilities(), logLevel: 'error' });
    return {
      open: (url) => browser.url(url) as Promise<never>,
      evaluate: (expression) => browser.execute(`return ${expression}`) as never,
      close: async () => {
        await browser.deleteSession().catch(() => {});
        driver.stop();
      },
    };
  } catch (error) {
    driver.stop();
    throw error;
  }
}

async function until(tab: Tab, expression: string, what: string, timeoutMs = 20_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await tab.evaluate<boolean>(`!!(${expression})`))) {
    if (Date.now() > deadline) throw new Error(`Timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 200));
  }
}

let demo: RunningDemo;
before(async () => {
  demo = await startDemo({ port: 0, servicePort: 0, fixturePath: DEFAULT_FIXTURE });
});
after(() => demo?.close());

for (const [engine, open] of [
  ['Firefox', firefoxTab],
  ['WebKit', webkitTab],
] as const) {
  describe(`the QA page in ${engine}`, () => {
    let tab: Tab;
    before(async () => {
      tab = await open();
    });
    after(() => tab?.close());

    test('a workflow form on a 320 px screen: no sideways scroll', async () => {
      const app = (await loadFixture(DEFAULT_FIXTURE)).apps.find((a) => a.mode === 'workflow')!.id;
      await openPhone(tab, `${demo.url}#app=${app}`);
      await until(tab, inPhone(`document.querySelector('human-input-form')?.matches(':state(ready)')`), 'the form');
      assert.equal(await tab.evaluate(inPhone('window.innerWidth')), PHONE.width);
      assert.equal(await tab.evaluate(inPhone('document.documentElement.scrollWidth > window.innerWidth')), false, 'the page is wider than the screen');
    });

    test('a chat with its answer, feedback and player on a 320 px screen: no sideways scroll', async () => {
      const app = (await loadFixture(DEFAULT_FIXTURE)).apps.find((a) => a.mode === 'chat')!.id;
      await openPhone(tab, `${demo.url}#app=${app}`);
      await until(tab, inPhone(`document.querySelector('#chat-answer')?.textContent.includes('You asked') && document.querySelector('tts-player')`), 'the answer and its player');
      assert.equal(await tab.evaluate(inPhone('document.documentElement.scrollWidth > window.innerWidth')), false, 'the page is wider than the screen');
    });
  });
}
