/**
 * The paths of the operations the companion elements call (see `paths.ts`): in a module of their
 * own so they load with the companions, not with the form.
 */
export const CONVERSATIONS_PATH = '/conversations';
export const CONVERSATION_PATH = '/conversations/{conversation_id}';
export const CONVERSATION_NAME_PATH = '/conversations/{conversation_id}/name';
export const CONVERSATION_VARIABLES_PATH = '/conversations/{conversation_id}/variables';
export const CONVERSATION_VARIABLE_PATH = '/conversations/{conversation_id}/variables/{variable_id}';
export const MESSAGES_PATH = '/messages';
export const MESSAGE_FEEDBACKS_PATH = '/messages/{message_id}/feedbacks';
export const TEXT_TO_AUDIO_PATH = '/text-to-audio';
