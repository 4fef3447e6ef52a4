/**
 * `GET /conversations` pages from an index per app and user. Against a plain filter-and-sort of
 * every conversation, after a seeded mix of creates, messages, renames, deletes and touches over
 * several apps and users, every order and every cursor page agrees.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { ConversationSort } from '../../src/protocol/index.js';
import { ConversationStore, type ConversationRecord } from '../../src/service/conversations/store.js';
import { loadFixture } from '../../src/service/index.js';
import { seededRandom } from '../seeded-random.js';

test('every order and cursor page matches a full filter-and-sort, after a random history', async () => {
  const fixture = await loadFixture();
  const apps = fixture.apps.slice(0, 2);
  const users = ['ann', 'bob', 'cy'];
  const store = new ConversationStore();
  const all: ConversationRecord[] = [];
  const next = seededRandom(42);
  const pick = <T>(items: readonly T[]): T => items[Math.floor(next() * items.length)]!;
  for (let i = 0; i < 600; i++) {
    const live = all.filter((c) => !c.deleted);
    const roll = next();
    if (roll < 0.4 || live.length === 0) all.push(store.create(pick(apps), pick(users), {}, `q${i}`, true));
    else if (roll < 0.6) store.addMessage(pick(live), { query: `m${i}`, inputs: {} });
    else if (roll < 0.7) store.rename(pick(live), `n${i}`, false);
    else if (roll < 0.8) store.delete(pick(live));
    else store.touch(pick(live));
  }
  const sorts: ConversationSort[] = ['created_at', '-created_at', 'updated_at', '-updated_at'];
  for (const app of apps) {
    for (const user of users) {
      for (const sortBy of sorts) {
        const field = sortBy.endsWith('created_at') ? 'createdMs' : 'updatedMs';
        const sign = sortBy.startsWith('-') ? -1 : 1;
        const expected = all
          .filter((c) => c.appId === app.id && c.user === user && !c.deleted)
          .sort((a, b) => sign * (a[field] - b[field]))
          .map((c) => c.id);
        for (const limit of [1, 7, 100]) {
          const seen: string[] = [];
          let lastId: string | null = null;
          for (;;) {
            const page = store.list(app.id, user, { lastId, limit, sortBy });
            seen.push(...page.data.map((c) => c.id));
            assert.equal(page.has_more, seen.length < expected.length, `${sortBy} limit ${limit}`);
            if (!page.has_more) break;
            lastId = seen.at(-1)!;
          }
          assert.deepEqual(seen, expected, `${app.id} ${user} ${sortBy} limit ${limit}`);
        }
      }
      // A deleted conversation, or another user's, is not a cursor.
      const foreign = all.find((c) => c.user !== user || c.appId !== app.id || c.deleted);
      if (foreign) assert.throws(() => store.list(app.id, user, { lastId: foreign.id, limit: 5, sortBy: '-updated_at' }), /Last Conversation Not Exists/);
    }
  }
});
