/**
 * The one UUID rule. Ids in the API are UUIDs: knowledge ids are routed as `<uuid:…>` (8-4-4-4-12
 * hex digits, either case); the app side reads its ids (conversation, message and variable ids,
 * in paths, queries and bodies) the way Python's `uuid.UUID` does, which also takes the 32 digits
 * without their hyphens.
 */
export const UUID_PATTERN = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** `UUID_PATTERN` with the hyphens optional: how the app side reads an id. */
export const LAX_UUID_PATTERN = /^[0-9a-f]{8}-?[0-9a-f]{4}-?[0-9a-f]{4}-?[0-9a-f]{4}-?[0-9a-f]{12}$/i;
