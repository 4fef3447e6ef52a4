/** Registers every element of the package (`hitl-elements/define`; the script tag's entry is `script.ts`). */
import './human-input-form/define.js';
// The form also loads these with its parts; here every element registers at once.
import './hitl-file/define.js';
import './hitl-file-list/define.js';
import './conversation-list/define.js';
import './conversation-variables/define.js';
import './message-feedback/define.js';
import './tts-player/define.js';
