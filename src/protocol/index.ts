/** Wire types and pure helpers of the Knowledge Base and Application Service API. */
export * from './errors.js';
export * from './files.js';
export * from './human-input.js';
export * from './events.js';
export * from './runs.js';
export * from './app.js';
export * from './knowledge.js';
export * from './sse.js';
export * from './form-content.js';
export * from './session.js';
export * from './paths.js';
export * from './operations.js';
export * from './uuid.js';
export * from './companion-paths.js';
export * from './admin.js';
