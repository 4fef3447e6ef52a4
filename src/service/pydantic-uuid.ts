/**
 * pydantic's `UUID` field read from JSON, for payloads Dify types `list[UUID]` (the ids of a ZIP
 * download). pydantic-core parses the string with the Rust `uuid` crate's `Uuid::parse_str`: 32 hex
 * digits, or 8-4-4-4-12 with hyphens, bare, in braces or after `urn:uuid:`; the id is then used as
 * `str(uuid)`, lower case with hyphens. A refusal reads `Input should be a valid UUID, <the crate's
 * reason>`, the reason worked out as the crate's `InvalidUuid::into_err` does.
 */
import { z } from 'zod';
import { canonicalUuid, UUID_PATTERN } from '../protocol/index.js';

const SIMPLE = /^[0-9a-f]{32}$/i;
/** Where the groups of a hyphenated UUID start. */
const BLOCK_STARTS = [0, 9, 14, 19, 24];
const GROUP_LENGTHS = [8, 4, 4, 4, 12];

/** The canonical id, or the crate's reason for refusing the text. */
export function parseUuid(text: string): { id: string } | { reason: string } {
  const hyphenated =
    text.length === 36 ? text : text.length === 38 && text.startsWith('{') && text.endsWith('}') ? text.slice(1, -1) : text.length === 45 && text.startsWith('urn:uuid:') ? text.slice(9) : null;
  if ((text.length === 32 && SIMPLE.test(text)) || (hyphenated !== null && UUID_PATTERN.test(hyphenated))) return { id: canonicalUuid(hyphenated ?? text) };
  return { reason: refusal(text) };
}

function refusal(input: string): string {
  const [body, offset, simple] =
    input.length >= 2 && input.startsWith('{') && input.endsWith('}') ? [input.slice(1, -1), 1, false] : input.startsWith('urn:uuid:') ? [input.slice(9), 9, false] : [input, 0, true];
  const hyphens: number[] = [];
  // Every character before the first non-ASCII one is ASCII, so string and byte indices agree.
  for (let index = 0; index < body.length; index++) {
    const character = String.fromCodePoint(body.codePointAt(index)!);
    if (character === '-') hyphens.push(index);
    else if (!/^[0-9a-fA-F]$/.test(character)) return `invalid character: expected an optional prefix of \`urn:uuid:\` followed by [0-9a-fA-F-], found \`${character}\` at ${index + offset + 1}`;
  }
  const length = new TextEncoder().encode(input).length;
  if (!hyphens.length && simple) return `invalid length: expected length 32 for simple format, found ${length}`;
  if (hyphens.length !== 4) return `invalid group count: expected 5, found ${hyphens.length + 1}`;
  for (let group = 0; group < 4; group++) {
    if (hyphens[group] !== BLOCK_STARTS[group + 1]! - 1) return groupLength(group, hyphens[group]! - BLOCK_STARTS[group]!);
  }
  return groupLength(4, length - BLOCK_STARTS[4]!);
}

const groupLength = (group: number, found: number) => `invalid group length in group ${group}: expected ${GROUP_LENGTHS[group]}, found ${found}`;

/** A `UUID` item of a pydantic model: the canonical id, or pydantic's refusal. */
export const pydanticUuid = z.unknown().transform((value, ctx) => {
  if (typeof value !== 'string') {
    ctx.addIssue({ code: 'custom', message: 'UUID input should be a string, bytes or UUID object' });
    return z.NEVER;
  }
  const parsed = parseUuid(value);
  if ('reason' in parsed) {
    ctx.addIssue({ code: 'custom', message: `Input should be a valid UUID, ${parsed.reason}` });
    return z.NEVER;
  }
  return parsed.id;
});
