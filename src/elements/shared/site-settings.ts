/**
 * How every element applies the app's web settings (`GET /site`, fetched once per session by
 * `SessionSource.site()`): `chat_color_theme` becomes the accent, with black or white text on it,
 * whichever reads better; `default_language` is the language when no `lang` attribute is nearer.
 */
import type { SiteSettings } from '../../protocol/index.js';
import { canonical, localeOf } from './terms.js';

/**
 * The container's inline style for the app's colour: `--hitl-site-accent` and its text colour
 * `--hitl-site-contrast` (the shared styles fall back to them under `--hitl-accent` and
 * `--hitl-accent-contrast`); '' when the app has no usable colour.
 */
export function themeStyle(site: SiteSettings | undefined): string {
  const theme = site?.chat_color_theme ?? '';
  return CSS.supports('color', theme) ? `--hitl-site-accent:${theme};--hitl-site-contrast:${contrastOf(theme)}` : '';
}

/** The element's language: the nearest `lang`, else the app's `default_language`, else English. */
export const siteLocale = (element: Element, site: SiteSettings | undefined): string =>
  localeOf(element) || canonical(site?.default_language ?? '') || 'en';

/** Black or white, whichever reads better on a `#rgb` / `#rrggbb` colour (white for others). */
export function contrastOf(color: string): string {
  const hex = /^#([\da-f]{3}|[\da-f]{6})$/i.exec(color)?.[1];
  if (!hex) return '#fff';
  const full = hex.length === 3 ? hex.replace(/./g, '$&$&') : hex;
  const [r, g, b] = [0, 2, 4].map((i) => {
    const c = parseInt(full.slice(i, i + 2), 16) / 255;
    return c <= 0.04045 ? c / 12.92 : ((c + 0.055) / 1.055) ** 2.4;
  }) as [number, number, number];
  // Relative luminance above ~0.18 gives black text the better WCAG contrast.
  return 0.2126 * r + 0.7152 * g + 0.0722 * b > 0.18 ? '#000' : '#fff';
}
