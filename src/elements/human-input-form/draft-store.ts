/**
 * Typed values that wait for a reload of the page, one draft per form token, in the storage the
 * element's `draft-storage` names. Drafts are a convenience: storage that refuses (private mode,
 * a full quota, a sandbox) loses them and nothing else.
 */

/** Where drafts are kept: `localStorage`, `sessionStorage`, or nowhere. */
export type DraftStorage = 'local' | 'session' | 'none';

const keyOf = (token: string) => `hitl-draft:${token}`;

function use<T>(where: DraftStorage, act: (store: Storage) => T): T | undefined {
  try {
    return where === 'none' ? undefined : act(where === 'session' ? sessionStorage : localStorage);
  } catch {
    return undefined;
  }
}

/** The draft of the form `token`: its inputs' states by name (empty when there is none). */
export const readDraft = (where: DraftStorage, token: string): Record<string, string> => use(where, (store) => JSON.parse(store.getItem(keyOf(token)) ?? '{}') as Record<string, string>) ?? {};

/** Keeps the inputs' states of the form `token`. */
export const writeDraft = (where: DraftStorage, token: string, states: Record<string, string>): void => use(where, (store) => store.setItem(keyOf(token), JSON.stringify(states)));

/** Forgets the draft of a form answered or gone. */
export const clearDraft = (where: DraftStorage, token: string): void => use(where, (store) => store.removeItem(keyOf(token)));
