/**
 * The workspace's models (from the fixture) and provider identifiers: `<org>/<plugin>/<provider>`,
 * where a bare `<name>` stands for `<default_organization>/<name>/<name>` (`ModelProviderID`).
 */
import type { ModelProvider } from '../../protocol/index.js';
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

/** `ModelType.value_of`: the model types and the older names it also accepts. */
const MODEL_TYPE_NAMES: Record<string, string> = {
  llm: 'llm',
  'text-generation': 'llm',
  'text-embedding': 'text-embedding',
  embeddings: 'text-embedding',
  rerank: 'rerank',
  reranking: 'rerank',
  speech2text: 'speech2text',
  tts: 'tts',
  text2img: 'text2img',
  moderation: 'moderation',
};

/**
 * `GET /workspaces/current/models/model-types/{type}`: each provider with a model of that type
 * and those models, inactive ones included with their status (the workspace shows them too).
 */
export function providersOfType(registry: ModelRegistry, requested: string, tenantId: string): ModelProvider[] {
  const type = Object.hasOwn(MODEL_TYPE_NAMES, requested) ? MODEL_TYPE_NAMES[requested] : undefined;
  if (!type) throw badParam(`invalid origin model type ${requested}`);
  const byProvider = new Map<string, FixtureModel[]>();
  for (const m of registry.models) if (m.model_type === type) byProvider.set(m.provider, [...(byProvider.get(m.provider) ?? []), m]);
  return [...byProvider].map(([provider, models]) => {
    const name = provider.split('/').at(-1)!;
    return {
      provider,
      label: { en_US: name, zh_Hans: name },
      icon_small: null,
      icon_small_dark: null,
      status: models.some((m) => m.status === 'active') ? 'active' : models[0]!.status,
      tenant_id: tenantId,
      models: models.map((m) => ({
        model: m.model,
        label: { en_US: m.model, zh_Hans: m.model },
        model_type: m.model_type,
        features: null,
        fetch_from: 'predefined-model',
        model_properties: {},
        status: m.status,
        deprecated: false,
        load_balancing_enabled: false,
        has_invalid_load_balancing_configs: false,
      })),
    };
  });
}
