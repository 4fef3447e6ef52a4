/**
 * The app side's admin operations: the workflow logs (`GET /workflows/logs`) and annotations
 * (`/apps/annotations`, `/apps/annotation-reply/…`), as Dify's `WorkflowAppLogApi` and
 * `controllers/service_api/app/annotation.py` answer them. Types only.
 */
import type { WorkflowRunData } from './runs.js';

/** A page numbered from 1, with the total: the admin lists' paging. */
export interface NumberedPage<T> {
  page: number;
  limit: number;
  total: number;
  has_more: boolean;
  data: T[];
}

/** `GET /workflows/logs`: Dify's `WorkflowLogQuery`. Dates are ISO 8601 (naive ones read as UTC). */
export interface WorkflowLogQuery {
  keyword?: string;
  status?: 'succeeded' | 'failed' | 'stopped';
  created_at__before?: string;
  created_at__after?: string;
  /** The end user's `user` string. */
  created_by_end_user_session_id?: string;
  /** A workspace account's email. */
  created_by_account?: string;
  page?: number;
  limit?: number;
}

/** The run of a log entry (`workflow_run_for_log_fields`). */
export interface WorkflowLogRun extends Omit<WorkflowRunData, 'workflow_id' | 'outputs'> {
  /** The published version run: its publication time, `YYYY-MM-DD HH:MM:SS.ffffff`. */
  version: string;
  triggered_from: 'app-run' | (string & {});
  exceptions_count: number;
}

export interface SimpleAccount {
  id: string;
  name: string;
  email: string;
}

export interface SimpleEndUser {
  id: string;
  type: string;
  is_anonymous: boolean;
  session_id: string;
}

/** One entry of `GET /workflows/logs` (`workflow_app_log_partial_fields`). */
export interface WorkflowLog {
  id: string;
  workflow_run: WorkflowLogRun | null;
  details: unknown;
  created_from: 'service-api' | 'web-app' | 'installed-app' | (string & {});
  created_by_role: 'end_user' | 'account';
  created_by_account: SimpleAccount | null;
  created_by_end_user: SimpleEndUser | null;
  created_at: number;
}

export interface Annotation {
  id: string;
  question: string;
  answer: string;
  hit_count: number;
  created_at: number;
}

export interface AnnotationListQuery {
  page?: number;
  limit?: number;
  keyword?: string;
}

/** `POST /apps/annotations`, `PUT /apps/annotations/{id}`. */
export interface AnnotationRequest {
  question: string;
  answer: string;
}

/** `POST /apps/annotation-reply/{action}`: required for `disable` too. */
export interface AnnotationReplyRequest {
  score_threshold: number;
  embedding_provider_name: string;
  embedding_model_name: string;
}

export type AnnotationReplyAction = 'enable' | 'disable';

export interface AnnotationReplyJob {
  job_id: string;
  job_status: 'waiting' | 'processing' | 'completed' | 'error' | (string & {});
}

export interface AnnotationReplyJobStatus extends AnnotationReplyJob {
  error_msg: string;
}

/** What a chat answer's `metadata.annotation_reply` names: the annotation and its author. */
export interface AnnotationReplyMetadata {
  id: string;
  account: { id: string; name: string };
}
