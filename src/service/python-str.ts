/**
 * Python's `str()` of a JSON value, for the places where the real service writes a submitted value
 * into text with `str(value)` (a form's `rendered_content`): `{'a': 1}`, `['x']`, `True`, `None`.
 */
export function pythonStr(value: unknown): string {
  return typeof value === 'string' ? value : pythonRepr(value);
}

function pythonRepr(value: unknown): string {
  if (value === null || value === undefined) return 'None';
  if (typeof value === 'boolean') return value ? 'True' : 'False';
  if (typeof value === 'number') return pythonNumber(value);
  if (typeof value === 'string') return quote(value);
  if (Array.isArray(value)) return `[${value.map(pythonRepr).join(', ')}]`;
  if (typeof value === 'object') {
    return `{${Object.entries(value as Record<string, unknown>).map(([k, v]) => `${quote(k)}: ${pythonRepr(v)}`).join(', ')}}`;
  }
  return String(value);
}

/** JSON integers are Python ints; other numbers are floats, whose exponent Python pads to two digits. */
function pythonNumber(n: number): string {
  if (Number.isInteger(n) && Math.abs(n) < 1e21) return n.toFixed(0);
  return String(n).replace(/e([+-])(\d)$/, 'e$10$2');
}

/** `repr()` of a str: single quotes unless the text has one and no double quote. */
function quote(text: string): string {
  const mark = text.includes("'") && !text.includes('"') ? '"' : "'";
  let out = '';
  for (const ch of text) {
    const code = ch.codePointAt(0)!;
    if (ch === '\\' || ch === mark) out += `\\${ch}`;
    else if (ch === '\n') out += '\\n';
    else if (ch === '\r') out += '\\r';
    else if (ch === '\t') out += '\\t';
    else if (code < 0x20 || code === 0x7f) out += `\\x${code.toString(16).padStart(2, '0')}`;
    else out += ch;
  }
  return mark + out + mark;
}

/** Python's whitespace (`str.isspace`): JavaScript's `\s` without the BOM, with the 0x1c–0x1f separators and NEL. */
const PY_WHITESPACE = '\\t\\n\\v\\f\\r\\x1c-\\x20\\x85\\xa0\\u1680\\u2000-\\u200a\\u2028\\u2029\\u202f\\u205f\\u3000';
const PY_SPACE = new RegExp(`[${PY_WHITESPACE}]`);

/**
 * Python's `str.strip([chars])`, where the real service tests a value with it (`if not
 * value.strip()`): whitespace, or the characters of `chars`, off both ends. Loops rather than a
 * regular expression: a trailing `[…]+$` is retried from every start, and a run input of 60,000
 * spaces between two digits took seconds (any end user sends run inputs, through the relay too).
 */
export function pythonStrip(text: string, chars?: string): string {
  const strips = chars === undefined ? (c: string) => PY_SPACE.test(c) : (c: string) => chars.includes(c);
  let start = 0;
  let end = text.length;
  while (start < end && strips(text[start]!)) start++;
  while (end > start && strips(text[end - 1]!)) end--;
  return text.slice(start, end);
}
