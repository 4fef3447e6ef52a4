/** Knowledge-base rules: listing, creation and update as the real service checks them. */
import type { Dataset, DatasetPermission, IndexingTechnique, KnowledgePage, MetadataFieldType } from '../../protocol/index.js';
import { ApiError, badParam } from '../errors.js';
import { nowSeconds, uuid } from '../ids.js';
import { NO_EMBEDDING_MODEL } from './models.js';
import { pageOf, type Paging } from './paging.js';
import { DEFAULT_EXTERNAL_RETRIEVAL, duplicateName, summarySetting, type DatasetRecord } from './records.js';
import { datasetJSON } from './serialise.js';
import type { KnowledgeState } from './state.js';
import { BUILT_IN_FIELDS, type RetrievalModelInput } from './validation.js';

export interface CreateDatasetInput {
  name: string;
  description: string;
  indexing_technique?: IndexingTechnique | null;
  permission: DatasetPermission | null;
  provider: 'vendor' | 'external';
  external_knowledge_api_id?: string | null;
  external_knowledge_id?: string | null;
  retrieval_model?: RetrievalModelInput | null;
  embedding_model?: string | null;
  embedding_model_provider?: string | null;
  summary_index_setting?: { enable: boolean; model_name?: string | null; model_provider_name?: string | null; summary_prompt?: string | null } | null;
}

export interface UpdateDatasetInput {
  name?: string | null;
  description?: string | null;
  indexing_technique?: IndexingTechnique | null;
  permission?: DatasetPermission | null;
  embedding_model?: string | null;
  embedding_model_provider?: string | null;
  retrieval_model?: RetrievalModelInput | null;
  partial_member_list?: { user_id: string }[] | null;
  external_retrieval_model?: { top_k: number; score_threshold: number; score_threshold_enabled: boolean } | null;
  external_knowledge_id?: string | null;
  external_knowledge_api_id?: string | null;
}

/** Metadata field names of a knowledge base (built-in ones when enabled) and their types. */
export function metadataFields(ds: DatasetRecord | null): Map<string, MetadataFieldType> {
  const fields = new Map<string, MetadataFieldType>();
  if (!ds) return fields;
  for (const f of ds.doc_metadata) fields.set(f.name, f.type);
  if (ds.built_in_field_enabled) for (const [name, type] of Object.entries(BUILT_IN_FIELDS)) fields.set(name, type);
  return fields;
}

/** Checks the dataset's embedding model like `check_dataset_model_setting`. */
export function checkDatasetModel(state: KnowledgeState, ds: DatasetRecord): void {
  if (ds.indexing_technique === 'high_quality' && !state.registry.isAvailable('text-embedding', ds.embedding_model_provider, ds.embedding_model)) {
    throw badParam(NO_EMBEDDING_MODEL);
  }
}

/** The given embedding model (checked) or the workspace default; 400 when there is none. */
export function embeddingOrDefault(state: KnowledgeState, model?: string | null, provider?: string | null): { model: string; provider: string } {
  if (model && provider) return { model, provider: state.registry.require('text-embedding', provider, model) };
  const fallback = state.registry.defaultModel('text-embedding');
  if (!fallback) throw badParam(NO_EMBEDDING_MODEL);
  return { model: fallback.model, provider: fallback.provider };
}

function visibleToOwner(state: KnowledgeState, d: DatasetRecord): boolean {
  if (d.permission === 'all_team_members' || d.created_by === state.owner.id) return true;
  return d.permission === 'partial_members' && d.partial_members.includes(state.owner.id);
}

export function listDatasets(
  state: KnowledgeState,
  query: { paging: Paging; keyword?: string; include_all: boolean; tag_ids: string[] },
): KnowledgePage<Dataset> {
  let list = [...state.datasets].sort((a, b) => b.created_at - a.created_at || a.id.localeCompare(b.id));
  if (!query.include_all) list = list.filter((d) => visibleToOwner(state, d));
  if (query.keyword) {
    const kw = query.keyword.toLowerCase();
    list = list.filter((d) => d.name.toLowerCase().includes(kw));
  }
  if (query.tag_ids.length) list = list.filter((d) => d.tags.some((t) => query.tag_ids.includes(t)));
  const { items, ...page } = pageOf(list, query.paging);
  return { data: items.map((d) => datasetJSON(d, 'list', state)), ...page };
}

export function createDataset(state: KnowledgeState, input: CreateDatasetInput): Dataset {
  if (state.datasets.some((d) => d.name === input.name)) throw duplicateName();
  let external: DatasetRecord['external'] = null;
  if (input.provider === 'external') {
    if (!input.external_knowledge_api_id) throw badParam('External knowledge api id is required.');
    if (!input.external_knowledge_id) throw badParam('External knowledge id is required.');
    if (!state.externalApi(input.external_knowledge_api_id)) throw badParam('External API template not found.');
    external = { api_id: input.external_knowledge_api_id, knowledge_id: input.external_knowledge_id };
  }
  let embeddingModel: string | null = null;
  let embeddingProvider: string | null = null;
  const technique = input.provider === 'external' ? null : (input.indexing_technique ?? null);
  if (technique === 'high_quality') {
    ({ model: embeddingModel, provider: embeddingProvider } = embeddingOrDefault(state, input.embedding_model, input.embedding_model_provider));
  }
  const now = nowSeconds();
  const ds: DatasetRecord = {
    id: uuid(),
    name: input.name,
    description: input.description,
    provider: input.provider,
    permission: input.permission ?? 'only_me',
    partial_members: [],
    indexing_technique: technique,
    embedding_model: embeddingModel,
    embedding_model_provider: embeddingProvider,
    retrieval_model: input.retrieval_model ?? null,
    summary_index_setting: input.summary_index_setting ? summarySetting(input.summary_index_setting) : null,
    chunk_structure: null,
    created_by: state.owner.id,
    updated_by: state.owner.id,
    created_at: now,
    updated_at: now,
    app_count: 0,
    tags: [],
    pipeline_id: null,
    runtime_mode: null,
    icon_info: null,
    doc_metadata: [],
    built_in_field_enabled: false,
    enable_api: true,
    is_multimodal: false,
    external,
    external_retrieval_model: input.provider === 'external' ? { ...DEFAULT_EXTERNAL_RETRIEVAL } : null,
    latest_rule: null,
    documents: [],
    queries: [],
  };
  state.datasets.push(ds);
  return datasetJSON(ds, 'create', state);
}

export function updateDataset(state: KnowledgeState, ds: DatasetRecord, input: UpdateDatasetInput): Dataset {
  // Validate everything before changing anything.
  // The seed's error table gives renames the same 409 as creation (the real service says 400 here).
  if (input.name != null && state.datasets.some((d) => d.id !== ds.id && d.name === input.name)) throw duplicateName();
  const permission = input.permission ?? ds.permission;
  let members: string[] | null = null;
  if (input.partial_member_list != null) {
    members = [...new Set(input.partial_member_list.map((m) => m.user_id))];
    const unknown = members.find((m) => !state.accounts.has(m));
    if (unknown) throw badParam(`Account ${unknown} is not a member of the workspace.`);
  }
  if (permission === 'partial_members' && !(members?.length || (input.permission == null && ds.partial_members.length))) {
    throw badParam('Partial member list is required when setting to partial members.');
  }
  let technique = ds.indexing_technique;
  let embeddingModel = ds.embedding_model;
  let embeddingProvider = ds.embedding_model_provider;
  if (ds.provider === 'vendor') {
    if (input.indexing_technique != null) technique = input.indexing_technique;
    if (technique === 'economy') {
      embeddingModel = null;
      embeddingProvider = null;
    } else if (technique === 'high_quality') {
      if (input.embedding_model && input.embedding_model_provider) {
        embeddingProvider = state.registry.require('text-embedding', input.embedding_model_provider, input.embedding_model);
        embeddingModel = input.embedding_model;
      } else if (!embeddingModel || !embeddingProvider) {
        ({ model: embeddingModel, provider: embeddingProvider } = embeddingOrDefault(state));
      }
    }
  }
  let external = ds.external;
  if (ds.provider === 'external' && (input.external_knowledge_api_id != null || input.external_knowledge_id != null)) {
    const apiId = input.external_knowledge_api_id ?? ds.external?.api_id ?? '';
    if (!state.externalApi(apiId)) throw badParam('External API template not found.');
    external = { api_id: apiId, knowledge_id: input.external_knowledge_id ?? ds.external?.knowledge_id ?? '' };
  }

  if (input.name != null) ds.name = input.name;
  if (input.description !== undefined) ds.description = input.description ?? '';
  ds.permission = permission;
  if (permission !== 'partial_members') ds.partial_members = [];
  else if (members) ds.partial_members = members;
  ds.indexing_technique = technique;
  ds.embedding_model = embeddingModel;
  ds.embedding_model_provider = embeddingProvider;
  if (input.retrieval_model) ds.retrieval_model = input.retrieval_model;
  if (ds.provider === 'external') {
    ds.external = external;
    if (input.external_retrieval_model) ds.external_retrieval_model = { ...input.external_retrieval_model };
  }
  ds.updated_by = state.owner.id;
  ds.updated_at = nowSeconds();
  return datasetJSON(ds, 'update', state);
}

/** Deletes a knowledge base that no app uses; its documents, chunks and pending indexing go with it. */
export function deleteDataset(state: KnowledgeState, ds: DatasetRecord): void {
  if (ds.app_count > 0) {
    throw new ApiError(409, 'dataset_in_use', 'The dataset is being used by some apps. Please remove the dataset from the apps before deleting it.');
  }
  for (const doc of ds.documents) doc.run++;
  state.datasets.splice(state.datasets.indexOf(ds), 1);
}
