/** Knowledge tags: create, rename, delete, bind to and unbind from knowledge bases. */
import type { KnowledgeTag } from '../../protocol/index.js';
import { badParam, notFound } from '../errors.js';
import { uuid } from '../ids.js';
import type { DatasetRecord, TagRecord } from './records.js';
import { tagJSON } from './serialise.js';
import type { KnowledgeState } from './state.js';

function requireTag(state: KnowledgeState, id: string): TagRecord {
  const tag = state.tags.find((t) => t.id === id);
  if (!tag) throw notFound('Tag not found');
  return tag;
}

function checkUnique(state: KnowledgeState, name: string, except?: string): void {
  if (state.tags.some((t) => t.name === name && t.id !== except)) throw badParam('Tag name already exists');
}

export function createTag(state: KnowledgeState, name: string): KnowledgeTag {
  checkUnique(state, name);
  const tag = { id: uuid(), name };
  state.tags.push(tag);
  return tagJSON(tag, state.datasets);
}

export function renameTag(state: KnowledgeState, id: string, name: string): KnowledgeTag {
  const tag = requireTag(state, id);
  checkUnique(state, name, id);
  tag.name = name;
  return tagJSON(tag, state.datasets);
}

export function deleteTag(state: KnowledgeState, id: string): void {
  requireTag(state, id);
  state.tags.splice(state.tags.findIndex((t) => t.id === id), 1);
  for (const ds of state.datasets) ds.tags = ds.tags.filter((t) => t !== id);
}

function target(state: KnowledgeState, id: string): DatasetRecord {
  const ds = state.datasets.find((d) => d.id === id.toLowerCase());
  if (!ds) throw notFound('Dataset not found');
  return ds;
}

/** Binds known tags to a knowledge base; unknown tag ids and existing bindings are left alone. */
export function bindTags(state: KnowledgeState, tagIds: string[], targetId: string): void {
  if (!tagIds.length) throw badParam('Tag IDs is required.');
  const ds = target(state, targetId);
  for (const id of tagIds) if (state.tags.some((t) => t.id === id) && !ds.tags.includes(id)) ds.tags.push(id);
}

export function unbindTags(state: KnowledgeState, tagIds: string[], targetId: string): void {
  if (!tagIds.length) throw badParam('Tag IDs is required.');
  const ds = target(state, targetId);
  ds.tags = ds.tags.filter((t) => !tagIds.includes(t));
}

export function datasetTags(state: KnowledgeState, ds: DatasetRecord): { data: { id: string; name: string }[]; total: number } {
  const data = ds.tags.flatMap((id) => state.tags.filter((t) => t.id === id).map((t) => ({ id: t.id, name: t.name })));
  return { data, total: data.length };
}
