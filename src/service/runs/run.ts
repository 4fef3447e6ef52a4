/** The state of one workflow run, kept server-side whether or not a client is connected. */
import type { NodeFinishedData, NodeStartedData, RunEvent, WorkflowStatus } from '../../protocol/index.js';
import type { ConversationRecord, MessageRecord } from '../conversations/store.js';
import type { FixtureApp, FixtureWorkflow } from '../fixture.js';
import type { SubmittedFile } from '../forms.js';
import { RunTopic } from './topic.js';

/** A node execution, kept for `include_state_snapshot` replays. */
export interface NodeExecution {
  started: NodeStartedData;
  /** Absent while the node runs (or waits for a form). */
  finished?: NodeFinishedData;
}

/** What a Chatflow run answers into: its conversation and the message being answered. */
export interface ChatTarget {
  readonly conversation: ConversationRecord;
  readonly message: MessageRecord;
}

export interface Run {
  readonly id: string;
  readonly taskId: string;
  readonly app: FixtureApp;
  readonly workflow: FixtureWorkflow;
  readonly user: string;
  readonly inputs: Record<string, unknown>;
  readonly createdAt: number;
  readonly startedMs: number;
  /** Set for Chatflow runs: events carry the conversation envelope and answers go to the message. */
  readonly chat: ChatTarget | null;
  /** The run's `files` (`sys.files`), already checked against the app's file-upload config. */
  readonly files: SubmittedFile[];
  status: WorkflowStatus;
  finishedAt: number | null;
  /** When the run ended, so its elapsed time stops growing. */
  finishedMs: number | null;
  outputs: Record<string, unknown> | null;
  error: string | null;
  totalSteps: number;
  totalTokens: number;
  /** Node outputs by node id, for `{{#node.var#}}` references. */
  readonly pool: Map<string, Record<string, unknown>>;
  readonly executions: NodeExecution[];
  /** The id of the form the run is paused on. */
  pausedOn: string | null;
  readonly topic: RunTopic;
  /** The last `workflow_finished` event, answered alone to a late `/events` request. */
  finishedEvent: RunEvent | null;
  readonly abort: AbortController;
}

export function createRun(init: Pick<Run, 'id' | 'taskId' | 'app' | 'workflow' | 'user' | 'inputs' | 'chat' | 'files'>): Run {
  const now = Date.now();
  return {
    ...init,
    createdAt: Math.floor(now / 1000),
    startedMs: now,
    status: 'running',
    finishedAt: null,
    finishedMs: null,
    outputs: null,
    error: null,
    totalSteps: 0,
    totalTokens: 0,
    pool: new Map(),
    executions: [],
    pausedOn: null,
    topic: new RunTopic(),
    finishedEvent: null,
    abort: new AbortController(),
  };
}

/** Seconds since the run started, as the real service reports `elapsed_time`. */
export function elapsedSeconds(run: Run): number {
  return Math.round(((run.finishedMs ?? Date.now()) - run.startedMs) / 10) / 100;
}

/** True once the run can no longer change. */
export const isOver = (run: Run): boolean => run.status === 'succeeded' || run.status === 'failed' || run.status === 'stopped';

/**
 * The run's inputs with its system variables as `sys.*` entries: what the start node outputs
 * (Dify's `StartNode`), and, without the conversation's id (so a rerun is not bound to it), what
 * `workflow_started` reports and the run record keeps (`WorkflowResponseConverter.
 * _prepare_workflow_inputs`).
 */
export function inputsWithSystem(run: Run, withConversation = false): Record<string, unknown> {
  const system = Object.entries(run.pool.get('sys') ?? {}).filter(([key]) => withConversation || key !== 'conversation_id');
  return { ...run.inputs, ...Object.fromEntries(system.map(([key, value]) => [`sys.${key}`, value])) };
}
