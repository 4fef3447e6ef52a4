/** Identifiers shaped like the real service's. */
import { randomBytes, randomUUID } from 'node:crypto';

export const uuid = (): string => randomUUID();

const TOKEN_ALPHABET = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';

/** A random 22-character form token, like `generate_string(22)`. */
export function formToken(): string {
  const bytes = randomBytes(22);
  let token = '';
  // 62 does not divide 256; the slight bias is irrelevant for an unguessable 131-bit token.
  for (const byte of bytes) token += TOKEN_ALPHABET[byte % TOKEN_ALPHABET.length];
  return token;
}

export const nowSeconds = (): number => Math.floor(Date.now() / 1000);
