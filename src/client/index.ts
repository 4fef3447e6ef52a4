/** Typed client of the app side of the API; browser-safe (no knowledge operations here). */
export { AppClient, type AppClientOptions, type RunStartOptions } from './app-client.js';
export { ServiceError } from './errors.js';
export { Transport, type Credential, type PreparedRequest, type TransportOptions } from './transport.js';
