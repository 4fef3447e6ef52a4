/**
 * Knowledge-key authentication, key scopes, and the subscription's knowledge request rate limit.
 */
import { bearerToken } from '../auth.js';
import { ApiError, unauthorized } from '../errors.js';

export interface KnowledgeKey {
  key: string;
  /** Ids of the knowledge bases the key may use; null = all of them. */
  scope: ReadonlySet<string> | null;
}

export const RATE_LIMIT_MESSAGE = 'Sorry, you have reached the knowledge base request rate limit of your subscription.';
/** The seed names the status and code of a scoped key's refusal, not its text (UNCONFIRMED wording). */
export const SCOPED_KEY_MESSAGE = 'This API key is scoped to specific knowledge bases and cannot be used on this endpoint.';
export const OUT_OF_SCOPE_MESSAGE = 'This API key is not authorized for this knowledge base.';

const forbidden = (message: string) => new ApiError(403, 'forbidden', message);

export class KeyRing {
  readonly #keys = new Map<string, KnowledgeKey>();

  constructor(keys: Iterable<KnowledgeKey>) {
    for (const k of keys) this.#keys.set(k.key, k);
  }

  /** Reads the bearer key with the real service's 401 messages (app keys are not knowledge keys). */
  authenticate(request: Request): KnowledgeKey {
    const key = this.#keys.get(bearerToken(request));
    if (!key) throw unauthorized('Access token is invalid');
    return key;
  }
}

/** A key scoped to some knowledge bases may not use routes without a knowledge base id. */
export function requireAllAccess(key: KnowledgeKey): void {
  if (key.scope) throw forbidden(SCOPED_KEY_MESSAGE);
}

export function requireDatasetAccess(key: KnowledgeKey, datasetId: string): void {
  if (key.scope && !key.scope.has(datasetId)) throw forbidden(OUT_OF_SCOPE_MESSAGE);
}

/**
 * The real service's sliding window: every counted request is recorded (rejected ones too), and a
 * request is refused while more than `limit` were recorded in the last `windowMs`.
 */
export class SlidingWindowLimit {
  readonly #hits: number[] = [];

  constructor(
    readonly limit: number,
    readonly windowMs: number,
    private readonly now: () => number = Date.now,
  ) {}

  hit(): void {
    const now = this.now();
    this.#hits.push(now);
    while (this.#hits.length && this.#hits[0]! <= now - this.windowMs) this.#hits.shift();
    if (this.#hits.length > this.limit) throw forbidden(RATE_LIMIT_MESSAGE);
  }

  clear(): void {
    this.#hits.length = 0;
  }
}
