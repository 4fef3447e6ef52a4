/**
 * Whether a field name (a query key, a multipart part name) would be read as `user` by some
 * server: the exact name, and spellings a lenient parser might fold into it. Dropping a harmless
 * `User` field costs nothing; letting one through could cost the user binding.
 */

export function isUserField(name: string): boolean {
  let decoded = name;
  try {
    decoded = decodeURIComponent(name);
  } catch {
    // not percent-encoded
  }
  return [name, decoded].some((spelling) => {
    // A C-string reader stops at NUL; surrounding space and controls are trimmed by many binders.
    const base = trimNoise(withoutBrackets(trimNoise(spelling.split('\u0000')[0]!)));
    // Both foldings: `'uſer'.toUpperCase()` is `USER`, which a case-insensitive binder may match.
    return base.toLowerCase() === 'user' || base.toUpperCase() === 'USER';
  });
}

// Loops rather than regular expressions: a trailing `[…]+$` backtracks from every start, and a
// name of a few thousand characters then took seconds (any signed-in user chooses the names).

/** Space (any `\s`) and control characters. */
function isNoise(char: string): boolean {
  const c = char.charCodeAt(0);
  return c < 0x20 || c === 0x7f || /\s/.test(char);
}

function trimNoise(text: string): string {
  let start = 0;
  let end = text.length;
  while (start < end && isNoise(text[start]!)) start++;
  while (end > start && isNoise(text[end - 1]!)) end--;
  return text.slice(start, end);
}

/**
 * Without PHP's `user[]` or Rails' `user[id]`: the longest suffix of bracket groups (`[…]`, no
 * `]` inside), which binds to the base name.
 */
function withoutBrackets(text: string): string {
  let cut = text.length;
  // Group by group from the end: each runs from the first `[` after the `]` before it.
  let end = text.length;
  while (end > 0 && text.charCodeAt(end - 1) === 0x5d) {
    const before = text.lastIndexOf(']', end - 2);
    const open = text.indexOf('[', before + 1);
    if (open < 0 || open >= end - 1) break;
    cut = open;
    // The suffix goes on only through a group that ends right before this one.
    if (open !== before + 1) break;
    end = open;
  }
  return text.slice(0, cut);
}
