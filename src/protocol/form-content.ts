/**
 * The Markdown of a human-input form and its `{{#$output.<name>#}}` slots (dify-wire.md §2.5).
 */
import type { FormInput } from './human-input.js';

/**
 * Splits like the official web client (any run of non-`#` characters after `$output.`), so a slot
 * whose name the server would not accept is still recognised, and left empty.
 */
const SLOT_SPLIT = /\{\{#\$output\.([^#]+)#\}\}/g;

/** Workflow variable references `{{#node_id.var#}}` (not `$output` slots). */
const VARIABLE_REFERENCE = /\{\{#([A-Za-z0-9_][A-Za-z0-9_-]*(?:\.[A-Za-z0-9_-]+)+)#\}\}/g;

/** The names a form input may take in a slot, as the server validates them. */
export const OUTPUT_NAME = /^[a-zA-Z_][a-zA-Z0-9_]{0,29}$/;

export type FormContentPart =
  | { kind: 'markdown'; text: string }
  | { kind: 'slot'; name: string };

/** Splits form content into Markdown runs and slots, in order; empty Markdown runs are dropped. */
export function splitFormContent(content: string): FormContentPart[] {
  const parts: FormContentPart[] = [];
  let last = 0;
  for (const match of content.matchAll(SLOT_SPLIT)) {
    if (match.index > last) parts.push({ kind: 'markdown', text: content.slice(last, match.index) });
    parts.push({ kind: 'slot', name: match[1]! });
    last = match.index + match[0].length;
  }
  if (last < content.length) parts.push({ kind: 'markdown', text: content.slice(last) });
  return parts;
}

/** Names of the slots the content mentions, in order of first mention. */
export function slotNames(content: string): string[] {
  return [...new Set(splitFormContent(content).flatMap((p) => (p.kind === 'slot' ? [p.name] : [])))];
}

/**
 * Substitutes workflow variable references before the form is shown; `$output` slots stay.
 * `resolve` gets the selector (`['node_id', 'var']`) and returns the value, or `undefined` to
 * leave the reference as written.
 */
export function substituteVariables(content: string, resolve: (selector: string[]) => unknown): string {
  return content.replace(VARIABLE_REFERENCE, (whole, path: string) => {
    const value = resolve(path.split('.'));
    if (value === undefined) return whole;
    return stringifyValue(value);
  });
}

/**
 * The content after submission: each slot replaced by its value (paragraph and select as text,
 * a file as `[file]`, a file list as `[N files]`, nothing for a missing value).
 */
export function renderWithOutputs(
  content: string,
  inputs: readonly FormInput[],
  values: Record<string, unknown>,
  /** How a paragraph or select value becomes text (the real service uses Python's `str()`). */
  toText: (value: unknown) => string = stringifyValue,
): string {
  const types = new Map(inputs.map((i) => [i.output_variable_name, i.type]));
  return content.replace(SLOT_SPLIT, (_whole, name: string) => {
    const value = values[name];
    if (value === null || value === undefined) return '';
    switch (types.get(name)) {
      case 'file':
        return '[file]';
      case 'file-list':
        return `[${Array.isArray(value) ? value.length : 0} files]`;
      default:
        return toText(value);
    }
  });
}

/** Text of a value as the real service stringifies defaults: `null` → "", objects → JSON. */
export function stringifyValue(value: unknown): string {
  if (value === null || value === undefined) return '';
  if (typeof value === 'object') return JSON.stringify(value);
  if (typeof value === 'boolean') return value ? 'True' : 'False';
  return String(value);
}
