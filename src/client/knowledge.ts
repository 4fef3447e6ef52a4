/**
 * Typed client of the knowledge side of the API, for server code holding a knowledge API key.
 * A separate entry from `./index.ts` (the browser-safe app side), so browser bundles never carry it.
 */
export { KnowledgeClient, type KnowledgeClientOptions, type UpdatedDataset, type WaitForIndexingOptions } from './knowledge-client.js';
export { ServiceError } from './errors.js';
export { Transport, type Credential, type TransportOptions } from './transport.js';
