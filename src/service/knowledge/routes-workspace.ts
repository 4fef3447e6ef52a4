/** Tags, metadata fields and values, and the models listing. */
import { KNOWLEDGE_OPERATIONS } from '../../protocol/knowledge-operations.js';
import { json, readJsonObject } from '../http.js';
import {
  builtInFields,
  createField,
  deleteField,
  listFields,
  renameField,
  setBuiltIn,
  updateDocumentsMetadata,
} from './metadata.js';
import { providersOfType } from './models.js';
import { idParam, noContent, type Route } from './route-kit.js';
import { tagJSON } from './serialise.js';
import type { KnowledgeStore } from './store.js';
import { bindTags, createTag, datasetTags, deleteTag, renameTag, unbindTags } from './tags.js';
import {
  documentMetadataSchema,
  metadataCreateSchema,
  metadataUpdateSchema,
  parseOrThrow,
  tagBindingSchema,
  tagCreateSchema,
  tagDeleteSchema,
  tagUnbindingSchema,
  tagUpdateSchema,
} from './validation.js';

/** Tag writes carry no rate-limit decorator on the real service. */
const FREE = { rateLimited: false };

export function registerWorkspaceRoutes(route: Route, store: KnowledgeStore, tenantId: string): void {
  route(KNOWLEDGE_OPERATIONS.listTags, () => json(store.tags.map((t) => tagJSON(t, store.datasets))));
  route(KNOWLEDGE_OPERATIONS.createTag, async ({ request }) => {
    const body = parseOrThrow(tagCreateSchema, await readJsonObject(request), 'TagCreatePayload');
    return json(createTag(store, body.name));
  }, FREE);
  route(KNOWLEDGE_OPERATIONS.renameTag, async ({ request }) => {
    const body = parseOrThrow(tagUpdateSchema, await readJsonObject(request), 'TagUpdatePayload');
    return json(renameTag(store, body.tag_id, body.name));
  }, FREE);
  route(KNOWLEDGE_OPERATIONS.deleteTag, async ({ request }) => {
    const body = parseOrThrow(tagDeleteSchema, await readJsonObject(request), 'TagDeletePayload');
    deleteTag(store, body.tag_id);
    return noContent();
  }, FREE);
  route(KNOWLEDGE_OPERATIONS.bindTags, async ({ request }) => {
    const body = parseOrThrow(tagBindingSchema, await readJsonObject(request), 'TagBindingPayload');
    bindTags(store, body.tag_ids, body.target_id);
    return noContent();
  }, FREE);
  route(KNOWLEDGE_OPERATIONS.unbindTags, async ({ request }) => {
    const body = parseOrThrow(tagUnbindingSchema, await readJsonObject(request), 'TagUnbindingPayload');
    unbindTags(store, body.tag_ids ?? (body.tag_id ? [body.tag_id] : []), body.target_id);
    return noContent();
  }, FREE);
  route(KNOWLEDGE_OPERATIONS.getDatasetTags, ({ dataset }) => json(datasetTags(store, dataset)));

  // Metadata. Older builds serve the built-in field list without a knowledge base id; both are served.
  route(KNOWLEDGE_OPERATIONS.listBuiltInMetadataFieldsLegacy, () => json(builtInFields()));
  route(KNOWLEDGE_OPERATIONS.listBuiltInMetadataFields, () => json(builtInFields()));
  route(KNOWLEDGE_OPERATIONS.setBuiltInMetadata, ({ params, dataset }) => {
    setBuiltIn(dataset, params.action ?? '');
    return json({ result: 'success' });
  });
  route(KNOWLEDGE_OPERATIONS.createMetadataField, async ({ request, dataset }) => {
    const body = parseOrThrow(metadataCreateSchema, await readJsonObject(request), 'MetadataArgs');
    return json(createField(dataset, body), 201);
  });
  route(KNOWLEDGE_OPERATIONS.listMetadataFields, ({ dataset }) => json(listFields(dataset)));
  route(KNOWLEDGE_OPERATIONS.renameMetadataField, async ({ request, params, dataset }) => {
    const body = parseOrThrow(metadataUpdateSchema, await readJsonObject(request), 'MetadataUpdatePayload');
    return json(renameField(dataset, idParam(params, 'metadata_id'), body.name));
  });
  route(KNOWLEDGE_OPERATIONS.deleteMetadataField, ({ params, dataset }) => {
    deleteField(dataset, idParam(params, 'metadata_id'));
    return noContent();
  });
  route(KNOWLEDGE_OPERATIONS.updateDocumentMetadata, async ({ request, dataset }) => {
    const body = parseOrThrow(documentMetadataSchema, await readJsonObject(request), 'MetadataOperationData');
    updateDocumentsMetadata(dataset, body.operation_data);
    return json({ result: 'success' });
  });

  route(KNOWLEDGE_OPERATIONS.listModels, ({ params }) =>
    json({ data: providersOfType(store.registry, params.model_type ?? '', tenantId) }),
  );
}
