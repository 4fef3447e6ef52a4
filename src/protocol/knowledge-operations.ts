/**
 * The knowledge side's operations (knowledge keys; no end user, so no `user`): the second half of
 * the table of operations (`operations.ts`). Server-side only, like the knowledge client.
 */
import type { Operation } from './operations.js';

const SEGMENTS = '/datasets/{dataset_id}/documents/{document_id}/segments';

export const KNOWLEDGE_OPERATIONS = {
  // Knowledge bases
  listDatasets: { method: 'GET', path: '/datasets' },
  createDataset: { method: 'POST', path: '/datasets' },
  getDataset: { method: 'GET', path: '/datasets/{dataset_id}' },
  updateDataset: { method: 'PATCH', path: '/datasets/{dataset_id}' },
  deleteDataset: { method: 'DELETE', path: '/datasets/{dataset_id}' },

  // Documents
  createDocumentByText: { method: 'POST', path: '/datasets/{dataset_id}/document/create-by-text' },
  createDocumentByTextLegacy: { method: 'POST', path: '/datasets/{dataset_id}/document/create_by_text', aliasOf: 'createDocumentByText' },
  createDocumentByFile: { method: 'POST', path: '/datasets/{dataset_id}/document/create-by-file' },
  createDocumentByFileLegacy: { method: 'POST', path: '/datasets/{dataset_id}/document/create_by_file', aliasOf: 'createDocumentByFile' },
  updateDocumentByText: { method: 'POST', path: '/datasets/{dataset_id}/documents/{document_id}/update-by-text' },
  updateDocumentByTextLegacy: { method: 'POST', path: '/datasets/{dataset_id}/documents/{document_id}/update_by_text', aliasOf: 'updateDocumentByText' },
  updateDocumentByFile: { method: 'POST', path: '/datasets/{dataset_id}/documents/{document_id}/update-by-file' },
  updateDocumentByFileLegacy: { method: 'POST', path: '/datasets/{dataset_id}/documents/{document_id}/update_by_file', aliasOf: 'updateDocumentByFile' },
  patchDocument: { method: 'PATCH', path: '/datasets/{dataset_id}/documents/{document_id}', aliasOf: 'updateDocumentByFile' },
  listDocuments: { method: 'GET', path: '/datasets/{dataset_id}/documents' },
  getDocument: { method: 'GET', path: '/datasets/{dataset_id}/documents/{document_id}' },
  deleteDocument: { method: 'DELETE', path: '/datasets/{dataset_id}/documents/{document_id}' },
  updateDocumentStatus: { method: 'PATCH', path: '/datasets/{dataset_id}/documents/status/{action}' },
  getIndexingStatus: { method: 'GET', path: '/datasets/{dataset_id}/documents/{batch}/indexing-status' },
  getDocumentDownloadUrl: { method: 'GET', path: '/datasets/{dataset_id}/documents/{document_id}/download' },
  downloadDocumentsZip: { method: 'POST', path: '/datasets/{dataset_id}/documents/download-zip' },
  // Older builds (newer ones answer `getDocumentDownloadUrl` instead).
  getDocumentUploadFile: { method: 'GET', path: '/datasets/{dataset_id}/documents/{document_id}/upload-file' },

  // Chunks
  listSegments: { method: 'GET', path: SEGMENTS },
  createSegments: { method: 'POST', path: SEGMENTS },
  getSegment: { method: 'GET', path: `${SEGMENTS}/{segment_id}` },
  updateSegment: { method: 'POST', path: `${SEGMENTS}/{segment_id}` },
  deleteSegment: { method: 'DELETE', path: `${SEGMENTS}/{segment_id}` },
  listChildChunks: { method: 'GET', path: `${SEGMENTS}/{segment_id}/child_chunks` },
  createChildChunk: { method: 'POST', path: `${SEGMENTS}/{segment_id}/child_chunks` },
  updateChildChunk: { method: 'PATCH', path: `${SEGMENTS}/{segment_id}/child_chunks/{child_chunk_id}` },
  deleteChildChunk: { method: 'DELETE', path: `${SEGMENTS}/{segment_id}/child_chunks/{child_chunk_id}` },

  // Retrieval and pipelines
  retrieve: { method: 'POST', path: '/datasets/{dataset_id}/retrieve' },
  hitTesting: { method: 'POST', path: '/datasets/{dataset_id}/hit-testing', aliasOf: 'retrieve' },
  listDatasourcePlugins: { method: 'GET', path: '/datasets/{dataset_id}/pipeline/datasource-plugins' },

  // Tags
  listTags: { method: 'GET', path: '/datasets/tags' },
  createTag: { method: 'POST', path: '/datasets/tags' },
  renameTag: { method: 'PATCH', path: '/datasets/tags' },
  deleteTag: { method: 'DELETE', path: '/datasets/tags' },
  bindTags: { method: 'POST', path: '/datasets/tags/binding' },
  unbindTags: { method: 'POST', path: '/datasets/tags/unbinding' },
  getDatasetTags: { method: 'GET', path: '/datasets/{dataset_id}/tags' },

  // Metadata (older builds list the built-in fields without a knowledge base id)
  listBuiltInMetadataFieldsLegacy: { method: 'GET', path: '/datasets/metadata/built-in', aliasOf: 'listBuiltInMetadataFields' },
  listBuiltInMetadataFields: { method: 'GET', path: '/datasets/{dataset_id}/metadata/built-in' },
  setBuiltInMetadata: { method: 'POST', path: '/datasets/{dataset_id}/metadata/built-in/{action}' },
  createMetadataField: { method: 'POST', path: '/datasets/{dataset_id}/metadata' },
  listMetadataFields: { method: 'GET', path: '/datasets/{dataset_id}/metadata' },
  renameMetadataField: { method: 'PATCH', path: '/datasets/{dataset_id}/metadata/{metadata_id}' },
  deleteMetadataField: { method: 'DELETE', path: '/datasets/{dataset_id}/metadata/{metadata_id}' },
  updateDocumentMetadata: { method: 'POST', path: '/datasets/{dataset_id}/documents/metadata' },

  // Models
  listModels: { method: 'GET', path: '/workspaces/current/models/model-types/{model_type}' },
} as const satisfies Record<string, Operation>;
