/** The relay a host backend mounts so the API key stays on the server. Runs on Node and edge runtimes. */
export { createRelay, type Relay, type RelayOptions, type RelayLogEntry, type CreateSessionInput } from './relay.js';
export { RELAY_ROUTES, type RelayRoute, type UserPlacement } from './routes.js';
export type { SessionAuthenticator, SessionIdentity } from './session-endpoint.js';
export type { CorsOptions } from './cors.js';
export { MemoryRelayStore, type RelayStore, type RunStartRecord } from './store.js';
export type { IdempotencyOptions } from './relay.js';
export { MemoryRateLimitStore, type RateLimitStore, type RateLimitCount, type RateLimitOptions, type RateLimitSubject, type SessionRateLimitOptions } from './rate-limit.js';
export type { RelayErrorCode } from './errors.js';
export { MAX_SESSION_TTL_SECONDS } from './session-token.js';
export { sessionSnippet } from './session-snippet.js';
export type { SessionGrant, SessionRequest } from '../protocol/index.js';
