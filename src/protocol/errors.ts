/**
 * Error codes and the one error body shape shared by the service, the relay and the client.
 * Codes come from the seed's error table and, where the seed is silent, from the real
 * service's code table (dify-wire.md §8).
 */

/** Every `code` the service or the relay can answer with. */
export type ErrorCode =
  // seed
  | 'invalid_param'
  | 'not_chat_app'
  | 'unauthorized'
  | 'forbidden'
  | 'not_found'
  | 'dataset_name_duplicate'
  // real service, app side
  | 'bad_request'
  | 'invalid_form_data'
  | 'not_workflow_app'
  | 'not_completion_app'
  | 'app_unavailable'
  | 'conversation_completed'
  | 'provider_not_initialize'
  | 'provider_quota_exceeded'
  | 'model_currently_not_support'
  | 'completion_request_error'
  | 'agent_not_published'
  | 'no_file_uploaded'
  | 'too_many_files'
  | 'filename_not_exists_error'
  | 'file_too_large'
  | 'unsupported_file_type'
  | 'human_input_form_submitted'
  | 'human_input_form_expired'
  | 'too_many_requests'
  | 'rate_limit_error'
  | 'internal_server_error'
  | 'workflow_version_execution_not_allowed'
  | 'app_suggested_questions_after_answer_disabled'
  | 'speech_to_text_disabled'
  | 'no_audio_uploaded'
  | 'audio_too_large'
  | 'unsupported_audio_type'
  | 'method_not_allowed'
  | 'payload_too_large'
  | 'request_entity_too_large'
  | 'unknown'
  // embedded service, QA endpoint
  | 'form_not_waiting'
  | 'run_not_active'
  // real service, knowledge side
  | 'invalid_action'
  | 'dataset_not_initialized'
  | 'document_already_finished'
  | 'document_indexing'
  | 'invalid_metadata'
  | 'archived_document_immutable'
  | 'dataset_in_use'
  // relay
  | 'session_invalid'
  | 'session_expired'
  | 'session_wrong_audience'
  | 'upstream_unavailable'
  | 'cors_origin_denied'
  | 'rate_limited'
  | 'session_run_bound'
  | 'too_many_streams'
  | 'invalid_idempotency_key'
  | 'idempotency_key_reused'
  | 'run_start_pending'
  | 'run_start_unknown'
  | 'run_already_started'
  | 'relay_store_unavailable'
  // elements
  | 'session_url_missing';

/** The body of every non-2xx JSON answer: `status` equals the HTTP status. */
export interface ErrorBody {
  code: ErrorCode | (string & {});
  message: string;
  status: number;
  /** Set by the real service when a 400 names the offending field. */
  params?: string;
}

/** True when `value` has the `{code, message, status}` shape. */
export function isErrorBody(value: unknown): value is ErrorBody {
  if (typeof value !== 'object' || value === null) return false;
  const v = value as Record<string, unknown>;
  return typeof v.code === 'string' && typeof v.message === 'string' && typeof v.status === 'number';
}
