/**
 * The companion elements' own terms, beside the form's (`terms.ts`, whose `loading`, `error`,
 * `retry` and `cancel` they share): a typed English table, the same locale lookup and the same
 * loading of shipped locales (`locales/companions.<locale>.ts`) on first use.
 */
import { TermTables, termsFor, type Terms } from './terms.js';

const en = {
  more: 'Load more',
  empty: 'No conversations yet.',
  untitled: 'New conversation',
  conversations: 'Conversations',
  sortBy: 'Sort by',
  byActive: 'Recently active',
  byInactive: 'Least recently active',
  byNewest: 'Newest',
  byOldest: 'Oldest',
  rename: 'Rename',
  del: 'Delete',
  confirmDelete: 'Delete “{0}”?',
  newName: 'New name',
  save: 'Save',
  deleted: 'Deleted.',
  saved: 'Saved.',
  variables: 'Conversation variables',
  filter: 'Filter by name',
  noConversation: 'Choose a conversation to see its variables.',
  noVariables: 'No variables.',
  badJson: 'Enter valid JSON.',
  readOnly: 'Read only',
  like: 'Like',
  dislike: 'Dislike',
  comment: 'Add a comment',
  send: 'Send',
  thanks: 'Thanks for your feedback.',
  revoked: 'Feedback removed.',
  play: 'Play',
  pause: 'Pause',
  stop: 'Stop',
  tapToPlay: 'Tap to play',
  progress: 'Playback position',
  playing: 'Playing.',
  paused: 'Paused.',
  ended: 'Finished.',
  badFilter: 'Use letters, digits, “.”, “_” and “-” only.',
  badNumber: 'Enter a number.',
  noSession: 'This element cannot load: its session-url attribute is missing.',
  appNoConversations: 'This app has no conversations.',
  appNoVariables: 'This app has no conversation variables.',
  appNoFeedback: 'This app takes no message feedback.',
};

/** The companions' own table: what `registerCompanionTerms` takes and `locales/companions.*.ts` hold. */
export type CompanionTermTable = typeof en;
/** What a companion says: the form's terms with the companions' over them. */
export type CompanionTerms = Terms & CompanionTermTable;

/** The keys of the companions' own table. */
export const COMPANION_KEYS = /* @__PURE__ */ Object.keys(en) as (keyof CompanionTermTable)[];

const tables = new TermTables(en, 'companions.');

/** Adds or replaces a locale's companion terms. */
export const registerCompanionTerms = (locale: string, terms: CompanionTermTable): void => tables.register(locale, terms);

/**
 * The form's terms for `locale` with the companions' over them. A shipped locale not loaded yet
 * answers English and asks `host` to render again once it has loaded.
 */
export const companionTerms = (locale: string, host?: { requestUpdate(): void }): CompanionTerms => ({ ...termsFor(locale, host), ...tables.for(locale, host) });
