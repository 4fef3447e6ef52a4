/**
 * Human-input forms: what a paused node exposes, and the submission rules of the real service
 * (dify-wire.md §2.6), in its order and with its messages.
 */
import type {
  FileType,
  FormInput,
  HumanInputFormDefinition,
  HumanInputFormStatus,
  HumanInputRequest,
  TransferMethod,
} from '../protocol/index.js';
import { ApiError, badParam, notFound } from './errors.js';
import type { HumanInputNode } from './fixture.js';
import type { Run } from './runs/run.js';
import { nowSeconds } from './ids.js';

export interface HumanInputForm {
  readonly id: string;
  /** `null` for a node delivered by email only: the API cannot drive it. */
  readonly token: string | null;
  readonly run: Run;
  readonly node: HumanInputNode;
  /** What the run's events carry (the node's own input config among it). */
  readonly request: HumanInputRequest;
  /** The inputs with a variable-backed select's live options, as the GET and a submission's checks see them. */
  readonly inputs: () => FormInput[];
  status: HumanInputFormStatus;
  timer: ReturnType<typeof setTimeout> | undefined;
}

export class FormStore {
  readonly #byToken = new Map<string, HumanInputForm>();
  readonly #byId = new Map<string, HumanInputForm>();

  add(form: HumanInputForm): void {
    this.#byId.set(form.id, form);
    if (form.token) this.#byToken.set(form.token, form);
  }

  byId(id: string): HumanInputForm | undefined {
    return this.#byId.get(id);
  }

  /** For QA controls, which name a form either way. */
  byTokenOrId(key: string): HumanInputForm | undefined {
    return this.#byToken.get(key) ?? this.#byId.get(key);
  }

  /** The form a token names for this app, or the real service's 404. */
  forApp(token: string, appId: string): HumanInputForm {
    const form = this.#byToken.get(token);
    if (!form || form.run.app.id !== appId) throw notFound('Form not found');
    return form;
  }

  /** Forgets a form (its run is no longer kept: see retention.ts). */
  remove(form: HumanInputForm): void {
    clearTimeout(form.timer);
    this.#byId.delete(form.id);
    if (form.token) this.#byToken.delete(form.token);
  }

  clear(): void {
    for (const form of this.#byId.values()) clearTimeout(form.timer);
    this.#byId.clear();
    this.#byToken.clear();
  }
}

/** Refuses a form that was submitted or has expired (`ensure_form_active`). */
export function ensureFormActive(form: HumanInputForm): void {
  if (form.status === 'submitted') {
    throw new ApiError(412, 'human_input_form_submitted', `This form has already been submitted by another user, form_id=${form.id}`);
  }
  const expiration = form.request.expiration_time;
  if (form.status === 'timeout' || form.status === 'expired' || (expiration !== null && expiration <= nowSeconds())) {
    throw new ApiError(412, 'human_input_form_expired', `This form has expired, form_id=${form.id}`);
  }
}

/** The `GET /form/human_input/{token}` body. */
export function formDefinition(form: HumanInputForm): HumanInputFormDefinition {
  return {
    form_content: form.request.form_content,
    inputs: form.inputs(),
    resolved_default_values: form.request.resolved_default_values,
    user_actions: form.request.actions,
    expiration_time: form.request.expiration_time,
  };
}

/** A file of a submission once built: an upload of the submitting user, or a fetched remote URL. */
export interface SubmittedFile {
  type: FileType;
  transfer_method: TransferMethod;
  upload_file_id?: string;
  url?: string;
  filename: string;
  extension: string;
  mime_type: string;
  size: number;
}

/** Builds a file from a submitted mapping; throws `FileRejection` with the reason. */
export type FileResolver = (reference: Record<string, unknown>, user: string) => Promise<SubmittedFile>;

const invalidForm = (message: string) => new ApiError(400, 'invalid_form_data', message);

/**
 * Checks a submission body and returns the normalised values and the chosen action. Throws the
 * real service's error for the first rule broken; the form is left as it was.
 */
export async function validateSubmission(
  form: HumanInputForm,
  body: Record<string, unknown>,
  resolveFile: FileResolver,
): Promise<{ action: { id: string; title: string }; values: Record<string, unknown>; user: string }> {
  const { inputs, action } = checkSubmissionPayload(body);
  const { user } = body;
  if (typeof user !== 'string' || !user.trim()) throw badParam('Arg user must be provided.');
  ensureFormActive(form);

  const provided = inputs;
  const configs = form.inputs();
  const values: Record<string, unknown> = {};
  for (const input of configs) {
    const name = input.output_variable_name;
    if (!(name in provided)) continue;
    values[name] = await normaliseValue(input, provided[name], (ref) => resolveFile(ref, user));
  }

  const chosen = form.request.actions.find((a) => a.id === action);
  if (!chosen) throw invalidForm(`Invalid action: ${action}`);
  const missing = configs.map((i) => i.output_variable_name).filter((n) => !(n in provided));
  if (missing.length) throw invalidForm(`Missing required inputs: ${missing.join(', ')}`);
  for (const input of configs) checkFilesAgainstConfig(input, values[input.output_variable_name]);
  return { action: chosen, values, user };
}

/**
 * The body's shape, checked like the real service's pydantic payload model. The real service
 * validates it before it looks the form up, so the route calls this first too.
 */
export function checkSubmissionPayload(body: Record<string, unknown>): { inputs: Record<string, unknown>; action: string } {
  const { inputs, action } = body;
  if (inputs === undefined || action === undefined) {
    const missing = [inputs === undefined && 'inputs', action === undefined && 'action'].filter(Boolean);
    throw badParam(`${missing.length} validation error${missing.length > 1 ? 's' : ''} for HumanInputFormSubmitPayload\n${missing.map((f) => `${f}\n  Field required`).join('\n')}`);
  }
  if (typeof inputs !== 'object' || inputs === null || Array.isArray(inputs)) {
    throw badParam('1 validation error for HumanInputFormSubmitPayload\ninputs\n  Input should be a valid dictionary');
  }
  if (typeof action !== 'string') {
    throw badParam('1 validation error for HumanInputFormSubmitPayload\naction\n  Input should be a valid string');
  }
  return { inputs: inputs as Record<string, unknown>, action };
}

async function normaliseValue(input: FormInput, value: unknown, resolve: (ref: Record<string, unknown>) => Promise<SubmittedFile>): Promise<unknown> {
  const name = input.output_variable_name;
  switch (input.type) {
    case 'paragraph':
      // The real service takes any JSON value here and stringifies it when rendering.
      return value;
    case 'select':
      if (typeof value !== 'string') throw invalidForm(`Invalid value for select input '${name}': expected string`);
      if (input.option_source.type === 'constant' && !input.option_source.value.includes(value)) {
        throw invalidForm(`Invalid value for select input '${name}': ${value}`);
      }
      return value;
    case 'file': {
      if (typeof value !== 'object' || value === null || Array.isArray(value)) {
        throw invalidForm(`Invalid value for file input '${name}': expected mapping`);
      }
      return wrapFileError(() => resolve(value as Record<string, unknown>), `Invalid value for file input '${name}'`);
    }
    case 'file-list': {
      if (!Array.isArray(value)) throw invalidForm(`Invalid value for file list input '${name}': expected list`);
      if (value.some((v) => typeof v !== 'object' || v === null || Array.isArray(v))) {
        throw invalidForm(`Invalid value for file list input '${name}': expected list of mappings`);
      }
      if (input.number_limits > 0 && value.length > input.number_limits) {
        throw invalidForm(`Invalid value for file list input '${name}': Number of files exceeds the maximum limit ${input.number_limits}`);
      }
      const files: SubmittedFile[] = [];
      for (const v of value) files.push(await wrapFileError(() => resolve(v as Record<string, unknown>), `Invalid value for file list input '${name}'`));
      return files;
    }
  }
}

/** File problems surface as `ValueError`s in the real service; `prefix` names the input. */
export class FileRejection extends Error {}

async function wrapFileError<T>(build: () => Promise<T>, prefix: string): Promise<T> {
  try {
    return await build();
  } catch (error) {
    if (error instanceof FileRejection) throw invalidForm(`${prefix}: ${error.message}`);
    throw error;
  }
}

/**
 * The input's file rules, checked once the action and the required inputs are known good (the
 * real service's order). A file passes when its kind is allowed, or when `custom` is allowed and
 * its extension is listed; a non-empty extension list narrows the allowed kinds too.
 */
function checkFilesAgainstConfig(input: FormInput, value: unknown): void {
  if (input.type !== 'file' && input.type !== 'file-list') return;
  const files = (input.type === 'file' ? [value] : (value as unknown[])) as SubmittedFile[];
  const prefix = input.type === 'file' ? `Invalid value for file input '${input.output_variable_name}'` : `Invalid value for file list input '${input.output_variable_name}'`;
  const extensions = input.allowed_file_extensions.map((e) => e.toLowerCase());
  for (const file of files) {
    if (!input.allowed_file_upload_methods.includes(file.transfer_method)) throw invalidForm(`${prefix}: unsupported transfer method`);
    const dotted = `.${file.extension}`;
    const custom = input.allowed_file_types.includes('custom');
    const byKind = input.allowed_file_types.length === 0 || input.allowed_file_types.includes(file.type);
    if (!byKind && !(custom && extensions.includes(dotted))) throw invalidForm(`${prefix}: unsupported file type`);
    if (!custom && extensions.length > 0 && !extensions.includes(dotted)) throw invalidForm(`${prefix}: file is not allowed by config`);
  }
}
