/** App-key authentication with the real service's 401 messages (dify-wire.md §1). */
import { unauthorized } from './errors.js';
import type { Fixture, FixtureApp } from './fixture.js';

export function authenticateApp(request: Request, fixture: Fixture): FixtureApp {
  const header = request.headers.get('authorization');
  if (!header || !/^bearer\s/i.test(header.trimStart()) && !header.includes(' ')) {
    throw unauthorized("Authorization header must be provided and start with 'Bearer'");
  }
  const [scheme, token] = header.trim().split(/\s+/, 2);
  if (scheme?.toLowerCase() !== 'bearer') throw unauthorized("Authorization scheme must be 'Bearer'");
  const app = fixture.apps.find((a) => a.key === token);
  if (!app) throw unauthorized('Access token is invalid');
  return app;
}
