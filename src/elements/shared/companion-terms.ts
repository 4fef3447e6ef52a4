/**
 * The companion elements' own terms, beside the form's (`terms.ts`, whose `loading`, `error`,
 * `retry` and `cancel` they share): the same `|`-separated tables in `COMPANION_KEYS` order,
 * the same locale lookup, the same loading of shipped locales on first use.
 */
import { loadCompanionLocale } from './companion-locale-loader.js';
import { termsFor, type Terms } from './terms.js';

export const COMPANION_KEYS = [
  'more', 'empty', 'untitled', 'conversations', 'sortBy', 'byActive', 'byInactive', 'byNewest', 'byOldest',
  'rename', 'del', 'confirmDelete', 'newName', 'save', 'deleted', 'saved', 'variables', 'filter',
  'noConversation', 'noVariables', 'badJson', 'readOnly', 'like', 'dislike', 'comment', 'send', 'thanks',
  'revoked', 'play', 'pause', 'stop', 'tapToPlay', 'progress', 'badFilter', 'badNumber', 'noSession',
  'appNoConversations', 'appNoVariables', 'appNoFeedback',
] as const;

export type CompanionTerms = Terms & Record<(typeof COMPANION_KEYS)[number], string>;

const TABLES: Record<string, string | Record<string, string>> = {
  en: 'Load more|No conversations yet.|New conversation|Conversations|Sort by|Recently active|Least recently active|Newest|Oldest|Rename|Delete|Delete “{0}”?|New name|Save|Deleted.|Saved.|Conversation variables|Filter by name|Choose a conversation to see its variables.|No variables.|Enter valid JSON.|Read only|Like|Dislike|Add a comment|Send|Thanks for your feedback.|Feedback removed.|Play|Pause|Stop|Tap to play|Playback position|Use letters, digits, “.”, “_” and “-” only.|Enter a number.|This element cannot load: its session-url attribute is missing.|This app has no conversations.|This app has no conversation variables.|This app takes no message feedback.',
};

/** Adds or replaces a locale's companion terms. */
export function registerCompanionTerms(locale: string, terms: Record<(typeof COMPANION_KEYS)[number], string>): void {
  TABLES[locale] = terms;
}

/** Locales shipped beyond English (`locales/companions.<locale>.ts`). */
const SHIPPED = ['zh-Hans', 'ja'];
const loading = new Map<string, Promise<unknown>>();

/**
 * The form's terms for `locale` with the companions' over them. A shipped locale not loaded yet
 * answers English and asks `host` to render again once it has loaded.
 */
export function companionTerms(locale: string, host?: { requestUpdate(): void }): CompanionTerms {
  const lower = locale.toLowerCase();
  const key = [locale, lower.startsWith('zh') ? 'zh-Hans' : lower.split('-')[0]!].find((k) => TABLES[k] || SHIPPED.includes(k)) ?? 'en';
  if (!TABLES[key]) {
    let load = loading.get(key);
    if (!load) loading.set(key, (load = loadCompanionLocale(key).then((text) => (TABLES[key] ??= text))));
    void load.then(() => host?.requestUpdate(), () => undefined);
  }
  const found = TABLES[key] ? key : 'en';
  let table = TABLES[found]!;
  if (typeof table === 'string') {
    const parts = table.split('|');
    TABLES[found] = table = Object.fromEntries(COMPANION_KEYS.map((k, i) => [k, parts[i]!]));
  }
  return { ...termsFor(locale, host), ...table } as CompanionTerms;
}
