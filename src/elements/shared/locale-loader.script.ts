/**
 * The script-tag bundle's locale loader: each shipped term table is a file beside the bundle
 * (`hitl-elements.ja.js`, `hitl-elements.companions.ja.js`), found from the bundle's own URL.
 */

// Read while the bundle's script runs; later `currentScript` is gone.
const base = (document.currentScript as HTMLScriptElement | null)?.src || document.baseURI;

export const loadLocale = async (name: string): Promise<unknown> =>
  ((await import(/* @vite-ignore */ new URL(`hitl-elements.${name}.js`, base).href)) as { default: unknown }).default;
