/** Application-side resources: conversations, variables, messages, feedback, audio, settings. */
import type { TransferMethod } from './files.js';
import type { HumanInputRequest } from './human-input.js';
import type { RetrieverResource } from './events.js';

/** The six app modes of the seed and the `mode` string the real service reports for each. */
export type AppModeName = 'Chatflow' | 'Workflow' | 'Agent' | 'Chatbot' | 'Legacy Agent' | 'Text Generator';
export type AppMode = 'advanced-chat' | 'workflow' | 'agent' | 'chat' | 'agent-chat' | 'completion';

export const APP_MODES: Readonly<Record<AppModeName, AppMode>> = {
  Chatflow: 'advanced-chat',
  Workflow: 'workflow',
  Agent: 'agent',
  Chatbot: 'chat',
  'Legacy Agent': 'agent-chat',
  'Text Generator': 'completion',
};

/**
 * Which app modes serve the companions' operations (the seed's availability table); another mode
 * answers `400 not_chat_app`. Text to audio and the web settings serve every mode.
 */
export const CONVERSATION_MODES: readonly AppMode[] = ['advanced-chat', 'chat', 'agent-chat', 'agent'];
export const VARIABLE_MODES: readonly AppMode[] = ['advanced-chat', 'chat', 'agent-chat'];
export const FEEDBACK_MODES: readonly AppMode[] = ['advanced-chat', 'chat', 'agent-chat', 'completion'];

/** A page of a cursor-paged listing. */
export interface Page<T> {
  data: T[];
  has_more: boolean;
  limit: number;
}

export interface Conversation {
  id: string;
  name: string;
  inputs: Record<string, unknown>;
  introduction: string;
  status: 'normal' | (string & {});
  created_at: number;
  updated_at: number;
}

export type ConversationSort = 'created_at' | '-created_at' | 'updated_at' | '-updated_at';

export interface ConversationListQuery {
  user?: string;
  /** Id of the last conversation of the current page. */
  last_id?: string;
  /** 1 to 100, default 20. */
  limit?: number;
  /** Default `-updated_at` (most recently active first). */
  sort_by?: ConversationSort;
}

export interface RenameConversationRequest {
  name?: string;
  auto_generate?: boolean;
  user?: string;
}

export type VariableValueType =
  | 'string' | 'number' | 'object' | 'secret' | 'file' | 'boolean'
  | 'array[any]' | 'array[string]' | 'array[number]' | 'array[object]' | 'array[file]' | 'array[boolean]';

export interface ConversationVariable {
  id: string;
  name: string;
  description: string;
  /** Complex values travel as JSON text. */
  value: unknown;
  value_type: VariableValueType;
  created_at: number;
  updated_at: number;
}

export interface VariableListQuery {
  user?: string;
  last_id?: string;
  limit?: number;
  /** 1 to 255 characters of `[A-Za-z0-9._-]`. */
  variable_name?: string;
}

export interface UpdateVariableRequest {
  value: unknown;
  user?: string;
}

export type FeedbackRating = 'like' | 'dislike';

/** `POST /messages/{message_id}/feedbacks`; `rating: null` revokes earlier feedback. */
export interface FeedbackRequest {
  rating: FeedbackRating | null;
  user: string;
  content?: string;
}

export interface MessageFile {
  id: string;
  filename: string;
  type: string;
  url: string;
  mime_type: string;
  size: number;
  transfer_method: TransferMethod;
  belongs_to: 'user' | 'assistant';
  upload_file_id: string | null;
}

export interface HumanInputExtraContent {
  type: 'human_input';
  workflow_run_id: string;
  submitted: boolean;
  form_definition: Omit<HumanInputRequest, 'approval_channels'>;
  form_submission_data: {
    node_id: string; node_title: string; rendered_content: string;
    action_id: string; action_text: string; submitted_data?: Record<string, unknown> | null;
  } | null;
}

export interface Message {
  id: string;
  conversation_id: string;
  parent_message_id: string | null;
  inputs: Record<string, unknown>;
  query: string;
  answer: string;
  status: string;
  error: string | null;
  message_files: MessageFile[];
  feedback: { rating: FeedbackRating } | null;
  retriever_resources: RetrieverResource[];
  agent_thoughts: unknown[];
  created_at: number;
  extra_contents: HumanInputExtraContent[];
  message_tokens: number;
  answer_tokens: number;
  total_tokens: number;
  provider_response_latency: number;
  total_price: string;
  currency: string;
}

export interface MessageListQuery {
  conversation_id: string;
  user?: string;
  first_id?: string;
  limit?: number;
}

/** `POST /text-to-audio`: one of `message_id` or `text`; `message_id` wins. */
export interface TextToAudioRequest {
  text?: string;
  message_id?: string;
  voice?: string;
  user?: string;
  /** Accepted for compatibility; has no effect. */
  streaming?: boolean;
}

/** `GET /site`. */
export interface SiteSettings {
  title: string;
  description: string;
  icon: string;
  icon_type: 'emoji' | 'image';
  icon_background: string;
  icon_url: string | null;
  chat_color_theme: string;
  chat_color_theme_inverted: boolean;
  copyright: string;
  custom_disclaimer: string;
  default_language: string;
  input_placeholder: string | null;
  privacy_policy: string;
  show_workflow_steps: boolean;
  use_icon_as_answer_icon: boolean;
}

/** One item of `user_input_form`: a one-key object naming the control type. */
export type UserInputFormItem = Partial<Record<'text-input' | 'paragraph' | 'select' | 'number' | 'file' | 'file-list' | 'checkbox' | 'json_object', {
  label: string;
  variable: string;
  required: boolean;
  default?: unknown;
  options?: string[];
  max_length?: number;
}>>;

/** `GET /parameters`. */
export interface AppParameters {
  opening_statement: string;
  suggested_questions: string[];
  suggested_questions_after_answer: { enabled: boolean };
  speech_to_text: { enabled: boolean };
  text_to_speech: { enabled: boolean; voice?: string; language?: string; autoPlay?: 'enabled' | 'disabled' };
  retriever_resource: { enabled: boolean };
  annotation_reply: { enabled: boolean };
  more_like_this: { enabled: boolean };
  sensitive_word_avoidance: { enabled: boolean };
  user_input_form: UserInputFormItem[];
  file_upload: Record<string, unknown>;
  system_parameters: {
    file_size_limit: number;
    image_file_size_limit: number;
    audio_file_size_limit: number;
    video_file_size_limit: number;
    workflow_file_upload_limit: number;
  };
}

/** `GET /info`. */
export interface AppInfo {
  name: string;
  description: string;
  tags: string[];
  mode: AppMode;
  author_name: string;
}


// Suggested questions, speech to text and the app's feedback

/** `GET /messages/{message_id}/suggested`: what the user might ask next (chat apps). */
export interface SuggestedQuestions {
  result: 'success';
  data: string[];
}

/** `POST /audio-to-text`: the transcript; `""` when the audio holds no speech. */
export interface AudioToTextResponse {
  text: string;
}

/** `GET /app/feedbacks` query: `page` from 1, `limit` 1–101 (Dify's bound), default 20. */
export interface AppFeedbackListQuery {
  page?: number;
  limit?: number;
}

/** One rating of a message, as `GET /app/feedbacks` lists it (`MessageFeedback.to_dict`). */
export interface AppFeedback {
  id: string;
  app_id: string;
  conversation_id: string;
  message_id: string;
  rating: FeedbackRating;
  content: string | null;
  /** `user` (an end user through the API) or `admin` (an account, in the console). */
  from_source: 'user' | 'admin';
  from_end_user_id: string | null;
  from_account_id: string | null;
  /** ISO 8601 without a zone (UTC), as Python's `datetime.isoformat()` writes a naive time. */
  created_at: string;
  updated_at: string;
}

/** `GET /app/feedbacks`: every rating of the app's messages, newest first, a page at a time. */
export interface AppFeedbackList {
  data: AppFeedback[];
}
