/**
 * The fixture's optional `knowledge` section: dataset keys and their scopes, the subscription's
 * request rate limit, the workspace's models, and the knowledge bases (with documents that are
 * indexed at load), tags, external knowledge APIs and knowledge pipelines.
 */
import { z } from 'zod';
import { UUID_PATTERN } from '../../protocol/index.js';
import { BUILT_IN_FIELDS, checkRetrievalModel, parentMode, preProcessingRule, processMode, retrievalModelSchema } from './validation.js';

/** The real service routes knowledge ids as `<uuid:…>`; anything else is not a route. */
const uuidId = z
  .string()
  .regex(UUID_PATTERN, 'must be a UUID (the real service routes knowledge ids as UUIDs)')
  .transform((s) => s.toLowerCase());
const id = z.string().min(1);

const account = z.object({ id, name: z.string().min(1), email: z.string().default('') });

const key = z.object({
  key: z.string().regex(/^dataset-/, 'knowledge keys start with "dataset-"'),
  /** Names (or ids) of the knowledge bases the key may use; omitted = every knowledge base. */
  datasets: z.array(z.string().min(1)).min(1, 'a scoped key names at least one knowledge base').optional(),
});

const model = z.object({
  /** `<organization>/<plugin_name>/<provider_name>`, as the models listing answers it. */
  provider: z
    .string()
    .regex(/^[a-z0-9_-]+\/[a-z0-9_-]+\/[a-z0-9_-]+$/, 'must be "<organization>/<plugin_name>/<provider_name>"'),
  model: z.string().min(1),
  model_type: z.enum(['text-embedding', 'rerank', 'llm']),
  /** Only `active` models can be used. */
  status: z.enum(['active', 'no-configure', 'quota-exceeded', 'no-permission', 'disabled', 'credential-removed']).default('active'),
  /** The workspace's default model of its type. */
  default: z.boolean().default(false),
});

const segmentation = z.object({
  separator: z.string().default('\n'),
  max_tokens: z.number().int(),
  chunk_overlap: z.number().int().min(0).default(0),
});

/** A fixture document's process rule: the request's shape, with the fixture's defaults. */
const fixtureProcessRule = z.object({
  mode: processMode,
  rules: z
    .object({
      pre_processing_rules: z.array(preProcessingRule).default([]),
      segmentation: segmentation.optional(),
      parent_mode: parentMode.optional(),
      subchunk_segmentation: segmentation.optional(),
    })
    .optional(),
});

const fixtureDocument = z.object({
  id: uuidId.optional(),
  name: z.string().min(1),
  text: z.string().min(1),
  enabled: z.boolean().default(true),
  archived: z.boolean().default(false),
  /** Epoch seconds; defaults to the load time. */
  created_at: z.number().int().optional(),
  hit_count: z.number().int().min(0).default(0),
});

const metadataField = z.object({ id, name: z.string().min(1), type: z.enum(['string', 'number', 'time']) });

const iconInfo = z.object({
  icon: z.string(),
  icon_background: z.string().default(''),
  icon_type: z.string().default('emoji'),
  icon_url: z.string().default(''),
});

const fixtureDataset = z.object({
  id: uuidId,
  name: z.string().min(1).max(40),
  description: z.string().max(400).default(''),
  provider: z.enum(['vendor', 'external']).default('vendor'),
  permission: z.enum(['only_me', 'all_team_members', 'partial_members']).default('only_me'),
  /** Account ids; used when permission is `partial_members`. */
  partial_member_list: z.array(id).default([]),
  /** Account id of the creator; defaults to the owner. */
  created_by: id.optional(),
  indexing_technique: z.enum(['high_quality', 'economy']).nullable().default(null),
  embedding_model: z.string().nullable().default(null),
  /** May be the legacy bare short form (e.g. `openai`). */
  embedding_model_provider: z.string().nullable().default(null),
  doc_form: z.enum(['text_model', 'hierarchical_model', 'qa_model']).default('text_model'),
  doc_language: z.string().default('English'),
  process_rule: fixtureProcessRule.optional(),
  /** Checked like a request's retrieval model. */
  retrieval_model: retrievalModelSchema.optional(),
  /** Tag names or ids. */
  tags: z.array(z.string()).default([]),
  /** Knowledge pipeline name or id. */
  pipeline: z.string().optional(),
  runtime_mode: z.string().nullable().optional(),
  chunk_structure: z.string().nullable().default(null),
  icon_info: iconInfo.nullable().default(null),
  doc_metadata: z.array(metadataField).default([]),
  built_in_field_enabled: z.boolean().default(false),
  enable_api: z.boolean().default(true),
  is_multimodal: z.boolean().default(false),
  app_count: z.number().int().min(0).default(0),
  external_knowledge_api_id: z.string().optional(),
  external_knowledge_id: z.string().optional(),
  created_at: z.number().int().optional(),
  documents: z.array(fixtureDocument).default([]),
});

const credential = z.object({ id, name: z.string(), type: z.string(), is_default: z.boolean().default(false) });

const datasourceParameter = z.object({
  type: z.enum(['mixed', 'variable', 'constant']).default('mixed'),
  value: z.union([z.string(), z.array(z.string()), z.number(), z.boolean()]),
});

const pipelineNode = z.object({
  id,
  data: z
    .object({
      type: z.string().min(1),
      title: z.string().default(''),
      plugin_id: z.string().optional(),
      provider_name: z.string().optional(),
      provider_type: z.enum(['local_file', 'online_document', 'online_drive', 'website_crawl']).optional(),
      datasource_parameters: z.record(z.string(), datasourceParameter).default({}),
    })
    .superRefine((data, ctx) => {
      if (data.type !== 'datasource') return;
      for (const field of ['plugin_id', 'provider_name', 'provider_type'] as const) {
        if (!data[field]) ctx.addIssue({ code: 'custom', path: [field], message: 'a datasource node needs it' });
      }
    }),
});

const pipelineVariable = z.object({
  belong_to_node_id: z.string().default('shared'),
  type: z.string().default('text-input'),
  label: z.string(),
  variable: z.string().regex(/^[a-zA-Z_][a-zA-Z0-9_]*$/, 'must be a valid variable name'),
  required: z.boolean().default(false),
  max_length: z.number().int().nullable().optional(),
  default_value: z.union([z.string(), z.number(), z.boolean()]).nullable().optional(),
  placeholder: z.string().nullable().optional(),
  unit: z.string().nullable().optional(),
  tooltips: z.string().nullable().optional(),
  options: z.array(z.string()).optional(),
  allowed_file_types: z.array(z.string()).optional(),
  allowed_file_extensions: z.array(z.string()).optional(),
  allowed_file_upload_methods: z.array(z.string()).optional(),
});

const pipelineVersion = z
  .object({
    nodes: z.array(pipelineNode).default([]),
    rag_pipeline_variables: z.array(pipelineVariable).default([]),
  })
  .superRefine((version, ctx) => {
    const seen = new Set<string>();
    version.nodes.forEach((node, i) => {
      if (seen.has(node.id)) ctx.addIssue({ code: 'custom', path: ['nodes', i, 'id'], message: `duplicate node id "${node.id}"` });
      seen.add(node.id);
    });
  });

const pipeline = z.object({
  id: uuidId,
  name: z.string().min(1),
  /** null: never published. */
  published: pipelineVersion.nullable().default(null),
  draft: pipelineVersion.nullable().default(null),
});

export const knowledgeFixtureSchema = z
  .object({
    /** The account the knowledge keys act as (the workspace owner). */
    owner: account,
    members: z.array(account).default([]),
    /** Organization a bare provider name expands to: `<name>` → `<org>/<name>/<name>`. */
    default_organization: z.string().regex(/^[a-z0-9_-]+$/).default('langgenius'),
    keys: z.array(key).default([]),
    subscription: z
      .object({
        plan: z.string().default('professional'),
        /** Knowledge write requests per window for the whole workspace; the real service uses 60 s. */
        knowledge_rate_limit: z
          .object({
            enabled: z.boolean().default(true),
            limit: z.number().int().min(1),
            window_seconds: z.number().positive().default(60),
          })
          .optional(),
      })
      .default({ plan: 'professional' }),
    indexing: z
      .object({
        /** Time spent in each indexing state (waiting, parsing, cleaning, splitting, indexing). */
        stage_delay_ms: z.number().int().min(0).default(25),
        /** How long a document stays busy after an enable/disable/archive/un_archive. */
        status_reindex_ms: z.number().int().min(0).default(0),
        /** Largest `max_tokens` a segmentation accepts (the real default is 4000). */
        max_segmentation_tokens: z.number().int().min(50).default(4000),
      })
      .default({ stage_delay_ms: 25, status_reindex_ms: 0, max_segmentation_tokens: 4000 }),
    models: z.array(model).default([]),
    external_knowledge_apis: z.array(z.object({ id, name: z.string(), endpoint: z.string() })).default([]),
    tags: z.array(z.object({ id, name: z.string().min(1).max(50) })).default([]),
    datasource_credentials: z
      .array(z.object({ plugin_id: z.string(), provider_name: z.string(), credentials: z.array(credential) }))
      .default([]),
    pipelines: z.array(pipeline).default([]),
    datasets: z.array(fixtureDataset).default([]),
  })
  .superRefine((kn, ctx) => {
    const datasetNames = new Map<string, string>();
    const datasetIds = new Set<string>();
    kn.datasets.forEach((d, i) => {
      if (datasetNames.has(d.name)) ctx.addIssue({ code: 'custom', path: ['datasets', i, 'name'], message: `duplicate knowledge base name "${d.name}"` });
      if (datasetIds.has(d.id)) ctx.addIssue({ code: 'custom', path: ['datasets', i, 'id'], message: `duplicate knowledge base id "${d.id}"` });
      datasetNames.set(d.name, d.id);
      datasetIds.add(d.id);
    });
    const keys = new Set<string>();
    kn.keys.forEach((k, i) => {
      if (keys.has(k.key)) ctx.addIssue({ code: 'custom', path: ['keys', i, 'key'], message: `duplicate key "${k.key}"` });
      keys.add(k.key);
      k.datasets?.forEach((ref, j) => {
        if (!datasetNames.has(ref) && !datasetIds.has(ref)) {
          ctx.addIssue({ code: 'custom', path: ['keys', i, 'datasets', j], message: `no knowledge base named "${ref}"` });
        }
      });
    });
    const accounts = new Set([kn.owner.id, ...kn.members.map((m) => m.id)]);
    const tagRefs = new Set(kn.tags.flatMap((t) => [t.id, t.name]));
    const pipelineRefs = new Set(kn.pipelines.flatMap((p) => [p.id, p.name]));
    const apiIds = new Set(kn.external_knowledge_apis.map((a) => a.id));
    kn.datasets.forEach((d, i) => {
      d.tags.forEach((t, j) => {
        if (!tagRefs.has(t)) ctx.addIssue({ code: 'custom', path: ['datasets', i, 'tags', j], message: `no tag "${t}"` });
      });
      if (d.pipeline && !pipelineRefs.has(d.pipeline)) {
        ctx.addIssue({ code: 'custom', path: ['datasets', i, 'pipeline'], message: `no knowledge pipeline "${d.pipeline}"` });
      }
      if (d.created_by && !accounts.has(d.created_by)) {
        ctx.addIssue({ code: 'custom', path: ['datasets', i, 'created_by'], message: `no account "${d.created_by}"` });
      }
      d.partial_member_list.forEach((m, j) => {
        if (!accounts.has(m)) ctx.addIssue({ code: 'custom', path: ['datasets', i, 'partial_member_list', j], message: `no account "${m}"` });
      });
      if (d.provider === 'external') {
        if (!d.external_knowledge_api_id || !apiIds.has(d.external_knowledge_api_id)) {
          ctx.addIssue({ code: 'custom', path: ['datasets', i, 'external_knowledge_api_id'], message: 'an external knowledge base names one of external_knowledge_apis' });
        }
        if (!d.external_knowledge_id) ctx.addIssue({ code: 'custom', path: ['datasets', i, 'external_knowledge_id'], message: 'an external knowledge base needs it' });
        if (d.documents.length) ctx.addIssue({ code: 'custom', path: ['datasets', i, 'documents'], message: 'an external knowledge base has no documents' });
      } else if (d.documents.length && !d.indexing_technique) {
        ctx.addIssue({ code: 'custom', path: ['datasets', i, 'indexing_technique'], message: 'a knowledge base with documents needs an indexing technique' });
      }
      if (d.retrieval_model) {
        const fields = new Map(d.doc_metadata.map((f) => [f.name, f.type] as const));
        if (d.built_in_field_enabled) for (const [name, type] of Object.entries(BUILT_IN_FIELDS)) fields.set(name, type);
        for (const issue of checkRetrievalModel(d.retrieval_model, fields, ['datasets', i, 'retrieval_model'])) {
          ctx.addIssue({ code: 'custom', path: issue.path, message: issue.message });
        }
      }
      if (d.indexing_technique === 'high_quality' && (!d.embedding_model || !d.embedding_model_provider)) {
        ctx.addIssue({ code: 'custom', path: ['datasets', i, 'embedding_model'], message: 'a high_quality knowledge base names its embedding model and provider' });
      }
    });
    for (const type of ['text-embedding', 'rerank', 'llm'] as const) {
      if (kn.models.filter((m) => m.model_type === type && m.default).length > 1) {
        ctx.addIssue({ code: 'custom', path: ['models'], message: `more than one default ${type} model` });
      }
    }
  });

export type KnowledgeFixture = z.infer<typeof knowledgeFixtureSchema>;
export type FixtureDataset = KnowledgeFixture['datasets'][number];
export type FixturePipeline = KnowledgeFixture['pipelines'][number];
export type FixturePipelineVersion = NonNullable<FixturePipeline['published']>;
export type FixtureModel = KnowledgeFixture['models'][number];
