/**
 * Whether a field name (a query key, a multipart part name) would be read as `user` by some
 * server: the exact name, and spellings a lenient parser might fold into it. Dropping a harmless
 * `User` field costs nothing; letting one through could cost the user binding.
 */

// eslint-disable-next-line no-control-regex
const EDGE_NOISE = /^[\s\u0000-\u001f\u007f]+|[\s\u0000-\u001f\u007f]+$/g;
/** PHP's `user[]`, Rails' `user[id]`: bracket suffixes that bind to the base name. */
const BRACKETS = /(\[[^\]]*\])+$/;

export function isUserField(name: string): boolean {
  let decoded = name;
  try {
    decoded = decodeURIComponent(name);
  } catch {
    // not percent-encoded
  }
  return [name, decoded].some((spelling) => {
    // A C-string reader stops at NUL; surrounding space and controls are trimmed by many binders.
    const base = spelling.split('\u0000')[0]!.replace(EDGE_NOISE, '').replace(BRACKETS, '').replace(EDGE_NOISE, '');
    // Both foldings: `'uſer'.toUpperCase()` is `USER`, which a case-insensitive binder may match.
    return base.toLowerCase() === 'user' || base.toUpperCase() === 'USER';
  });
}
