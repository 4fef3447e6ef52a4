/** Bearer-key authentication with the real service's 401 messages (dify-wire.md §1). */
import { unauthorized } from './errors.js';
import type { Fixture, FixtureApp } from './fixture.js';

/**
 * The key of `Authorization: Bearer <key>`, read as the real service reads it
 * (`header.split(None, 1)`): everything after the scheme is the key, so `Bearer key extra` names
 * the key `key extra`, which no app has.
 */
export function bearerToken(request: Request): string {
  const header = request.headers.get('authorization');
  if (header === null || !header.includes(' ')) {
    throw unauthorized("Authorization header must be provided and start with 'Bearer'");
  }
  const [, scheme = '', token = ''] = /^(\S*)\s*([\s\S]*)$/.exec(header.trim()) ?? [];
  if (scheme.toLowerCase() !== 'bearer') throw unauthorized("Authorization scheme must be 'Bearer'");
  return token;
}

export function authenticateApp(request: Request, fixture: Fixture): FixtureApp {
  const token = bearerToken(request);
  const app = fixture.apps.find((a) => a.key === token);
  if (!app) throw unauthorized('Access token is invalid');
  return app;
}
