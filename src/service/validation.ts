/**
 * Request validation with zod, answered like the real service: it validates bodies with pydantic
 * and answers `400 invalid_param` with the error's text; messages here follow pydantic's wording
 * ("N validation error(s) for Model", then each field path and reason), without pydantic's
 * trailing `[type=…]` details. Shared by the app routes and the knowledge routes.
 */
import { z } from 'zod';
import { badParam } from './errors.js';

type Issue = z.core.$ZodIssue;
type RawIssue = z.core.$ZodRawIssue;

function article(expected: string): string {
  return /^[aeiou]/.test(expected) ? 'an' : 'a';
}

const TYPE_NAMES: Record<string, string> = {
  string: 'valid string',
  number: 'valid number',
  int: 'valid integer',
  boolean: 'valid boolean',
  array: 'valid list',
  object: 'valid dictionary',
};

/** pydantic's phrasing for zod's issues. */
function pydanticMessage(issue: RawIssue): string | undefined {
  const input = issue.input;
  switch (issue.code) {
    case 'invalid_type': {
      if (input === undefined) return 'Field required';
      const expected = String(issue.expected);
      const name = TYPE_NAMES[expected] ?? expected;
      return `Input should be ${name.startsWith('valid') ? 'a' : article(name)} ${name}`;
    }
    case 'too_big':
      if (issue.origin === 'string') return `String should have at most ${issue.maximum} character${Number(issue.maximum) === 1 ? '' : 's'}`;
      if (issue.origin === 'array') return `List should have at most ${issue.maximum} item${Number(issue.maximum) === 1 ? '' : 's'} after validation, not ${listLength(input)}`;
      return `Input should be less than${issue.inclusive ? ' or equal to' : ''} ${issue.maximum}`;
    case 'too_small':
      if (issue.origin === 'string') return `String should have at least ${issue.minimum} character${Number(issue.minimum) === 1 ? '' : 's'}`;
      if (issue.origin === 'array') return `List should have at least ${issue.minimum} item${Number(issue.minimum) === 1 ? '' : 's'} after validation, not ${listLength(input)}`;
      return `Input should be greater than${issue.inclusive ? ' or equal to' : ''} ${issue.minimum}`;
    case 'invalid_value': {
      const values = issue.values.map((v) => `'${String(v)}'`);
      const list = values.length > 1 ? `${values.slice(0, -1).join(', ')} or ${values.at(-1)}` : (values[0] ?? '');
      return `Input should be ${list}`;
    }
    case 'invalid_union':
      return 'Input does not match any of the accepted types';
    default:
      return undefined;
  }
}

/** pydantic names a list's length in its length errors (`…after validation, not 0`). */
const listLength = (input: unknown) => (Array.isArray(input) ? input.length : '');

function pathText(path: PropertyKey[]): string {
  return path.map((p) => String(p)).join('.');
}

/** A pydantic-style validation error text. */
export function validationMessage(model: string, issues: { path: PropertyKey[]; message: string }[]): string {
  const count = issues.length;
  const lines = [`${count} validation error${count === 1 ? '' : 's'} for ${model}`];
  for (const issue of issues) {
    const path = pathText(issue.path);
    if (path) lines.push(path);
    lines.push(`  ${issue.message}`);
  }
  return lines.join('\n');
}

/** Parses `data`: the value, or pydantic's text naming each offending field. */
export function parsePayload<S extends z.ZodType>(schema: S, data: unknown, model: string): { ok: true; data: z.output<S> } | { ok: false; message: string } {
  const result = schema.safeParse(data, { error: pydanticMessage });
  if (result.success) return { ok: true, data: result.data };
  return { ok: false, message: validationMessage(model, result.error.issues.map((i: Issue) => ({ path: i.path, message: i.message }))) };
}

/** Parses `data` or throws `400 invalid_param` naming each offending field. */
export function parseOrThrow<S extends z.ZodType>(schema: S, data: unknown, model: string): z.output<S> {
  const result = parsePayload(schema, data, model);
  if (result.ok) return result.data;
  throw badParam(result.message);
}

/** Adds a pydantic `Value error` at `path`. */
export function valueError(ctx: z.core.$RefinementCtx, path: PropertyKey[], message: string): void {
  ctx.addIssue({ code: 'custom', path, message: `Value error, ${message}` });
}
