/**
 * Loads a shipped locale's terms on first use, so only pages that need them pay for them.
 * Bundlers split these imports into chunks of their own. The script-tag bundle cannot split, so
 * its build swaps this module for `locale-loader.script.ts` (see vite.config.ts).
 */
import type { Terms } from './terms.js';

export const loadLocale = async (locale: string): Promise<Terms> =>
  (await (locale === 'ja' ? import('../locales/ja.js') : import('../locales/zh-Hans.js'))).default;
