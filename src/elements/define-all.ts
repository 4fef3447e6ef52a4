/** Registers every element of the package (the script-tag bundle's entry). */
import './human-input-form/define.js';
import './conversation-list/define.js';
import './conversation-variables/define.js';
import './message-feedback/define.js';
import './tts-player/define.js';
