/**
 * The browser-safe operations the relay lets through, under the upstream's own paths, and where
 * each carries `user` (which the relay overwrites with the session's).
 */
export type UserPlacement = 'query' | 'json' | 'none';

export interface RelayRoute {
  method: 'GET' | 'POST' | 'PUT' | 'DELETE';
  pattern: RegExp;
  user: UserPlacement;
  /** The route streams its answer (SSE): never buffered. */
  streams?: boolean;
  /** Path parameter holding a run id, checked against a run-bound session. */
  runParam?: number;
}

const SEGMENT = '([^/]+)';

/** The allowlist; everything else answers 404. Knowledge routes never pass. */
export const RELAY_ROUTES: readonly RelayRoute[] = [
  { method: 'POST', pattern: /^\/workflows\/run$/, user: 'json', streams: true },
  { method: 'GET', pattern: new RegExp(`^/workflow/${SEGMENT}/events$`), user: 'query', streams: true, runParam: 1 },
  { method: 'GET', pattern: new RegExp(`^/form/human_input/${SEGMENT}$`), user: 'none' },
  { method: 'POST', pattern: new RegExp(`^/form/human_input/${SEGMENT}$`), user: 'json' },
  { method: 'GET', pattern: /^\/site$/, user: 'none' },
];

export function matchRoute(method: string, path: string): { route: RelayRoute; match: RegExpExecArray } | undefined {
  for (const route of RELAY_ROUTES) {
    if (route.method !== method) continue;
    const match = route.pattern.exec(path);
    if (match) return { route, match };
  }
  return undefined;
}
