/**
 * The script-tag bundle's locale loader: each shipped locale is a file beside the bundle
 * (`hitl-elements.ja.js`, `hitl-elements.zh-Hans.js`), found from the bundle's own URL.
 */
import type { Terms } from './terms.js';

// Read while the bundle's script runs; later `currentScript` is gone.
const base = (document.currentScript as HTMLScriptElement | null)?.src || document.baseURI;

export const loadLocale = async (locale: string): Promise<Terms> =>
  ((await import(/* @vite-ignore */ new URL(`hitl-elements.${locale}.js`, base).href)) as { default: Terms }).default;
