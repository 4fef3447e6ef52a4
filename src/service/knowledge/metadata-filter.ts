/**
 * Metadata filtering of retrieval (`metadata_filtering_conditions`), with the real service's
 * operator semantics (`dataset_retrieval.py`): a condition without a value is skipped (except
 * `empty` / `not empty`); conditions combine with `and` or `or`. The real service compares in SQL
 * on the document's metadata JSON, where a missing value makes every comparison false (`NULL`),
 * negations included: only `empty` holds for a document without the field.
 */
import type { MetadataCondition } from '../../protocol/index.js';

export type MetadataValues = ReadonlyMap<string, string | number | null>;

const asNumber = (v: unknown): number => (typeof v === 'number' ? v : Number.parseFloat(String(v)));

function listOf(value: MetadataCondition['value']): string[] {
  if (Array.isArray(value)) return value.map(String);
  return String(value).split(',').map((s) => s.trim());
}

/** Whether one condition holds for a document's metadata values (by field name). */
export function conditionHolds(condition: MetadataCondition, values: MetadataValues): boolean {
  const op = condition.comparison_operator;
  const actual = values.get(condition.name);
  const present = actual !== undefined && actual !== null;
  if (op === 'empty') return !present;
  if (op === 'not empty') return present;
  if (!present) return false;
  const expected = condition.value!;
  const text = String(actual);
  switch (op) {
    case 'contains':
      return text.includes(String(expected));
    case 'not contains':
      return !text.includes(String(expected));
    case 'start with':
      return text.startsWith(String(expected));
    case 'end with':
      return text.endsWith(String(expected));
    case 'is':
    case '=':
      return typeof expected === 'number' ? asNumber(actual) === expected : text === String(expected);
    case 'is not':
    case '≠':
      return typeof expected === 'number' ? asNumber(actual) !== expected : text !== String(expected);
    case 'in':
      return listOf(expected).includes(text);
    case 'not in':
      return !listOf(expected).includes(text);
    case '<':
    case 'before':
      return asNumber(actual) < asNumber(expected);
    case '>':
    case 'after':
      return asNumber(actual) > asNumber(expected);
    case '≤':
      return asNumber(actual) <= asNumber(expected);
    case '≥':
      return asNumber(actual) >= asNumber(expected);
    default:
      return true;
  }
}

export function matchesConditions(
  filter: { logical_operator?: 'and' | 'or'; conditions?: MetadataCondition[] | null },
  values: MetadataValues,
): boolean {
  // Conditions without a value add no filter at all (not even to an `or`).
  const conditions = (filter.conditions ?? []).filter(
    (c) => c.comparison_operator === 'empty' || c.comparison_operator === 'not empty' || (c.value !== undefined && c.value !== null),
  );
  if (!conditions.length) return true;
  const results = conditions.map((c) => conditionHolds(c, values));
  return filter.logical_operator === 'or' ? results.some(Boolean) : results.every(Boolean);
}
