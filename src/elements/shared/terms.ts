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

/** Locales shipped beyond English: `locales/<locale>.ts` and `locales/companions.<locale>.ts`, loaded by `locale-loader`. */
const SHIPPED = ['zh-Hans', 'ja'];
/** Whether a number formatter has been made ahead: a page's first loads the engine's number data (30–130 ms in Chromium). */
let numbersReady = false;

/**
 * One set of term tables (the form's, the companions'), by locale: English built in, the shipped
 * locales loaded on first use from `<prefix><locale>`, others registered by the host page.
 */
export class TermTables<T> {
  readonly #tables: Record<string, T>;
  readonly #prefix: string;
  readonly #loading = new Map<string, Promise<unknown>>();

  constructor(en: T, prefix: string) {
    this.#tables = { en };
    this.#prefix = prefix;
  }

  /** Adds or replaces a locale's table (a BCP 47 tag such as `fr` or `pt-BR`). */
  register(locale: string, terms: T): void {
    this.#tables[locale] = terms;
  }

  /**
   * The table for a BCP 47 tag: the exact tag, else its language (every `zh-*` tag reads
   * zh-Hans), else English. A shipped locale not loaded yet answers English and, once loaded,
   * asks `host` to render again.
   */
  for(locale = '', host?: { requestUpdate(): void }): T {
    const lower = locale.toLowerCase();
    const key = [locale, lower.startsWith('zh') ? 'zh-Hans' : lower.split('-')[0]!].find((k) => this.#tables[k] || SHIPPED.includes(k)) ?? 'en';
    if (this.#tables[key]) return this.#tables[key];
    // Asked once per page: a locale that failed to load stays English rather than being asked
    // again on every render (the form renders every second while a countdown runs).
    let load = this.#loading.get(key);
    if (!load) this.#loading.set(key, (load = loadLocale(this.#prefix + key).then((terms) => (this.#tables[key] ??= terms as T))));
    void load.then(() => host?.requestUpdate(), () => undefined);
    return this.#tables.en!;
  }
}

const tables = new TermTables(en, '');

/** Adds or replaces a locale's terms (a BCP 47 tag such as `fr` or `pt-BR`). */
export const registerTerms = (locale: string, terms: Terms): void => tables.register(locale, terms);

/** The form's terms for a BCP 47 tag (see `TermTables.for`). */
export const termsFor = (locale = '', host?: { requestUpdate(): void }): Terms => {
  // Made while the first element waits for the network, so that a form's countdown (formatUnit)
  // does not add that to the time between the run's event and a usable form.
  if (!numbersReady) (numbersReady = true), setTimeout(() => new Intl.NumberFormat().format(0));
  return tables.for(locale, host);
};

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
