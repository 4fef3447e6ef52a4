/**
 * Metadata fields of a knowledge base and the values documents hold for them
 * (`metadata_service.py`). Values are kept by field id, so a rename carries them along.
 */
import type { MetadataFieldType } from '../../protocol/index.js';
import { badParam } from '../errors.js';
import { nowSeconds, uuid } from '../ids.js';
import type { DatasetRecord, MetadataFieldRecord } from './records.js';
import { BUILT_IN_FIELDS } from './validation.js';

const MAX_NAME = 255;

function checkName(ds: DatasetRecord, name: string, except?: string): void {
  if ([...name].length > MAX_NAME) throw badParam(`Metadata name cannot exceed ${MAX_NAME} characters.`);
  if (ds.doc_metadata.some((f) => f.name === name && f.id !== except)) throw badParam('Metadata name already exists.');
  if (Object.hasOwn(BUILT_IN_FIELDS, name)) throw badParam('Metadata name already exists in Built-in fields.');
}

function requireField(ds: DatasetRecord, id: string): MetadataFieldRecord {
  const field = ds.doc_metadata.find((f) => f.id === id);
  if (!field) throw badParam('Metadata not found.');
  return field;
}

export function createField(ds: DatasetRecord, input: { type: MetadataFieldType; name: string }): MetadataFieldRecord {
  checkName(ds, input.name);
  const field = { id: uuid(), name: input.name, type: input.type };
  ds.doc_metadata.push(field);
  return { ...field };
}

export function listFields(ds: DatasetRecord) {
  return {
    doc_metadata: ds.doc_metadata.map((f) => ({ ...f, count: ds.documents.filter((d) => d.metadata.has(f.id)).length })),
    built_in_field_enabled: ds.built_in_field_enabled,
  };
}

export function renameField(ds: DatasetRecord, id: string, name: string): MetadataFieldRecord {
  checkName(ds, name, id);
  const field = requireField(ds, id);
  field.name = name;
  return { ...field };
}

export function deleteField(ds: DatasetRecord, id: string): void {
  requireField(ds, id);
  ds.doc_metadata = ds.doc_metadata.filter((f) => f.id !== id);
  for (const doc of ds.documents) doc.metadata.delete(id);
}

export const builtInFields = () => ({ fields: Object.entries(BUILT_IN_FIELDS).map(([name, type]) => ({ name, type })) });

/** `enable` / `disable` the built-in fields; any other action changes nothing, as on the real service. */
export function setBuiltIn(ds: DatasetRecord, action: string): void {
  if (action === 'enable') ds.built_in_field_enabled = true;
  else if (action === 'disable') ds.built_in_field_enabled = false;
}

export interface DocumentMetadataOperation {
  document_id: string;
  metadata_list: { id: string; name: string; value?: string | number | null }[];
  partial_update: boolean;
}

/** Sets documents' values: the whole set (`partial_update: false`) or only the fields named. All checked before any change. */
export function updateDocumentsMetadata(ds: DatasetRecord, operations: DocumentMetadataOperation[]): void {
  const plan = operations.map((op) => {
    const doc = ds.documents.find((d) => d.id === op.document_id.toLowerCase());
    if (!doc) throw badParam('Document not found.');
    for (const item of op.metadata_list) requireField(ds, item.id);
    return { doc, op };
  });
  const now = nowSeconds();
  for (const { doc, op } of plan) {
    if (!op.partial_update) doc.metadata.clear();
    for (const item of op.metadata_list) doc.metadata.set(item.id, item.value ?? null);
    doc.updated_at = now;
  }
}
