/**
 * The workspace's models (from the fixture) and provider identifiers: `<org>/<plugin>/<provider>`,
 * where a bare `<name>` stands for `<default_organization>/<name>/<name>` (`ModelProviderID`).
 */
import { badParam } from '../errors.js';
import type { FixtureModel } from './fixture-schema.js';

export type ModelType = FixtureModel['model_type'];

const FULL_ID = /^[a-z0-9_-]+\/[a-z0-9_-]+\/[a-z0-9_-]+$/;
const BARE_ID = /^[a-z0-9_-]+$/;

export const NO_EMBEDDING_MODEL = 'No Embedding Model available. Please configure a valid provider in the Settings -> Model Provider.';
export const NO_RERANK_MODEL = 'No Rerank Model available. Please configure a valid provider in the Settings -> Model Provider.';

/** Expands a provider identifier; `null` when it is neither a full nor a bare identifier. */
export function expandProvider(value: string, defaultOrganization: string): string | null {
  if (FULL_ID.test(value)) return value;
  if (BARE_ID.test(value)) return `${defaultOrganization}/${value}/${value}`;
  return null;
}

export class ModelRegistry {
  constructor(
    readonly models: readonly FixtureModel[],
    readonly defaultOrganization: string,
  ) {}

  /** The model as listed, if listed; `provider` may be bare. */
  find(type: ModelType, provider: string | null | undefined, model: string | null | undefined): FixtureModel | undefined {
    if (!provider || !model) return undefined;
    const full = expandProvider(provider, this.defaultOrganization);
    if (!full) return undefined;
    return this.models.find((m) => m.model_type === type && m.provider === full && m.model === model);
  }

  isAvailable(type: ModelType, provider: string | null | undefined, model: string | null | undefined): boolean {
    return this.find(type, provider, model)?.status === 'active';
  }

  /** The default model of a type: the one marked default, else the first active one. */
  defaultModel(type: ModelType): FixtureModel | undefined {
    const active = this.models.filter((m) => m.model_type === type && m.status === 'active');
    return active.find((m) => m.default) ?? active[0];
  }

  /** Throws `400 invalid_param` unless the model is listed and active; answers the full provider id. */
  require(type: 'text-embedding' | 'rerank', provider: string, model: string): string {
    const full = expandProvider(provider, this.defaultOrganization);
    if (!full) throw badParam(`Invalid plugin id ${provider}`);
    if (!this.isAvailable(type, full, model)) throw badParam(type === 'rerank' ? NO_RERANK_MODEL : NO_EMBEDDING_MODEL);
    return full;
  }
}
