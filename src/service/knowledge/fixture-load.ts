/** Knowledge bases from the fixture: records whose documents are chunked and indexed at load. */
import { uuid, nowSeconds } from '../ids.js';
import type { FixtureDataset, KnowledgeFixture } from './fixture-schema.js';
import type { Indexer } from './indexing.js';
import { resolveRule } from './process-rules.js';
import { batchId, DEFAULT_EXTERNAL_RETRIEVAL, newDocument, textFile, type DatasetRecord, type TagRecord } from './records.js';

export function datasetFromFixture(
  d: FixtureDataset,
  ctx: { fixture: KnowledgeFixture | undefined; ownerId: string; tags: readonly TagRecord[]; indexer: Indexer },
): DatasetRecord {
  const created = d.created_at ?? nowSeconds();
  const pipeline = d.pipeline ? ctx.fixture?.pipelines.find((p) => p.id === d.pipeline || p.name === d.pipeline) : undefined;
  const createdBy = d.created_by ?? ctx.ownerId;
  const ds: DatasetRecord = {
    id: d.id,
    name: d.name,
    description: d.description,
    provider: d.provider,
    permission: d.permission,
    partial_members: d.permission === 'partial_members' ? [...d.partial_member_list] : [],
    indexing_technique: d.provider === 'external' ? null : d.indexing_technique,
    embedding_model: d.indexing_technique === 'high_quality' ? d.embedding_model : null,
    embedding_model_provider: d.indexing_technique === 'high_quality' ? d.embedding_model_provider : null,
    retrieval_model: d.retrieval_model ?? null,
    summary_index_setting: null,
    chunk_structure: d.chunk_structure,
    created_by: createdBy,
    updated_by: createdBy,
    created_at: created,
    updated_at: created,
    app_count: d.app_count,
    tags: d.tags.flatMap((ref) => ctx.tags.filter((t) => t.id === ref || t.name === ref).map((t) => t.id)),
    pipeline_id: pipeline?.id ?? null,
    runtime_mode: d.runtime_mode ?? (pipeline ? 'rag_pipeline' : null),
    icon_info: d.icon_info,
    doc_metadata: d.doc_metadata.map((f) => ({ ...f })),
    built_in_field_enabled: d.built_in_field_enabled,
    enable_api: d.enable_api,
    is_multimodal: d.is_multimodal,
    external: d.provider === 'external' ? { api_id: d.external_knowledge_api_id!, knowledge_id: d.external_knowledge_id! } : null,
    external_retrieval_model: d.provider === 'external' ? { ...DEFAULT_EXTERNAL_RETRIEVAL } : null,
    latest_rule: null,
    documents: [],
    queries: [],
  };
  if (!d.documents.length) return ds;
  const rule = { id: uuid(), rule: resolveRule(d.process_rule, d.doc_form) };
  ds.latest_rule = rule;
  d.documents.forEach((fd, i) => {
    const docCreated = fd.created_at ?? created;
    const doc = newDocument({
      id: fd.id,
      position: i + 1,
      name: fd.name,
      text: fd.text,
      batch: batchId(),
      doc_form: d.doc_form,
      doc_language: d.doc_language,
      rule,
      upload_file: textFile(fd.name, fd.text, ds.created_by, docCreated),
      created_by: ds.created_by,
      created_at: docCreated,
      enabled: fd.enabled,
      archived: fd.archived,
    });
    ctx.indexer.indexNow(ds, doc);
    // A document's hits are its chunks' (Dify sums them): the fixture's count is spread over them.
    for (let hit = 0; hit < fd.hit_count && doc.segments.length; hit++) doc.segments[hit % doc.segments.length]!.hit_count++;
    ds.documents.push(doc);
  });
  return ds;
}
