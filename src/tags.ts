/**
 * Every tag the package registers (the tests hold it to custom-elements.json), for a framework
 * compiler that must be told which tags are custom elements: Vue's `isCustomElement`, for one.
 * No DOM and no side effects, so a build config (vite.config.ts) can import it.
 */
export const TAG_NAMES = [
  'human-input-form',
  'hitl-paragraph',
  'hitl-select',
  'hitl-file',
  'hitl-file-list',
  'conversation-list',
  'conversation-variables',
  'message-feedback',
  'tts-player',
] as const;

export type TagName = (typeof TAG_NAMES)[number];

/** Whether `tag` is one of the package's elements. */
export function isCustomElement(tag: string): tag is TagName {
  return (TAG_NAMES as readonly string[]).includes(tag);
}
