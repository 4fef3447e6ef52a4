/**
 * The elements' classes, without registering anything: import a `…/define` module (or the
 * script-tag bundle) to register the tags, or define a class under a name of your choice.
 */
export { HumanInputForm } from './elements/human-input-form/human-input-form.js';
export * from './elements/human-input-form/events.js';
export { HitlControl } from './elements/shared/control.js';
export { HitlParagraph } from './elements/hitl-paragraph/hitl-paragraph.js';
export { HitlSelect } from './elements/hitl-select/hitl-select.js';
export { HitlFile, type Uploader } from './elements/hitl-file/hitl-file.js';
export { HitlFileList } from './elements/hitl-file-list/hitl-file-list.js';
export { registerTerms, type TermKey, type Terms } from './elements/shared/terms.js';
export { setTrustedTypesPolicy } from './elements/shared/markdown.js';
export { ElementErrorEvent } from './elements/shared/errors.js';
export { Companion, PagedCompanion } from './elements/shared/companion.js';
export { CompanionEvent, CompanionErrorEvent } from './elements/shared/companion-events.js';
export { registerCompanionTerms, COMPANION_KEYS, type CompanionTerms, type CompanionTermTable } from './elements/shared/companion-terms.js';
export { ConversationList } from './elements/conversation-list/conversation-list.js';
export * from './elements/conversation-list/events.js';
export { ConversationVariables } from './elements/conversation-variables/conversation-variables.js';
export * from './elements/conversation-variables/events.js';
export { MessageFeedback } from './elements/message-feedback/message-feedback.js';
export * from './elements/message-feedback/events.js';
export { TtsPlayer } from './elements/tts-player/tts-player.js';
export * from './elements/tts-player/events.js';
// The types the elements' events carry as `detail` (named by custom-elements.json and the framework typings).
export type { Conversation, ConversationVariable, ErrorBody } from './protocol/index.js';
