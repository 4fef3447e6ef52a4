// Browser tests of the elements in Debian's Chromium, against the sample host backend (relay +
// embedded service) mounted on the test server, so every request is real HTTP on loopback.
// Run through `node --import tsx` so this config can load the TypeScript backend.
import { esbuildPlugin } from '@web/dev-server-esbuild';
import { playwrightLauncher } from '@web/test-runner-playwright';
import { existsSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createHostBackend } from './demo/host-backend.ts';

const executablePath = [process.env.CHROMIUM_PATH, '/usr/lib/chromium/chromium', '/usr/bin/chromium'].find((p) => p && existsSync(p));
if (!executablePath) {
  console.error('Chromium not found: install it with `apt-get install -y chromium` or set CHROMIUM_PATH.');
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

/** Prints `wtr: N passed, N failed, N skipped` on a line of its own, for CI. */
function countReporter() {
  let passed = 0;
  let failed = 0;
  let skipped = 0;
  const walk = (suite) => {
    for (const t of suite?.tests ?? []) {
      if (t.skipped) skipped++;
      else if (t.passed) passed++;
      else failed++;
    }
    for (const s of suite?.suites ?? []) walk(s);
  };
  return {
    onTestRunFinished({ sessions }) {
      for (const session of sessions) {
        walk(session.testResults);
        // A file that fails to load has no test results; count it as a failure.
        if (!session.passed && !session.testResults?.tests?.length && !session.testResults?.suites?.length) failed++;
      }
      console.log(`wtr: ${passed} passed, ${failed} failed, ${skipped} skipped`);
    },
  };
}

export default {
  files: ['test/elements/**/*.test.ts'],
  nodeResolve: { exportConditions: ['development'] },
  rootDir: '.',
  concurrency: 1,
  testFramework: { config: { timeout: 10000 } },
  plugins: [
    esbuildPlugin({ ts: true, target: 'es2022', tsconfig: 'tsconfig.json' }),
    { name: 'host-backend', serverStop: () => backend.close() },
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
  browsers: [
    playwrightLauncher({
      product: 'chromium',
      launchOptions: {
        executablePath,
        headless: true,
        args: ['--no-sandbox', '--autoplay-policy=no-user-gesture-required', '--disable-gpu', '--disable-dev-shm-usage', '--disable-background-networking', '--disable-component-update', '--disable-sync', '--no-first-run'],
      },
    }),
  ],
  reporters: [(await import('@web/test-runner')).defaultReporter(), countReporter()],
};
