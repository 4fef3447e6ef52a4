/** Tags, metadata fields and values, and the models listing. */
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
  route('GET', '/datasets/tags', () => json(store.tags.map((t) => tagJSON(t, store.datasets))));
  route('POST', '/datasets/tags', async ({ request }) => {
    const body = parseOrThrow(tagCreateSchema, await readJsonObject(request), 'TagCreatePayload');
    return json(createTag(store, body.name));
  }, FREE);
  route('PATCH', '/datasets/tags', async ({ request }) => {
    const body = parseOrThrow(tagUpdateSchema, await readJsonObject(request), 'TagUpdatePayload');
    return json(renameTag(store, body.tag_id, body.name));
  }, FREE);
  route('DELETE', '/datasets/tags', async ({ request }) => {
    const body = parseOrThrow(tagDeleteSchema, await readJsonObject(request), 'TagDeletePayload');
    deleteTag(store, body.tag_id);
    return noContent();
  }, FREE);
  route('POST', '/datasets/tags/binding', async ({ request }) => {
    const body = parseOrThrow(tagBindingSchema, await readJsonObject(request), 'TagBindingPayload');
    bindTags(store, body.tag_ids, body.target_id);
    return noContent();
  }, FREE);
  route('POST', '/datasets/tags/unbinding', async ({ request }) => {
    const body = parseOrThrow(tagUnbindingSchema, await readJsonObject(request), 'TagUnbindingPayload');
    unbindTags(store, body.tag_ids ?? (body.tag_id ? [body.tag_id] : []), body.target_id);
    return noContent();
  }, FREE);
  route('GET', '/datasets/:dataset_id/tags', ({ dataset }) => json(datasetTags(store, dataset)));

  // Metadata. Older builds serve the built-in field list without a knowledge base id; both are served.
  route('GET', '/datasets/metadata/built-in', () => json(builtInFields()));
  route('GET', '/datasets/:dataset_id/metadata/built-in', () => json(builtInFields()));
  route('POST', '/datasets/:dataset_id/metadata/built-in/:action', ({ params, dataset }) => {
    setBuiltIn(dataset, params.action ?? '');
    return json({ result: 'success' });
  });
  route('POST', '/datasets/:dataset_id/metadata', async ({ request, dataset }) => {
    const body = parseOrThrow(metadataCreateSchema, await readJsonObject(request), 'MetadataArgs');
    return json(createField(dataset, body), 201);
  });
  route('GET', '/datasets/:dataset_id/metadata', ({ dataset }) => json(listFields(dataset)));
  route('PATCH', '/datasets/:dataset_id/metadata/:metadata_id', async ({ request, params, dataset }) => {
    const body = parseOrThrow(metadataUpdateSchema, await readJsonObject(request), 'MetadataUpdatePayload');
    return json(renameField(dataset, idParam(params, 'metadata_id'), body.name));
  });
  route('DELETE', '/datasets/:dataset_id/metadata/:metadata_id', ({ params, dataset }) => {
    deleteField(dataset, idParam(params, 'metadata_id'));
    return noContent();
  });
  route('POST', '/datasets/:dataset_id/documents/metadata', async ({ request, dataset }) => {
    const body = parseOrThrow(documentMetadataSchema, await readJsonObject(request), 'MetadataOperationData');
    updateDocumentsMetadata(dataset, body.operation_data);
    return json({ result: 'success' });
  });

  route('GET', '/workspaces/current/models/model-types/:model_type', ({ params }) =>
    json({ data: providersOfType(store.registry, params.model_type ?? '', tenantId) }),
  );
}
