/**
 * The elements' classes, without registering anything: import a `…/define` module (or the
 * script-tag bundle) to register the tags, or define a class under a name of your choice.
 */
export { HumanInputForm } from './elements/human-input-form/human-input-form.js';
export * from './elements/human-input-form/events.js';
