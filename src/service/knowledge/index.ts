/**
 * The knowledge side of the embedded service: `knowledgeRoutes(router, fixture, uploads)` adds every
 * knowledge route to the service's router, with its own state created from the fixture's
 * `knowledge` section (no section: every knowledge key is invalid).
 */
import type { UploadStore } from '../files/uploads.js';
import type { Fixture } from '../fixture.js';
import type { Router } from '../router.js';
import { KeyRing, SlidingWindowLimit } from './access.js';
import { registerKnowledgeRoutes } from './routes.js';
import { KnowledgeStore } from './store.js';

export interface KnowledgeService {
  readonly store: KnowledgeStore;
  /** Back to the fixture's state, with a fresh rate-limit window (`/_qa/reset`). */
  reset(): void;
  /** Stops indexing timers. */
  close(): void;
}

/** `uploads` signs the links to documents' files, and serves those files through its signed links. */
export function knowledgeRoutes<C>(router: Router<C>, fixture: Fixture, uploads: UploadStore): KnowledgeService {
  const kn = fixture.knowledge;
  const store = new KnowledgeStore(kn, {
    stageDelayMs: kn?.indexing.stage_delay_ms ?? 25,
    statusReindexMs: kn?.indexing.status_reindex_ms ?? 0,
    maxSegmentationTokens: kn?.indexing.max_segmentation_tokens ?? 4000,
  });
  const keys = new KeyRing(
    (kn?.keys ?? []).map((k) => ({
      key: k.key,
      scope: k.datasets ? new Set(k.datasets.map((ref) => store.datasetIdByRef(ref)).filter((id): id is string => Boolean(id))) : null,
    })),
  );
  const rate = kn?.subscription.knowledge_rate_limit;
  const limit = rate?.enabled ? new SlidingWindowLimit(rate.limit, rate.window_seconds * 1000) : null;
  uploads.addLookup((id) => store.uploadFile(id));
  registerKnowledgeRoutes(router, { store, keys, limit, tenantId: fixture.tenant_id, uploads });
  return {
    store,
    reset: () => (store.reset(), limit?.clear()),
    close: () => store.close(),
  };
}

export { KnowledgeStore } from './store.js';
export { knowledgeFixtureSchema, type KnowledgeFixture } from './fixture-schema.js';
