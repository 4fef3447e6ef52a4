/**
 * The `inputs` of a run or message, checked against the app's input form like the real service
 * does before it starts anything (400 `invalid_param` with its messages).
 */
import type { UserInputFormItem } from '../protocol/index.js';
import { badParam } from './errors.js';
import type { FixtureApp, InputVariable } from './fixture.js';

/** The variables a run of `app` takes: its start node's, or its own for chat and completion apps. */
export function inputVariables(app: FixtureApp): InputVariable[] {
  const start = app.workflow?.nodes.find((n) => n.type === 'start');
  return start?.type === 'start' ? start.variables : app.inputs;
}

/** `inputs` must be an object; each known variable is checked, unknown keys are kept as given. */
export function checkRunInputs(app: FixtureApp, inputs: unknown): Record<string, unknown> {
  if (typeof inputs !== 'object' || inputs === null || Array.isArray(inputs)) {
    throw badParam('inputs is required in request body');
  }
  const given = inputs as Record<string, unknown>;
  for (const variable of inputVariables(app)) {
    const name = variable.variable;
    const value = given[name];
    if (value === undefined || value === null || value === '') {
      if (variable.required) throw badParam(`${name} is required in input form`);
      continue;
    }
    if (variable.type === 'number') {
      if (typeof value === 'number' ? !Number.isFinite(value) : typeof value !== 'string' || !value.trim() || Number.isNaN(Number(value))) {
        throw badParam(`${name} in input form must be a valid number`);
      }
      continue;
    }
    if (typeof value !== 'string') throw badParam(`${name} in input form must be a string`);
    if (variable.type === 'select' && variable.options && !variable.options.includes(value)) {
      throw badParam(`${name} in input form must be one of the following: [${variable.options.map((o) => `'${o}'`).join(', ')}]`);
    }
    if (variable.max_length !== undefined && value.length > variable.max_length) {
      throw badParam(`${name} in input form must be less than ${variable.max_length} characters`);
    }
  }
  return given;
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
