/** Launches Chromium headless (found by scripts/chromium.mjs) for end-to-end tests and benchmarks. */
import { chromium, type Browser } from 'playwright-core';
import { CHROMIUM_ARGS, chromiumPath } from '../../scripts/chromium.mjs';

export { CHROMIUM_ARGS, chromiumPath };

export function launchChromium(): Promise<Browser> {
  return chromium.launch({ executablePath: chromiumPath(), headless: true, args: CHROMIUM_ARGS });
}
