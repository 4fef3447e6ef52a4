/**
 * Every user-visible string of the elements, per locale; templates never hard-code text.
 * English ships in the bundle; the other shipped locales load the first time one is in force.
 * `{0}` marks where `format` puts a value.
 */
import { loadLocale } from './locale-loader.js';

const en = {
  loading: 'Loading…',
  waiting: 'Waiting for the next step…',
  ready: 'Ready for your input.',
  submitting: 'Submitting…',
  submitted: 'Submitted.',
  finished: 'The workflow has finished.',
  failed: 'The workflow failed.',
  error: 'Something went wrong.',
  partFailed: 'Part of this form could not be loaded. Check your connection and try again.',
  retry: 'Try again',
  undrivable: 'This step is answered by email and cannot be completed here.',
  expired: 'This form has expired.',
  timeout: 'Time ran out for this step.',
  taken: 'This form has already been submitted.',
  untitled: 'Your input is requested',
  chose: 'You chose “{0}”.',
  timeLeft: 'Time left: {0}',
  fix: 'Check the highlighted fields.',
  required: 'This field is required.',
  select: 'Choose…',
  choose: 'Choose files',
  drop: 'or drop or paste them here',
  chooseOne: 'Choose a file',
  dropOne: 'or drop or paste it here',
  url: 'File link',
  add: 'Add link',
  badUrl: 'Enter a link starting with http:// or https://.',
  badType: '{0}: this file type is not accepted.',
  tooMany: 'At most {0} files.',
  notAdded: '{0}: not added (at most {1}).',
  tooBig: 'Larger than the {0} limit.',
  pending: 'Wait for the uploads to finish, or remove the failed ones.',
  uploading: 'Uploading ({0})…',
  uploadFailed: 'Upload failed.',
  cancel: 'Cancel',
  remove: 'Remove',
  allowed: 'Accepted: {0}.',
  req: 'Required',
  nth: '{0} ({1})',
  openImage: 'Open image ({0})',
  linkFailed: 'Could not fetch this link. Check it opens, then send again. ({0})',
  noSession: 'This form cannot load: its session-url attribute is missing.',
};

export type Terms = typeof en;
export type TermKey = keyof Terms;

const TABLES: Record<string, Terms> = { en };
/** Shipped beyond English; see `locale-loader`. */
const SHIPPED = ['zh-Hans', 'ja'];
const loading = new Map<string, Promise<unknown>>();
/** Whether a number formatter has been made ahead: a page's first loads the engine's number data (30–130 ms in Chromium). */
let numbersReady = false;

/** Adds or replaces a locale's terms (a BCP 47 tag such as `fr` or `pt-BR`). */
export function registerTerms(locale: string, terms: Terms): void {
  TABLES[locale] = terms;
}

/**
 * Terms for a BCP 47 tag: the exact tag, else its language (every `zh-*` tag reads zh-Hans),
 * else English. A shipped locale not loaded yet answers English and, once loaded, asks `host`
 * to render again.
 */
export function termsFor(locale = '', host?: { requestUpdate(): void }): Terms {
  // Made while the first element waits for the network, so that a form's countdown (formatUnit)
  // does not add that to the time between the run's event and a usable form.
  if (!numbersReady) (numbersReady = true), setTimeout(() => new Intl.NumberFormat().format(0));
  const lower = locale.toLowerCase();
  const key = [locale, lower.startsWith('zh') ? 'zh-Hans' : lower.split('-')[0]!].find((k) => TABLES[k] || SHIPPED.includes(k)) ?? 'en';
  if (TABLES[key]) return TABLES[key];
  let load = loading.get(key);
  if (!load) loading.set(key, (load = loadLocale(key).then((terms) => (TABLES[key] ??= terms))));
  void load.then(() => host?.requestUpdate(), () => undefined);
  return en;
}

/** A term with `{0}`, `{1}` replaced by the values in that order. */
export const format = (term: string, ...values: unknown[]): string => term.replace(/\{(\d)\}/g, (_, i: string) => String(values[+i]));

/**
 * The tag to format numbers and times in beside `termsFor(locale)`'s words: English while the
 * locale's terms are missing (still loading, failed to load, or never shipped), so a page never
 * reads half in one language.
 */
export const intlLocale = (locale: string, host?: { requestUpdate(): void }): string =>
  termsFor(locale, host) !== en || /^en\b/i.test(locale) ? locale : 'en';

/** The nearest `lang` attribute, looking through shadow roots up to the document. */
export function localeOf(element: Element): string {
  for (let node: Element | undefined = element; node; node = node.parentElement ?? ((node.getRootNode() as ShadowRoot).host as Element | undefined)) {
    const lang = node.getAttribute('lang');
    if (lang) return canonical(lang);
  }
  return '';
}

/** The tag in canonical form, or '' when it is not a valid BCP 47 tag (Intl would throw on it). */
export function canonical(tag: string): string {
  try {
    return Intl.getCanonicalLocales(tag)[0] ?? '';
  } catch {
    return '';
  }
}

/** A number with a unit (`2 days`, `1.4 MB`) in the locale's words. */
export const formatUnit = (locale: string, value: number, unit: string, long?: boolean): string =>
  new Intl.NumberFormat(locale || 'en', { style: 'unit', unit, unitDisplay: long ? 'long' : 'short', maximumFractionDigits: 1 }).format(value);
