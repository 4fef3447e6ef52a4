/**
 * The human-input form: the definition a paused node exposes and the submission that resumes it
 * (service-api.md "Human input form", dify-wire.md §2).
 */
import type { FileReference, FileType, TransferMethod } from './files.js';

export type ButtonStyle = 'primary' | 'default' | 'accent' | 'ghost';

export interface UserAction {
  /** At most 20 characters matching `^[A-Za-z_][A-Za-z0-9_]*$`. */
  id: string;
  title: string;
  button_style: ButtonStyle;
}

/** Where a paragraph's default or a select's options come from. */
export interface StringSource {
  type: 'constant' | 'variable';
  selector: string[];
  value: string;
}

export interface StringListSource {
  type: 'constant' | 'variable';
  selector: string[];
  value: string[];
}

interface InputBase {
  output_variable_name: string;
}

export interface ParagraphInput extends InputBase {
  type: 'paragraph';
  default?: StringSource | null;
}

export interface SelectInput extends InputBase {
  type: 'select';
  option_source: StringListSource;
}

export interface FileInput extends InputBase {
  type: 'file';
  allowed_file_types: FileType[];
  /** With a leading dot, e.g. `.md`; required when `custom` is among the types. */
  allowed_file_extensions: string[];
  allowed_file_upload_methods: TransferMethod[];
}

export interface FileListInput extends Omit<FileInput, 'type'> {
  type: 'file-list';
  /** Most files accepted; `0` means no limit. */
  number_limits: number;
}

/** One input of a form, discriminated by `type`. */
export type FormInput = ParagraphInput | SelectInput | FileInput | FileListInput;
export type FormInputType = FormInput['type'];

/** `GET /form/human_input/{form_token}`. */
export interface HumanInputFormDefinition {
  /** Markdown with workflow variables substituted and `{{#$output.<name>#}}` slots kept. */
  form_content: string;
  inputs: FormInput[];
  /** Always strings, keyed by `output_variable_name`; variable-backed defaults only (a constant one is in `inputs[].default.value`). */
  resolved_default_values: Record<string, string>;
  user_actions: UserAction[];
  /** Epoch seconds; after it the form cannot be submitted. */
  expiration_time: number | null;
}

/** The value each input type takes in a submission. */
export type FormInputValue = string | FileReference | FileReference[];

/** `POST /form/human_input/{form_token}`. */
export interface HumanInputFormSubmission {
  inputs: Record<string, FormInputValue>;
  action: string;
  user: string;
}

/** The form as carried by `human_input_required` and by `workflow_paused` reasons. */
export interface HumanInputRequest {
  form_id: string;
  node_id: string;
  node_title: string;
  form_content: string;
  inputs: FormInput[];
  actions: UserAction[];
  display_in_ui: boolean;
  /** `null` when the form has no recipient the API may drive (email-only delivery). */
  form_token: string | null;
  resolved_default_values: Record<string, string>;
  expiration_time: number | null;
  approval_channels?: string[];
}

/**
 * The definition a `human_input_required` event already carries, so the form need not be asked
 * for again; `undefined` when it lacks what the form needs. Real Dify puts the node's own input
 * config in the event: a select whose options come from a variable has its live values only in
 * `GET /form/human_input/{token}` (dify-wire.md §2.2), so such a form is still asked for.
 */
export function requestDefinition(request: HumanInputRequest): HumanInputFormDefinition | undefined {
  if (request.inputs.some((input) => input.type === 'select' && input.option_source.type === 'variable')) return undefined;
  const { form_content, inputs, resolved_default_values, actions, expiration_time } = request;
  return { form_content, inputs, resolved_default_values, user_actions: actions, expiration_time };
}

/** Status of a form as the real service stores it. */
export type HumanInputFormStatus = 'waiting' | 'expired' | 'submitted' | 'timeout';

/** What a refused form submission blames, read from its message (see `submitRefusal`). */
export interface SubmitRefusal {
  /** The inputs the message names (output variable names); empty when it names none. */
  inputs: string[];
  /** Whether they were left empty (`Missing required inputs: a, b`). */
  missing: boolean;
  /** Whether a link given to a file input could not be fetched: sending it again may work. */
  linkFailed: boolean;
}

/**
 * Reads a refused submission's `message`. The real service names the inputs at fault only in its
 * text (`Missing required inputs: a, b`, `Invalid value for file input 'x': Failed to fetch
 * remote file …`; dify-wire.md §2.3), with no structured field, so the wording is read here, in
 * one place, rather than by each caller.
 */
export function submitRefusal(message: string): SubmitRefusal {
  const missing = /^Missing required inputs: (.+)/.exec(message)?.[1]?.split(', ');
  const named = /input '(\w+)'/.exec(message)?.[1];
  return { inputs: missing ?? (named ? [named] : []), missing: !!missing, linkFailed: message.includes('Failed to fetch remote file') };
}
