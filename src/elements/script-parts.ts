/**
 * The script-tag bundle's one chunk beside it (vite.config.ts puts this module in place of
 * `human-input-form/parts.ts`): the form's parts, and the companion elements, which register when
 * it arrives (elements already in the page upgrade then).
 */
import './conversation-list/define.js';
import './conversation-variables/define.js';
import './message-feedback/define.js';
import './tts-player/define.js';

export * from './human-input-form/parts.js';
