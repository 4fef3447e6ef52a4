/**
 * Conversation variable values and their `value_type`s: the type check of a PUT (with the real
 * service's message), the type a value looks like, and the text the listing shows.
 */
import type { ValueType } from '../fixture.js';

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/** A file value: a file reference or a file object, told apart from other objects by `transfer_method`. */
const isFile = (v: unknown): boolean =>
  isObject(v) && (v.transfer_method === 'local_file' || v.transfer_method === 'remote_url' || v.transfer_method === 'tool_file');

const ELEMENT_CHECKS: Record<string, (v: unknown) => boolean> = {
  'array[string]': (v) => typeof v === 'string',
  'array[number]': (v) => typeof v === 'number' && Number.isFinite(v),
  'array[boolean]': (v) => typeof v === 'boolean',
  'array[object]': (v) => isObject(v) && !isFile(v),
  'array[file]': isFile,
  'array[any]': () => true,
};

/** Whether `value` may be stored in a variable of `type`. */
export function fitsValueType(type: ValueType, value: unknown): boolean {
  switch (type) {
    case 'string':
    case 'secret':
      return typeof value === 'string';
    case 'number':
      return typeof value === 'number' && Number.isFinite(value);
    case 'boolean':
      return typeof value === 'boolean';
    case 'object':
      return isObject(value) && !isFile(value);
    case 'file':
      return isFile(value);
    default:
      return Array.isArray(value) && value.every(ELEMENT_CHECKS[type]!);
  }
}

/** The type a value looks like, as the real service infers it for its mismatch message. */
export function inferValueType(value: unknown): string {
  if (value === null || value === undefined) return 'none';
  if (typeof value === 'string') return 'string';
  if (typeof value === 'boolean') return 'boolean';
  if (typeof value === 'number') return 'number';
  if (isFile(value)) return 'file';
  if (isObject(value)) return 'object';
  if (Array.isArray(value)) {
    if (value.length === 0) return 'array[any]';
    for (const type of ['array[string]', 'array[number]', 'array[boolean]', 'array[file]', 'array[object]'] as const) {
      if (value.every(ELEMENT_CHECKS[type]!)) return type;
    }
    return 'array[any]';
  }
  return 'unknown';
}

/** `Type mismatch: …`, the real service's 400 `bad_request` message. */
export function typeMismatchMessage(name: string, type: ValueType, value: unknown): string {
  return `Type mismatch: variable '${name}' expects ${type}, but got ${inferValueType(value)} type`;
}

/**
 * The `value` field of a listed variable: strings as they are, everything else as JSON text
 * (the seed: "a JSON string may carry complex types").
 */
export function displayValue(value: unknown): string {
  return typeof value === 'string' ? value : JSON.stringify(value ?? null);
}
