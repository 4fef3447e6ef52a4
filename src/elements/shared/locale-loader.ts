/**
 * Loads a shipped locale's term table on first use (`ja`, or the companions' `companions.ja`),
 * so only pages that need it pay for it. Bundlers split these imports into chunks of their own.
 * The script-tag bundle cannot split, so its build swaps this module for `locale-loader.script.ts`
 * (see vite.config.ts).
 */
const LOCALES: Record<string, () => Promise<{ default: unknown }>> = {
  ja: () => import('../locales/ja.js'),
  'zh-Hans': () => import('../locales/zh-Hans.js'),
  'companions.ja': () => import('../locales/companions.ja.js'),
  'companions.zh-Hans': () => import('../locales/companions.zh-Hans.js'),
};

export const loadLocale = async (name: string): Promise<unknown> => (await LOCALES[name]!()).default;
