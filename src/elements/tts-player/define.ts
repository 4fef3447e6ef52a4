/** Registers `<tts-player>`; importing this module is its only side effect. */
import { TtsPlayer } from './tts-player.js';

export { TtsPlayer };

/** Defines the element under `tag` unless that name is taken already (safe to load twice). */
export function defineTtsPlayer(tag = 'tts-player', registry: CustomElementRegistry = customElements): void {
  if (!registry.get(tag)) registry.define(tag, class extends TtsPlayer {});
}

// Server rendering imports this module in Node, where the tag is left for the browser to register.
if (typeof document !== 'undefined') defineTtsPlayer();

declare global {
  interface HTMLElementTagNameMap {
    'tts-player': TtsPlayer;
  }
}
