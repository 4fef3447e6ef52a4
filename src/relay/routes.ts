/**
 * The browser-safe operations the relay lets through, under the upstream's own paths, and where
 * each carries `user` (which the relay overwrites with the session's). Everything else is 404;
 * knowledge routes (`/datasets/**`) are never listed.
 */
export type UserPlacement = 'query' | 'json' | 'multipart' | 'none';

export interface RelayRoute {
  method: 'GET' | 'POST' | 'PUT' | 'DELETE';
  /** The path as documented, with `{param}` placeholders; also what logs show instead of real ids and tokens. */
  name: string;
  pattern: RegExp;
  user: UserPlacement;
  /** The answer streams (SSE, audio): passed on chunk by chunk, never cached. */
  streams?: boolean;
  /**
   * Reachable by a session bound to one run: what answering that run needs. Every other route
   * is refused to such a session.
   */
  runBound?: boolean;
  /** Path parameter holding a run id, which a run-bound session must match. */
  runParam?: number;
  /** Starts a run (or a chat message): an `Idempotency-Key` makes it start at most once. */
  startsRun?: boolean;
}

/**
 * One path segment: ids are UUIDs, form tokens 22 letters and digits. Refusing dots, percent
 * escapes and anything else keeps an encoded `../` or `%2F` from ever reaching an upstream (or a
 * proxy in front of it) that might decode it.
 */
const SEGMENT = '([A-Za-z0-9_-]{1,128})';

function route(method: RelayRoute['method'], name: string, user: UserPlacement, extra: Omit<RelayRoute, 'method' | 'name' | 'pattern' | 'user'> = {}): RelayRoute {
  const pattern = new RegExp(`^${name.replace(/\{[a-z_]+\}/g, SEGMENT)}$`);
  return { method, name, pattern, user, ...extra };
}

/** The allowlist. */
export const RELAY_ROUTES: readonly RelayRoute[] = [
  // runs
  route('POST', '/workflows/run', 'json', { streams: true, startsRun: true }),
  // A published workflow version pinned by id.
  route('POST', '/workflows/{workflow_id}/run', 'json', { streams: true, startsRun: true }),
  route('POST', '/chat-messages', 'json', { streams: true, startsRun: true }),
  // Stops take a task id, which the relay cannot tie to a run: not for run-bound sessions.
  route('POST', '/workflows/tasks/{task_id}/stop', 'json'),
  route('POST', '/chat-messages/{task_id}/stop', 'json'),
  route('GET', '/workflow/{workflow_run_id}/events', 'query', { streams: true, runBound: true, runParam: 1 }),
  // human input (a form token names one form; the relay cannot tie it to a run either, but
  // answering the run's forms is what a run-bound session is for)
  route('GET', '/form/human_input/{form_token}', 'none', { runBound: true }),
  route('POST', '/form/human_input/{form_token}', 'json', { runBound: true }),
  route('POST', '/files/upload', 'multipart', { runBound: true }),
  // conversations and messages
  route('GET', '/conversations', 'query'),
  route('POST', '/conversations/{conversation_id}/name', 'json'),
  route('DELETE', '/conversations/{conversation_id}', 'json'),
  route('GET', '/conversations/{conversation_id}/variables', 'query'),
  route('PUT', '/conversations/{conversation_id}/variables/{variable_id}', 'json'),
  route('GET', '/messages', 'query'),
  route('POST', '/messages/{message_id}/feedbacks', 'json'),
  route('POST', '/text-to-audio', 'json', { streams: true }),
  // app settings
  route('GET', '/site', 'none', { runBound: true }),
  route('GET', '/info', 'none'), // the app's mode: a companion says when the mode does not serve it
  route('GET', '/parameters', 'none', { runBound: true }),
];

/** The run events route, which a repeated run start follows. */
export const RUN_EVENTS_ROUTE = RELAY_ROUTES.find((r) => r.name === '/workflow/{workflow_run_id}/events')!;

export function matchRoute(method: string, path: string): { route: RelayRoute; match: RegExpExecArray } | undefined {
  for (const candidate of RELAY_ROUTES) {
    if (candidate.method !== method) continue;
    const match = candidate.pattern.exec(path);
    if (match) return { route: candidate, match };
  }
  return undefined;
}
