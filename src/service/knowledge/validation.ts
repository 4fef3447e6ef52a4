/**
 * Request validation of the knowledge routes: their zod schemas, pydantic's wording through
 * `../validation.ts`.
 */
import { z } from 'zod';
import type { ComparisonOperator, MetadataFieldType } from '../../protocol/index.js';
import { badParam } from '../errors.js';
import { pythonStrip } from '../python-str.js';
import { pydanticUuid } from '../pydantic-uuid.js';
import { validationMessage, valueError } from '../validation.js';

export { parseOrThrow, parsePayload, validationMessage, valueError } from '../validation.js';

// ---------------------------------------------------------------------------------------------
// Retrieval model

export const SEARCH_METHODS = ['keyword_search', 'semantic_search', 'full_text_search', 'hybrid_search'] as const;

export const STRING_OPERATORS = ['contains', 'not contains', 'start with', 'end with', 'is', 'is not', 'empty', 'not empty', 'in', 'not in'] as const;
export const NUMERIC_OPERATORS = ['=', '≠', '>', '<', '≥', '≤'] as const;
export const TIME_OPERATORS = ['before', 'after'] as const;
const ALL_OPERATORS = [...STRING_OPERATORS, ...NUMERIC_OPERATORS, ...TIME_OPERATORS] as const;

export const OPERATORS_BY_TYPE: Record<MetadataFieldType, readonly ComparisonOperator[]> = {
  string: STRING_OPERATORS,
  number: NUMERIC_OPERATORS,
  time: TIME_OPERATORS,
};

/** Built-in metadata fields, present when a knowledge base enables them. */
export const BUILT_IN_FIELDS: Record<string, MetadataFieldType> = {
  document_name: 'string',
  uploader: 'string',
  upload_date: 'time',
  last_update_date: 'time',
  source: 'string',
};

const rerankingModelSchema = z.object({
  reranking_provider_name: z.string().nullable().optional(),
  reranking_model_name: z.string().nullable().optional(),
});

const weightsSchema = z.object({
  weight_type: z.enum(['semantic_first', 'keyword_first', 'customized']).nullable().optional(),
  vector_setting: z
    .object({
      vector_weight: z.number().min(0).max(1),
      embedding_provider_name: z.string(),
      embedding_model_name: z.string(),
    })
    .nullable()
    .optional(),
  keyword_setting: z.object({ keyword_weight: z.number().min(0).max(1) }).nullable().optional(),
});

const conditionSchema = z.object({
  name: z.string().min(1),
  comparison_operator: z.enum(ALL_OPERATORS),
  value: z.union([z.string(), z.array(z.string()), z.number()]).nullable().optional(),
});

export const retrievalModelSchema = z.object({
  search_method: z.enum(SEARCH_METHODS),
  reranking_enable: z.boolean(),
  reranking_model: rerankingModelSchema.nullable().optional(),
  reranking_mode: z.enum(['reranking_model', 'weighted_score']).nullable().optional(),
  top_k: z.number().int().min(1),
  score_threshold_enabled: z.boolean(),
  score_threshold: z.number().min(0).max(1).nullable().optional(),
  weights: weightsSchema.nullable().optional(),
  metadata_filtering_conditions: z
    .object({
      logical_operator: z.enum(['and', 'or']).default('and'),
      conditions: z.array(conditionSchema).nullable().optional(),
    })
    .nullable()
    .optional(),
});

export type RetrievalModelInput = z.output<typeof retrievalModelSchema>;

/**
 * The seed's rules beyond field types: a reranking mode when reranking is on, and metadata
 * conditions whose operator fits the field's type and whose value fits the operator. What the seed
 * leaves optional stays optional (`score_threshold`, `reranking_model`, `weights`), as on the real
 * service. `fields` maps the knowledge base's metadata field names to their types; a field it does
 * not know is checked by operator and value only.
 */
export function checkRetrievalModel(
  model: RetrievalModelInput,
  fields: ReadonlyMap<string, MetadataFieldType>,
  at: PropertyKey[] = [],
): { path: PropertyKey[]; message: string }[] {
  const issues: { path: PropertyKey[]; message: string }[] = [];
  const add = (path: PropertyKey[], message: string) => issues.push({ path: [...at, ...path], message: `Value error, ${message}` });

  if (model.reranking_enable && !model.reranking_mode) {
    add(['reranking_mode'], 'reranking_mode is required when reranking_enable is true');
  }

  const conditions = model.metadata_filtering_conditions?.conditions ?? [];
  conditions.forEach((condition, i) => {
    const path = ['metadata_filtering_conditions', 'conditions', i];
    const op = condition.comparison_operator;
    const type = fields.get(condition.name);
    if (type && !OPERATORS_BY_TYPE[type].includes(op)) {
      add([...path, 'comparison_operator'], `'${op}' does not apply to the ${type} metadata field '${condition.name}'; use one of ${OPERATORS_BY_TYPE[type].map((o) => `'${o}'`).join(', ')}`);
      return;
    }
    const value = condition.value;
    const missing = value === undefined || value === null;
    if (op === 'empty' || op === 'not empty') {
      if (!missing) add([...path, 'value'], `value must be omitted for '${op}'`);
    } else if (op === 'in' || op === 'not in') {
      if (!Array.isArray(value)) add([...path, 'value'], `value must be an array of strings for '${op}'`);
    } else if ((NUMERIC_OPERATORS as readonly string[]).includes(op)) {
      if (typeof value !== 'number') add([...path, 'value'], `value must be a number for '${op}'`);
    } else if ((TIME_OPERATORS as readonly string[]).includes(op)) {
      if (typeof value !== 'number') add([...path, 'value'], `value must be a timestamp (epoch seconds) for '${op}'`);
    } else if (typeof value !== 'string') {
      add([...path, 'value'], `value must be a string for '${op}'`);
    }
  });
  return issues;
}

// ---------------------------------------------------------------------------------------------
// Bodies

const permission = z.enum(['only_me', 'all_team_members', 'partial_members']);
const indexingTechnique = z.enum(['high_quality', 'economy']);

const summaryIndexSetting = z.object({
  enable: z.boolean(),
  model_name: z.string().nullable().optional(),
  model_provider_name: z.string().nullable().optional(),
  summary_prompt: z.string().nullable().optional(),
});

export const createDatasetSchema = z.object({
  name: z.string().min(1).max(40),
  description: z.string().max(400).default(''),
  indexing_technique: indexingTechnique.nullable().optional(),
  permission: permission.nullable().default('only_me'),
  provider: z.enum(['vendor', 'external']).default('vendor'),
  external_knowledge_api_id: z.string().nullable().optional(),
  external_knowledge_id: z.string().nullable().optional(),
  retrieval_model: retrievalModelSchema.nullable().optional(),
  embedding_model: z.string().nullable().optional(),
  embedding_model_provider: z.string().nullable().optional(),
  summary_index_setting: summaryIndexSetting.nullable().optional(),
});

export const updateDatasetSchema = z.object({
  name: z.string().min(1).max(40).nullable().optional(),
  description: z.string().max(400).nullable().optional(),
  indexing_technique: indexingTechnique.nullable().optional(),
  permission: permission.nullable().optional(),
  embedding_model: z.string().nullable().optional(),
  embedding_model_provider: z.string().nullable().optional(),
  retrieval_model: retrievalModelSchema.nullable().optional(),
  partial_member_list: z.array(z.object({ user_id: z.string().min(1) })).nullable().optional(),
  external_retrieval_model: z
    .object({ top_k: z.number().int().min(1), score_threshold: z.number().min(0).max(1), score_threshold_enabled: z.boolean() })
    .nullable()
    .optional(),
  external_knowledge_id: z.string().nullable().optional(),
  external_knowledge_api_id: z.string().nullable().optional(),
});

const segmentationSchema = z.object({
  separator: z.string().optional(),
  max_tokens: z.number().int().nullable().optional(),
  chunk_overlap: z.number().int().min(0).nullable().optional(),
});

/** The parts of a process rule that requests and the fixture share (each with its own defaults). */
export const processMode = z.enum(['automatic', 'custom', 'hierarchical']);
export const preProcessingRule = z.object({ id: z.enum(['remove_stopwords', 'remove_extra_spaces', 'remove_urls_emails']), enabled: z.boolean() });
export const parentMode = z.enum(['full-doc', 'paragraph']);

export const processRuleSchema = z.object({
  mode: processMode,
  rules: z
    .object({
      pre_processing_rules: z.array(preProcessingRule).nullable().optional(),
      segmentation: segmentationSchema.nullable().optional(),
      parent_mode: parentMode.nullable().optional(),
      subchunk_segmentation: segmentationSchema.nullable().optional(),
    })
    .nullable()
    .optional(),
});

export const createByTextSchema = z.object({
  name: z.string(),
  text: z.string(),
  process_rule: processRuleSchema.nullable().optional(),
  original_document_id: z.string().nullable().optional(),
  doc_form: z.string().default('text_model'),
  doc_language: z.string().default('English'),
  indexing_technique: indexingTechnique.nullable().optional(),
  retrieval_model: retrievalModelSchema.nullable().optional(),
  embedding_model: z.string().nullable().optional(),
  embedding_model_provider: z.string().nullable().optional(),
});

/** pydantic's `max_length` counts characters (code points), not UTF-16 units. */
export const maxChars = (max: number) =>
  z.string().superRefine((value, ctx) => {
    if ([...value].length > max) ctx.addIssue({ code: 'too_big', origin: 'string', maximum: max, inclusive: true, input: value });
  });

/** Longest query of `POST /datasets/{id}/retrieve`. */
export const MAX_QUERY_CHARS = 250;

export const retrieveSchema = z.object({
  query: maxChars(MAX_QUERY_CHARS),
  retrieval_model: retrievalModelSchema.nullable().optional(),
  external_retrieval_model: z
    .object({ top_k: z.number().int(), score_threshold: z.number(), score_threshold_enabled: z.boolean() })
    .nullable()
    .optional(),
  attachment_ids: z.array(z.string()).nullable().optional(),
});

export const documentStatusSchema = z.object({ document_ids: z.array(z.string()).default([]) });

// ---------------------------------------------------------------------------------------------
// Query strings

/** An integer query parameter; absent → `fallback`. */
export function intParam(url: URL, name: string, fallback: number, min: number): number {
  const raw = url.searchParams.get(name);
  if (raw === null || raw === '') return fallback;
  if (!/^-?\d+$/.test(raw.trim())) throw badParam(validationMessage('Query', [{ path: [name], message: 'Input should be a valid integer, unable to parse string as an integer' }]));
  const value = Number(raw);
  if (value < min) throw badParam(validationMessage('Query', [{ path: [name], message: `Input should be greater than or equal to ${min}` }]));
  // Past 2^53 a page is no longer a number JSON can give back exactly (400 digits read as Infinity, then `null`).
  if (!Number.isSafeInteger(value)) throw badParam(validationMessage('Query', [{ path: [name], message: `Input should be less than or equal to ${Number.MAX_SAFE_INTEGER}` }]));
  return value;
}

/** A boolean query parameter as pydantic parses one. */
export function boolParam(url: URL, name: string, fallback: boolean): boolean {
  const raw = url.searchParams.get(name);
  if (raw === null) return fallback;
  const v = raw.trim().toLowerCase();
  if (['true', '1', 'yes', 'on', 't', 'y'].includes(v)) return true;
  if (['false', '0', 'no', 'off', 'f', 'n'].includes(v)) return false;
  throw badParam(validationMessage('Query', [{ path: [name], message: 'Input should be a valid boolean, unable to interpret input' }]));
}

// ---------------------------------------------------------------------------------------------
// Bodies of the everyday knowledge API beyond the seed

/** The `data` part of create-by-file: create-by-text's fields but the name and text (the file gives them). */
export const createByFileDataSchema = createByTextSchema.omit({ name: true, text: true });

const docForm = z.enum(['text_model', 'hierarchical_model', 'qa_model']);

export const updateByTextSchema = z
  .object({
    name: z.string().nullable().optional(),
    text: z.string().nullable().optional(),
    process_rule: processRuleSchema.nullable().optional(),
    doc_form: docForm.nullable().optional(),
    doc_language: z.string().nullable().optional(),
    retrieval_model: retrievalModelSchema.nullable().optional(),
  })
  .superRefine((body, ctx) => {
    if (body.text != null && body.name == null) valueError(ctx, [], 'name is required when text is provided');
  });

/** The `data` part of update-by-file (a new file gives the name and text). */
export const updateByFileDataSchema = z.object({
  name: z.string().nullable().optional(),
  process_rule: processRuleSchema.nullable().optional(),
  doc_form: docForm.nullable().optional(),
  doc_language: z.string().nullable().optional(),
  retrieval_model: retrievalModelSchema.nullable().optional(),
});

export const segmentsCreateSchema = z.object({
  segments: z
    .array(
      z.object({
        // `SegmentCreateItemPayload.validate_content`, which runs only once `min_length=1` passed.
        content: z
          .string()
          .min(1)
          .superRefine((value, ctx) => {
            if (value && !pythonStrip(value)) valueError(ctx, [], 'Content is empty');
          }),
        answer: z.string().nullable().optional(),
        keywords: z.array(z.string()).nullable().optional(),
        attachment_ids: z.array(z.string()).nullable().optional(),
      }),
    )
    .min(1),
});

export const segmentUpdateSchema = z.object({
  segment: z.object({
    content: z.string().nullable().optional(),
    answer: z.string().nullable().optional(),
    keywords: z.array(z.string()).nullable().optional(),
    enabled: z.boolean().nullable().optional(),
    regenerate_child_chunks: z.boolean().default(false),
    attachment_ids: z.array(z.string()).nullable().optional(),
    summary: z.string().nullable().optional(),
  }),
});

/** `DocumentBatchDownloadZipPayload`: `document_ids: list[UUID]`, 1 to `DOCUMENT_BATCH_DOWNLOAD_ZIP_MAX_DOCS`. */
export const MAX_ZIP_DOCUMENTS = 100;
export const documentsZipSchema = z.object({ document_ids: z.array(pydanticUuid).min(1).max(MAX_ZIP_DOCUMENTS) });

export const childChunkSchema = z.object({ content: z.string().min(1) });

const tagName = z.string().min(1).max(50);
export const tagCreateSchema = z.object({ name: tagName });
export const tagUpdateSchema = z.object({ tag_id: z.string().min(1), name: tagName });
export const tagDeleteSchema = z.object({ tag_id: z.string().min(1) });
export const tagBindingSchema = z.object({ tag_ids: z.array(z.string()).default([]), target_id: z.string().min(1) });
/** Unbinding also takes the legacy single `tag_id`. */
export const tagUnbindingSchema = z.object({
  tag_ids: z.array(z.string()).nullable().optional(),
  tag_id: z.string().nullable().optional(),
  target_id: z.string().min(1),
});

export const metadataCreateSchema = z.object({ type: z.enum(['string', 'number', 'time']), name: z.string() });
export const metadataUpdateSchema = z.object({ name: z.string() });
export const documentMetadataSchema = z.object({
  operation_data: z.array(
    z.object({
      document_id: z.string(),
      metadata_list: z.array(z.object({ id: z.string(), name: z.string(), value: z.union([z.string(), z.number()]).nullable().optional() })),
      partial_update: z.boolean().default(false),
    }),
  ),
});
