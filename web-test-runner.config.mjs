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
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createHostBackend } from './demo/host-backend.ts';

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

const find = (...paths) => paths.find((p) => p && existsSync(p));
const missing = (what, install) => {
  console.error(`${what} not found: install it with \`apt-get install -y ${install}\`.`);
  process.exit(1);
};

const freePort = () =>
  new Promise((resolve, reject) => {
    const server = createServer().listen(0, '127.0.0.1', () => {
      const { port } = server.address();
      server.close(() => resolve(port));
    });
    server.on('error', reject);
  });

/** Child processes this config starts (the WebKit driver, Xvfb), ended when the test server stops. */
const children = [];
const stopChildren = () => {
  for (const child of children) if (child.exitCode === null) child.kill();
};
process.once('exit', stopChildren);

/** A virtual X display (`:N`) from Xvfb, which picks a free number and writes it to fd 3. */
async function xvfbDisplay() {
  if (!find('/usr/bin/Xvfb')) missing('Xvfb (for WebKit)', 'xvfb');
  const xvfb = spawn('Xvfb', ['-displayfd', '3', '-screen', '0', '1280x1024x24', '-nolisten', 'tcp'], { stdio: ['ignore', 'ignore', 'pipe', 'pipe'] });
  children.push(xvfb);
  let err = '';
  xvfb.stderr.on('data', (d) => (err += d));
  return new Promise((resolve, reject) => {
    let out = '';
    xvfb.stdio[3].on('data', (d) => {
      out += d;
      if (out.includes('\n')) resolve(`:${out.trim()}`);
    });
    xvfb.once('exit', (code) => reject(new Error(`Xvfb exited (${code}): ${err}`)));
  });
}

/** Starts WebKitWebDriver on a free port and waits until it answers. */
async function webkitDriver(env) {
  const port = await freePort();
  const driver = spawn('WebKitWebDriver', [`--port=${port}`], { stdio: 'ignore', env });
  children.push(driver);
  const deadline = Date.now() + 15_000;
  for (;;) {
    try {
      if ((await fetch(`http://127.0.0.1:${port}/status`)).ok) return port;
    } catch {
      // not listening yet
    }
    if (driver.exitCode !== null) throw new Error(`WebKitWebDriver exited (${driver.exitCode})`);
    if (Date.now() > deadline) throw new Error('WebKitWebDriver did not start');
    await new Promise((r) => setTimeout(r, 100));
  }
}

const launchers = {
  chromium() {
    const executablePath = find(process.env.CHROMIUM_PATH, '/usr/lib/chromium/chromium', '/usr/bin/chromium');
    if (!executablePath) missing('Chromium (or set CHROMIUM_PATH)', 'chromium');
    return playwrightLauncher({
      product: 'chromium',
      launchOptions: {
        executablePath,
        headless: true,
        args: ['--no-sandbox', '--autoplay-policy=no-user-gesture-required', '--disable-gpu', '--disable-dev-shm-usage', '--disable-background-networking', '--disable-component-update', '--disable-sync', '--no-first-run'],
      },
    });
  },
  firefox() {
    const executablePath = find(process.env.FIREFOX_PATH, '/usr/bin/firefox-esr', '/usr/bin/firefox');
    if (!executablePath) missing('Firefox (or set FIREFOX_PATH)', 'firefox-esr');
    return puppeteerLauncher({
      launchOptions: {
        browser: 'firefox',
        executablePath,
        headless: true,
        extraPrefsFirefox: {
          // Audio tests start playback without a user gesture, as the Chromium flag above allows.
          'media.autoplay.default': 0,
          'media.autoplay.blocking_policy': 0,
          // A machine without a sound server or card (CI) has no audio sink: Firefox then fails every
          // playing element with a decode error (OnMediaSinkAudioError). Its mock audio backend plays
          // in real time to no device, as Chromium's headless mode does by itself.
          'media.cubeb.force_mock_context': true,
        },
      },
    });
  },
  async webkit() {
    const binary = find(process.env.MINIBROWSER_PATH, '/usr/lib/x86_64-linux-gnu/webkit2gtk-4.1/MiniBrowser', '/usr/lib/aarch64-linux-gnu/webkit2gtk-4.1/MiniBrowser');
    if (!binary || !find('/usr/bin/WebKitWebDriver')) missing('WebKitWebDriver and MiniBrowser', 'webkit2gtk-driver');
    const env = { ...process.env };
    if (!env.DISPLAY) env.DISPLAY = await xvfbDisplay();
    // The driver starts MiniBrowser, which inherits the display from the driver's environment.
    const port = await webkitDriver(env);
    return webdriverLauncher({
      hostname: '127.0.0.1',
      port,
      capabilities: {
        browserName: 'MiniBrowser',
        'wdio:enforceWebDriverClassic': true,
        'webkitgtk:browserOptions': { binary, args: ['--automation', '--autoplay-policy=allow'] },
      },
    });
  },
};

const engines = selectedEngines();
const browsers = await Promise.all(engines.map((e) => launchers[e]()));

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
        stopChildren();
      },
    },
  ],
  middleware: [
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
