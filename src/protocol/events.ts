/**
 * Run stream events (dify-wire.md §4): one discriminated union on `event`.
 * Workflow apps put `task_id` and `workflow_run_id` on every event; chat-type apps add
 * `conversation_id`, `message_id` and `created_at`. Workflow, node and human-input payloads
 * travel under `data`.
 */
import type { HumanInputRequest } from './human-input.js';
import type { AnnotationReplyMetadata } from './admin.js';

/** Fields present on events, depending on the app type. */
export interface EventEnvelope {
  task_id?: string;
  workflow_run_id?: string;
  conversation_id?: string;
  message_id?: string;
  created_at?: number;
}

export type WorkflowStatus = 'running' | 'succeeded' | 'failed' | 'stopped' | 'partial-succeeded' | 'paused';
export type NodeStatus = 'running' | 'succeeded' | 'failed' | 'stopped' | 'exception';

export interface Usage {
  prompt_tokens: number;
  prompt_unit_price: string;
  prompt_price_unit: string;
  prompt_price: string;
  completion_tokens: number;
  completion_unit_price: string;
  completion_price_unit: string;
  completion_price: string;
  total_tokens: number;
  total_price: string;
  currency: string;
  latency: number;
}

export interface RetrieverResource {
  position: number;
  dataset_id: string;
  dataset_name: string;
  document_id: string;
  document_name: string;
  segment_id: string;
  score: number;
  content: string;
}

export interface WorkflowStartedData {
  id: string;
  workflow_id: string;
  inputs: Record<string, unknown>;
  created_at: number;
  reason: 'initial' | 'resumption';
}

export interface NodeStartedData {
  id: string;
  node_id: string;
  node_type: string;
  title: string;
  index: number;
  predecessor_node_id: string | null;
  inputs: Record<string, unknown> | null;
  inputs_truncated: boolean;
  created_at: number;
  extras: Record<string, unknown>;
  iteration_id: string | null;
  loop_id: string | null;
}

export interface NodeFinishedData extends NodeStartedData {
  process_data: Record<string, unknown> | null;
  process_data_truncated: boolean;
  outputs: Record<string, unknown> | null;
  outputs_truncated: boolean;
  status: NodeStatus;
  error: string | null;
  elapsed_time: number;
  execution_metadata: { total_tokens?: number; total_price?: string; currency?: string; [key: string]: unknown } | null;
  finished_at: number;
  files: unknown[];
}

export interface WorkflowFinishedData {
  id: string;
  workflow_id: string;
  status: Exclude<WorkflowStatus, 'running' | 'paused'>;
  outputs: Record<string, unknown> | null;
  error: string | null;
  elapsed_time: number;
  total_tokens: number;
  total_steps: number;
  created_by: { id: string; user: string } | Record<string, unknown>;
  created_at: number;
  finished_at: number;
  exceptions_count: number;
  files: unknown[];
}

export interface PauseReason extends HumanInputRequest {
  TYPE: 'human_input_required';
}

export interface WorkflowPausedData {
  workflow_run_id: string;
  paused_nodes: string[];
  outputs: Record<string, unknown>;
  reasons: PauseReason[];
  status: 'paused';
  created_at: number;
  elapsed_time: number;
  total_tokens: number;
  total_steps: number;
}

export interface HumanInputFormFilledData {
  node_id: string;
  node_title: string;
  /** The form content with each slot replaced by the submitted value. */
  rendered_content: string;
  action_id: string;
  action_text: string;
  submitted_data: Record<string, unknown> | null;
}

export interface HumanInputFormTimeoutData {
  node_id: string;
  node_title: string;
  expiration_time: number | null;
}

interface IterationData {
  id: string;
  node_id: string;
  node_type: string;
  title: string;
  created_at: number;
  extras: Record<string, unknown>;
  inputs?: Record<string, unknown>;
  metadata?: Record<string, unknown>;
  index?: number;
  outputs?: Record<string, unknown>;
  status?: NodeStatus;
  error?: string | null;
  elapsed_time?: number;
  total_tokens?: number;
  execution_metadata?: Record<string, unknown>;
  finished_at?: number;
  steps?: number;
}

type WithData<E extends string, D> = EventEnvelope & { event: E; data: D };

export type WorkflowStartedEvent = WithData<'workflow_started', WorkflowStartedData>;
export type NodeStartedEvent = WithData<'node_started', NodeStartedData>;
export type NodeFinishedEvent = WithData<'node_finished', NodeFinishedData>;
export type NodeRetryEvent = WithData<'node_retry', NodeFinishedData & { retry_index: number }>;
export type IterationEvent = WithData<'iteration_started' | 'iteration_next' | 'iteration_completed', IterationData>;
export type LoopEvent = WithData<'loop_started' | 'loop_next' | 'loop_completed', IterationData>;
export type TextChunkEvent = WithData<'text_chunk', { text: string; from_variable_selector: string[] | null }>;
export type TextReplaceEvent = WithData<'text_replace', { text: string }>;
export type ReasoningChunkEvent = WithData<'reasoning_chunk', { reasoning: string; node_id: string; is_final: boolean; message_id?: string }>;
export type WorkflowFinishedEvent = WithData<'workflow_finished', WorkflowFinishedData>;
export type WorkflowPausedEvent = WithData<'workflow_paused', WorkflowPausedData>;
export type HumanInputRequiredEvent = WithData<'human_input_required', HumanInputRequest>;
export type HumanInputFormFilledEvent = WithData<'human_input_form_filled', HumanInputFormFilledData>;
export type HumanInputFormTimeoutEvent = WithData<'human_input_form_timeout', HumanInputFormTimeoutData>;
export type AgentLogEvent = WithData<'agent_log', {
  node_execution_id: string; id: string; label: string; parent_id: string | null; error: string | null;
  status: string; data: Record<string, unknown>; metadata: Record<string, unknown>; node_id: string;
}>;

export interface MessageEvent extends EventEnvelope { event: 'message'; id: string; answer: string; from_variable_selector?: string[] | null }
export interface AgentMessageEvent extends EventEnvelope { event: 'agent_message'; id: string; answer: string }
export interface AgentThoughtEvent extends EventEnvelope {
  event: 'agent_thought';
  id: string;
  position: number;
  thought: string;
  observation: string;
  tool: string;
  tool_labels: Record<string, unknown>;
  /** JSON text. */
  tool_input: string;
  message_files: string[];
}
export interface MessageFileEvent extends EventEnvelope { event: 'message_file'; id: string; type: string; belongs_to: 'assistant' | 'user'; url: string }
export interface MessageEndEvent extends EventEnvelope {
  event: 'message_end';
  id: string;
  /** `annotation_reply`: the answer is an annotation's (Chatbot and Agent apps; a Chatflow's answer leaves it out). */
  metadata: { usage: Usage; retriever_resources: RetrieverResource[]; annotation_reply?: AnnotationReplyMetadata };
  files?: unknown[];
}
export interface MessageReplaceEvent extends EventEnvelope { event: 'message_replace'; answer: string; reason: string }
export interface TtsMessageEvent extends EventEnvelope { event: 'tts_message' | 'tts_message_end'; audio: string }
/** In-stream failure: the HTTP status stays 200 and the error arrives as an event. */
export interface ErrorEvent extends EventEnvelope { event: 'error'; code: string; status: number; message: string }
/** Keep-alive: a bare `event: ping` frame with no data line. */
export interface PingEvent { event: 'ping' }

/** Every event a run stream can carry. */
export type RunEvent =
  | WorkflowStartedEvent
  | NodeStartedEvent
  | NodeFinishedEvent
  | NodeRetryEvent
  | IterationEvent
  | LoopEvent
  | TextChunkEvent
  | TextReplaceEvent
  | ReasoningChunkEvent
  | WorkflowFinishedEvent
  | WorkflowPausedEvent
  | HumanInputRequiredEvent
  | HumanInputFormFilledEvent
  | HumanInputFormTimeoutEvent
  | AgentLogEvent
  | MessageEvent
  | AgentMessageEvent
  | AgentThoughtEvent
  | MessageFileEvent
  | MessageEndEvent
  | MessageReplaceEvent
  | TtsMessageEvent
  | ErrorEvent
  | PingEvent;

export type RunEventName = RunEvent['event'];

/** The event with a given name. */
export type RunEventOf<N extends RunEventName> = Extract<RunEvent, { event: N }>;

/** Events after which a default (not `continue_on_pause`) workflow stream closes. */
export const TERMINAL_WORKFLOW_EVENTS: readonly RunEventName[] = ['workflow_finished', 'workflow_paused', 'error'];
