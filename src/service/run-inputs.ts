/**
 * The `inputs` of a run or message, checked against the app's input form like the real service
 * does before it starts anything (400 `invalid_param` with its messages).
 */
import type { UserInputFormItem } from '../protocol/index.js';
import { badParam } from './errors.js';
import { validationError } from './params.js';
import { pythonStrip } from './python-str.js';
import type { FixtureApp, InputVariable } from './fixture.js';

/** The variables a run of `app` takes: its start node's, or its own for chat and completion apps. */
export function inputVariables(app: FixtureApp): InputVariable[] {
  const start = app.workflow?.nodes.find((n) => n.type === 'start');
  return start?.type === 'start' ? start.variables : app.inputs;
}

/** The request models whose `inputs: dict[str, Any]` field the real service validates. */
export type RunPayload = 'ChatRequestPayload' | 'CompletionRequestPayload' | 'WorkflowRunPayload';

/**
 * The inputs a run or message gets, as the real service prepares them (`BaseAppGenerator.
 * _prepare_user_inputs`): `inputs` must be an object (pydantic's `dict`, of `payload`); each
 * variable of the app's form is checked and converted (`_validate_inputs`), a missing optional one
 * takes its default, or null; keys the form does not declare are dropped.
 */
export function checkRunInputs(app: FixtureApp, inputs: unknown, payload: RunPayload): Record<string, unknown> {
  if (inputs === undefined) throw validationError(payload, [{ loc: 'inputs', msg: 'Field required' }]);
  if (typeof inputs !== 'object' || inputs === null || Array.isArray(inputs)) throw validationError(payload, [{ loc: 'inputs', msg: 'Input should be a valid dictionary' }]);
  const given = inputs as Record<string, unknown>;
  return Object.fromEntries(inputVariables(app).map((variable) => [variable.variable, inputValue(variable, given[variable.variable])]));
}

/** One variable's value, checked and converted as `_validate_inputs` does. */
function inputValue(variable: InputVariable, given: unknown): unknown {
  const name = variable.variable;
  let value = given ?? null;
  if (value === null) {
    if (variable.required) throw badParam(`${name} is required in input form`);
    // The fixture writes "no default" as '': text stays '' (as the real service would take it); a
    // number or a choice is then unset, not a value to check.
    if (variable.default === '' && variable.type !== 'text-input' && variable.type !== 'paragraph') return null;
    value = variable.default;
  }
  if (variable.type === 'number') {
    if (typeof value === 'number' || typeof value === 'boolean') return value;
    // Python's `int()` / `float()` of the text (`float` when it holds a dot); anything else the real
    // service refuses with a TypeError (a 500 there): here the same 400 as bad text.
    const text = typeof value === 'string' ? pythonStrip(value).replace(/(?<=\d)_(?=\d)/g, '') : undefined;
    if (text === '') return null;
    const number = text === undefined ? NaN : text.includes('.') ? Number(text) : /^[+-]?\d+$/.test(text) ? Number(text) : NaN;
    if (!Number.isFinite(number)) throw badParam(`${name} in input form must be a valid number`);
    return number;
  }
  if (typeof value !== 'string') throw badParam(`(type '${variable.type}') ${name} in input form must be a string`);
  if (variable.type === 'select' && variable.options && !variable.options.includes(value)) {
    throw badParam(`${name} in input form must be one of the following: [${variable.options.map((o) => `'${o}'`).join(', ')}]`);
  }
  // Python counts code points.
  if (variable.type !== 'select' && variable.max_length !== undefined && [...value].length > variable.max_length) {
    throw badParam(`${name} in input form must be less than ${variable.max_length} characters`);
  }
  // `_sanitize_value`: NUL characters are dropped.
  return value.replaceAll('\0', '');
}

/** `user_input_form` of `/parameters`: one-key objects naming the control type. */
export function userInputForm(app: FixtureApp): UserInputFormItem[] {
  return inputVariables(app).map((v) => ({
    [v.type]: {
      label: v.label,
      variable: v.variable,
      required: v.required,
      default: v.default,
      ...(v.options ? { options: v.options } : {}),
      ...(v.max_length !== undefined ? { max_length: v.max_length } : {}),
    },
  }));
}
