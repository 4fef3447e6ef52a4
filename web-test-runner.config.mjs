// Browser tests of the elements in Chromium, Firefox and WebKit (Debian's builds), against the sample
// host backend (relay + embedded service) mounted on the test server, so every request is real HTTP
// on loopback. Run through `node --import tsx` so this config can load the TypeScript backend.
//
// Which engines: `--engine firefox` (repeatable, or comma-separated) or HITL_ENGINES=firefox,webkit;
// all three by default. Firefox runs headless through WebDriver BiDi (puppeteer-core); WebKitGTK's
// MiniBrowser has no headless mode, so it runs through WebKitWebDriver on a virtual X display that
// this config starts itself when there is no DISPLAY.
import { esbuildPlugin } from '@web/dev-server-esbuild';
import { playwrightLauncher } from '@web/test-runner-playwright';
import { puppeteerLauncher } from '@web/test-runner-puppeteer';
import { webdriverLauncher } from '@web/test-runner-webdriver';
import { existsSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createHostBackend } from './demo/host-backend.ts';
import { CHROMIUM_ARGS, chromiumPath } from './test/helpers/chromium.ts';
import { FIREFOX_PREFS, firefoxPath, startWebKitDriver, webkitCapabilities } from './test/helpers/engines.ts';

const ENGINES = ['chromium', 'firefox', 'webkit'];

function selectedEngines() {
  const named = [];
  const argv = process.argv;
  for (let i = 0; i < argv.length; i++) {
    if (argv[i] === '--engine') named.push(argv[++i] ?? '');
    else if (argv[i].startsWith('--engine=')) named.push(argv[i].slice('--engine='.length));
  }
  if (!named.length && process.env.HITL_ENGINES) named.push(process.env.HITL_ENGINES);
  const engines = named.flatMap((n) => n.split(',')).map((n) => n.trim().toLowerCase()).filter(Boolean);
  const unknown = engines.filter((e) => !ENGINES.includes(e));
  if (unknown.length) {
    console.error(`Unknown engine ${unknown.join(', ')}: choose from ${ENGINES.join(', ')}.`);
    process.exit(1);
  }
  return engines.length ? [...new Set(engines)] : ENGINES;
}

/** What the engines' launchers started (WebKit's driver and its Xvfb), ended when the test server stops. */
const started = [];
process.once('exit', () => started.forEach((s) => s.stop()));

const launchers = {
  chromium() {
    return playwrightLauncher({ product: 'chromium', launchOptions: { executablePath: chromiumPath(), headless: true, args: CHROMIUM_ARGS } });
  },
  firefox() {
    return puppeteerLauncher({ launchOptions: { browser: 'firefox', executablePath: firefoxPath(), headless: true, extraPrefsFirefox: FIREFOX_PREFS } });
  },
  async webkit() {
    const capabilities = webkitCapabilities();
    const driver = await startWebKitDriver();
    started.push(driver);
    return webdriverLauncher({ hostname: '127.0.0.1', port: driver.port, capabilities });
  },
};

const engines = selectedEngines();
let browsers;
try {
  browsers = await Promise.all(engines.map((e) => launchers[e]()));
} catch (error) {
  console.error(error.message);
  process.exit(1);
}

// Browser tests run on their own fixture when there is one (forms built to exercise every input
// type and state), else on the demo's default fixture.
let fixturePath = ['test/fixtures/browser.json'].find((p) => existsSync(p));
// The companion elements' tests use the default fixture's chat apps: they join the browser
// fixture's apps (in a merged copy) unless it has apps with those ids or keys already.
if (fixturePath) {
  const browser = JSON.parse(readFileSync(fixturePath, 'utf8'));
  const taken = new Set(browser.apps.flatMap((a) => [a.id, a.key]));
  const chatApps = JSON.parse(readFileSync('demo/fixtures/default.json', 'utf8')).apps.filter(
    (a) => a.mode !== 'workflow' && a.mode !== 'completion' && !taken.has(a.id) && !taken.has(a.key),
  );
  fixturePath = join(mkdtempSync(join(tmpdir(), 'hitl-wtr-')), 'fixture.json');
  writeFileSync(fixturePath, JSON.stringify({ ...browser, apps: [...browser.apps, ...chatApps] }));
}
/** Paths the beacon has been asked for. */
const beaconHits = [];
const backend = await createHostBackend({ servicePort: 0, fixturePath });

/**
 * Prints `wtr: N passed, N failed, N skipped` on a line of its own, for CI, after one line per
 * skipped test naming the engine (a test that cannot hold in an engine says why in its title).
 */
function countReporter() {
  return {
    onTestRunFinished({ sessions }) {
      let passed = 0;
      let failed = 0;
      let skipped = 0;
      const skips = [];
      const walk = (suite, path, browser) => {
        for (const t of suite?.tests ?? []) {
          if (t.skipped) {
            skipped++;
            skips.push(`skipped in ${browser}: ${[...path, t.name].join(' › ')}`);
          } else if (t.passed) passed++;
          else failed++;
        }
        for (const s of suite?.suites ?? []) walk(s, [...path, s.name], browser);
      };
      for (const session of sessions) {
        walk(session.testResults, [], session.browser.name);
        // A file that fails to load has no test results; count it as a failure.
        if (!session.passed && !session.testResults?.tests?.length && !session.testResults?.suites?.length) failed++;
      }
      for (const line of skips.sort()) console.log(line);
      console.log(`wtr: ${passed} passed, ${failed} failed, ${skipped} skipped`);
    },
  };
}

export default {
  files: ['test/elements/**/*.test.ts'],
  nodeResolve: { exportConditions: ['development'] },
  rootDir: '.',
  // One test file at a time per engine, and one engine at a time: the machine has two cores.
  concurrency: 1,
  concurrentBrowsers: 1,
  testFramework: { config: { timeout: 10000 } },
  plugins: [
    esbuildPlugin({ ts: true, target: 'es2022', tsconfig: 'tsconfig.json' }),
    {
      name: 'host-backend',
      serverStop: async () => {
        await backend.close();
        started.forEach((s) => s.stop());
      },
    },
  ],
  middleware: [
    // A beacon that counts the requests it gets by path prefix: remote-resource tests point
    // hostile content at it under another origin (127.0.0.1 instead of localhost) and read the count.
    async function beacon(context, next) {
      if (context.path.startsWith('/__beacon/')) {
        beaconHits.push(context.path);
        context.set('Cache-Control', 'no-store');
        context.type = 'image/gif';
        context.body = Buffer.from('R0lGODlhAQABAAAAACwAAAAAAQABAAA=', 'base64');
        return;
      }
      if (context.path === '/__beacons') {
        const prefix = `/__beacon/${context.query.prefix}/`;
        context.set('Cache-Control', 'no-store');
        context.body = beaconHits.filter((p) => p.startsWith(prefix));
        return;
      }
      return next();
    },
    async function hostBackend(context, next) {
      if (backend.handle(context.req, context.res)) {
        context.respond = false;
        await new Promise((resolve) => context.res.once('close', resolve));
        return;
      }
      return next();
    },
  ],
  browsers,
  reporters: [(await import('@web/test-runner')).defaultReporter(), countReporter()],
};
