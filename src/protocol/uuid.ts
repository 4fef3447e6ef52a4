/**
 * The one UUID rule. Ids in the API are UUIDs: knowledge ids are routed as `<uuid:…>` (8-4-4-4-12
 * hex digits, either case); the app side reads its ids (conversation, message and variable ids,
 * in paths, queries and bodies) the way Python's `uuid.UUID` does, which also takes the 32 digits
 * without their hyphens.
 */
export const UUID_PATTERN = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** `UUID_PATTERN` with the hyphens optional: how the app side reads an id. */
export const LAX_UUID_PATTERN = /^[0-9a-f]{8}-?[0-9a-f]{4}-?[0-9a-f]{4}-?[0-9a-f]{4}-?[0-9a-f]{12}$/i;

/**
 * An id that passed `LAX_UUID_PATTERN` as the service stores it: lower case, with its hyphens
 * (Python's `uuid.UUID` and Postgres read `ABCD…` and the hyphen-less form as the same id).
 */
export function canonicalUuid(id: string): string {
  const hex = id.replaceAll('-', '').toLowerCase();
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}
