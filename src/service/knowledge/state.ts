/** The knowledge store's state, which the parts that change it (datasets, documents, tags) share. */
import type { KnowledgeFixture } from './fixture-schema.js';
import type { Indexer } from './indexing.js';
import type { Account, DatasetRecord, TagRecord } from './records.js';
import type { WorkspaceView } from './serialise.js';

export interface KnowledgeState extends WorkspaceView {
  readonly owner: Account;
  readonly accounts: ReadonlyMap<string, Account>;
  readonly datasets: DatasetRecord[];
  readonly tags: TagRecord[];
  readonly fixture: KnowledgeFixture | undefined;
  readonly indexer: Indexer;
}
