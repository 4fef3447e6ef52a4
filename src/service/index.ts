/** The embedded reference service (Node). */
export { createService, type EmbeddedService, type ServiceOptions } from './service.js';
export { startService, type RunningService } from './server.js';
export { loadFixture, parseFixture, FixtureError, DEFAULT_FIXTURE_PATH, type Fixture } from './fixture.js';
export { DEFAULT_RETENTION, type RetentionOptions } from './retention.js';
