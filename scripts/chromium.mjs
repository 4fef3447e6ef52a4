// Where Chromium is, and how it runs headless on a machine with no display, no sandbox for root and
// no sound: the one place `npm test` (run-tests.mjs), the test helpers, web-test-runner and the
// benchmarks find it (test/helpers/chromium.ts launches it with Playwright).
import { existsSync } from 'node:fs';

export const CHROMIUM_ARGS = [
  '--no-sandbox',
  '--headless',
  '--disable-gpu',
  '--disable-dev-shm-usage',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
  '--no-first-run',
  '--autoplay-policy=no-user-gesture-required',
];

/** `CHROMIUM_PATH`, else Debian's Chromium (the binary itself first: its wrapper script prints noise). */
export function chromiumPath() {
  const found = [process.env.CHROMIUM_PATH, '/usr/lib/chromium/chromium', '/usr/bin/chromium'].find((p) => p && existsSync(p));
  if (!found) throw new Error('Chromium not found: install it with `apt-get install -y chromium` (Debian) or set CHROMIUM_PATH.');
  return found;
}
