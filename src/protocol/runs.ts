/** Starting, following and stopping runs (dify-wire.md §3). */
import type { FileReference } from './files.js';
import type { PauseReason, WorkflowStatus, Usage, RetrieverResource } from './events.js';
import type { AnnotationReplyMetadata } from './admin.js';

export type ResponseMode = 'streaming' | 'blocking';

/** `POST /workflows/run` (and `/workflows/{workflow_id}/run`). */
export interface WorkflowRunRequest {
  inputs: Record<string, unknown>;
  /** Omitted means blocking. */
  response_mode?: ResponseMode;
  user: string;
  files?: (FileReference & { type: string })[] | null;
  trace_session_id?: string;
}

export interface WorkflowRunData {
  id: string;
  workflow_id: string;
  status: WorkflowStatus;
  outputs: Record<string, unknown> | null;
  error: string | null;
  elapsed_time: number;
  total_tokens: number;
  total_steps: number;
  created_at: number;
  finished_at: number | null;
}

/** Blocking answer of a workflow run that finished. */
export interface WorkflowBlockingResponse {
  task_id: string;
  workflow_run_id: string;
  data: WorkflowRunData;
}

/** Blocking answer of a workflow run that paused at a human-input node. */
export interface WorkflowPausedBlockingResponse {
  task_id: string;
  workflow_run_id: string;
  data: WorkflowRunData & { status: 'paused'; finished_at: null; paused_nodes: string[]; reasons: PauseReason[] };
}

/** `POST /chat-messages`. */
export interface ChatMessageRequest {
  query: string;
  inputs: Record<string, unknown>;
  response_mode?: ResponseMode;
  user: string;
  /** Empty or omitted starts a new conversation. */
  conversation_id?: string;
  files?: (FileReference & { type: string })[] | null;
  auto_generate_name?: boolean;
  workflow_id?: string;
  retriever_from?: string;
  trace_session_id?: string;
}

/** `POST /completion-messages` (Text Generator apps). */
export interface CompletionMessageRequest {
  inputs: Record<string, unknown>;
  /** Extra text after the inputs; optional. */
  query?: string;
  response_mode?: ResponseMode;
  user: string;
  files?: (FileReference & { type: string })[] | null;
}

/** Blocking answer of `POST /completion-messages`: like a chat answer without a conversation. */
export type CompletionBlockingResponse = Omit<ChatBlockingResponse, 'conversation_id'>;

/** Blocking answer of `POST /chat-messages`. */
export interface ChatBlockingResponse {
  event: 'message';
  task_id: string;
  id: string;
  message_id: string;
  conversation_id: string;
  mode: string;
  answer: string;
  /** `annotation_reply`: the answer is an annotation's (Chatbot and Agent apps; a Chatflow's answer leaves it out). */
  metadata: { usage: Usage; retriever_resources: RetrieverResource[]; annotation_reply?: AnnotationReplyMetadata };
  created_at: number;
}

/** Blocking answer of a Chatflow that paused (flattening per the real service, not fully confirmed). */
export interface ChatPausedBlockingResponse extends Omit<ChatBlockingResponse, 'event'> {
  event: 'workflow_paused';
  workflow_run_id: string;
  status: 'paused';
  paused_nodes: string[];
  reasons: PauseReason[];
  elapsed_time: number;
  total_tokens: number;
  total_steps: number;
}

/** `GET /workflows/run/{workflow_run_id}`. */
export interface WorkflowRunDetail {
  id: string;
  workflow_id: string;
  status: WorkflowStatus;
  /** Raw JSON text, as the real service sends it. */
  inputs: string | null;
  outputs: Record<string, unknown> | null;
  error: string | null;
  total_steps: number;
  total_tokens: number;
  created_at: number;
  finished_at: number | null;
  elapsed_time: number;
}

/** Query of `GET /workflow/{workflow_run_id}/events`. */
export interface WorkflowEventsQuery {
  user: string;
  /** Replay executed nodes (and a pending form) before live events. */
  include_state_snapshot?: boolean;
  /** Keep the stream open across pauses. */
  continue_on_pause?: boolean;
}

/** Body of `POST /workflows/tasks/{task_id}/stop` and `POST /chat-messages/{task_id}/stop`. */
export interface StopRequest { user: string }

/** `{"result": "success"}`, answered by stop, feedback, status updates. */
export interface ResultSuccess { result: 'success' }
