/**
 * The knowledge store: the workspace's knowledge bases, tags and models, created from the fixture
 * and changed by the knowledge routes through the parts that own each rule (`datasets.ts`,
 * `documents.ts`, `tags.ts`, `metadata.ts`); indexing runs in `indexing.ts`.
 */
import type { DatasourceNode } from '../../protocol/index.js';
import { ApiError, badParam, notFound } from '../errors.js';
import { uuid } from '../ids.js';
import type { KnowledgeFixture } from './fixture-schema.js';
import { datasetFromFixture } from './fixture-load.js';
import { Indexer, type IndexerOptions } from './indexing.js';
import { ModelRegistry } from './models.js';
import { datasourceNodes } from './pipeline.js';
import type { Account, DatasetRecord, TagRecord, UploadFileRecord } from './records.js';
import type { KnowledgeState } from './state.js';

export type KnowledgeStoreOptions = IndexerOptions;

export class KnowledgeStore implements KnowledgeState {
  readonly registry: ModelRegistry;
  readonly owner: Account;
  readonly accounts = new Map<string, Account>();
  readonly datasets: DatasetRecord[] = [];
  readonly tags: TagRecord[] = [];
  readonly fixture: KnowledgeFixture | undefined;
  readonly indexer: Indexer;

  constructor(
    fixture: KnowledgeFixture | undefined,
    readonly options: KnowledgeStoreOptions,
  ) {
    this.fixture = fixture;
    this.indexer = new Indexer(options);
    this.registry = new ModelRegistry(fixture?.models ?? [], fixture?.default_organization ?? 'langgenius');
    this.owner = fixture?.owner ?? { id: uuid(), name: 'Owner', email: '' };
    for (const a of [this.owner, ...(fixture?.members ?? [])]) this.accounts.set(a.id, a);
    this.#load();
  }

  /** Back to the fixture's knowledge bases, documents and tags (`/_qa/reset`); pending indexing stops. */
  reset(): void {
    this.indexer.cancel();
    this.#load();
  }

  #load(): void {
    this.tags.splice(0, Infinity, ...(this.fixture?.tags ?? []).map((t) => ({ ...t })));
    const ctx = { fixture: this.fixture, ownerId: this.owner.id, tags: this.tags, indexer: this.indexer };
    this.datasets.splice(0, Infinity, ...(this.fixture?.datasets ?? []).map((d) => datasetFromFixture(d, ctx)));
  }

  close(): void {
    this.indexer.close();
  }

  externalApi(id: string) {
    return this.fixture?.external_knowledge_apis.find((a) => a.id === id);
  }

  pipelinePublished(id: string): boolean {
    return Boolean(this.fixture?.pipelines.find((p) => p.id === id)?.published);
  }

  datasetIdByRef(ref: string): string | undefined {
    return this.datasets.find((d) => d.id === ref || d.name === ref)?.id;
  }

  /** 404 `Dataset not found.` (the real dataset-token check), 403 when its API access is off. */
  requireDataset(id: string): DatasetRecord {
    const ds = this.datasets.find((d) => d.id === id);
    if (!ds) throw notFound('Dataset not found.');
    if (!ds.enable_api) throw new ApiError(403, 'forbidden', 'Dataset api access is not enabled.');
    return ds;
  }

  /** A document's upload file by id, while its document exists (Dify deletes the file with the document). */
  uploadFile(id: string): UploadFileRecord | undefined {
    for (const ds of this.datasets) for (const doc of ds.documents) if (doc.upload_file.id === id) return doc.upload_file;
    return undefined;
  }

  datasourcePlugins(ds: DatasetRecord, isPublished: boolean): DatasourceNode[] {
    const pipeline = ds.pipeline_id ? this.fixture?.pipelines.find((p) => p.id === ds.pipeline_id) : undefined;
    if (!pipeline) throw badParam('Pipeline not found');
    const version = isPublished ? pipeline.published : pipeline.draft;
    if (!version) throw badParam('Pipeline or workflow not found');
    return datasourceNodes(version, this.fixture?.datasource_credentials ?? []);
  }
}

export type { DatasetRecord, DocumentRecord } from './records.js';
