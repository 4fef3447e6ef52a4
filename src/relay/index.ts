/** The relay a host backend mounts so the API key stays on the server. Runs on Node and edge runtimes. */
export { createRelay, type Relay, type RelayOptions, type CreateSessionInput } from './relay.js';
export { RELAY_ROUTES, type RelayRoute } from './routes.js';
export type { SessionGrant } from '../protocol/index.js';
