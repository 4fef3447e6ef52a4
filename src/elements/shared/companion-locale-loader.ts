/**
 * Loads a shipped locale's companion terms on first use. Bundlers split these imports into
 * chunks of their own; the script-tag build swaps this module for
 * `companion-locale-loader.script.ts` (see vite.config.ts).
 */
export const loadCompanionLocale = async (locale: string): Promise<string> =>
  (await (locale === 'ja' ? import('../locales/companions.ja.js') : import('../locales/companions.zh-Hans.js'))).default;
