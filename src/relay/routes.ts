/**
 * The browser-safe operations the relay lets through, under the upstream's own paths, and where
 * each carries `user` (which the relay overwrites with the session's): taken from the table of
 * operations (`src/protocol/operations.ts`). Everything else is 404; knowledge operations are
 * never listed.
 */
import { APP_OPERATIONS, pathParams, pathPattern, type HttpMethod, type Operation, type UserPlacement } from '../protocol/operations.js';

export type { UserPlacement } from '../protocol/operations.js';

export interface RelayRoute {
  method: HttpMethod;
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
const SEGMENT = '[A-Za-z0-9_-]{1,128}';

/** The allowlist: the table's browser-safe operations, all of the app side (no knowledge one is). */
export const RELAY_ROUTES: readonly RelayRoute[] = (Object.values(APP_OPERATIONS) as Operation[])
  .filter((operation) => operation.browserSafe)
  .map(({ method, path, user = 'none', streams, runBound, startsRun }) => {
    const runParam = pathParams(path).indexOf('workflow_run_id') + 1;
    return { method, name: path, pattern: pathPattern(path, SEGMENT), user, streams, runBound, startsRun, runParam: runParam || undefined };
  });

/** The run events route, which a repeated run start follows. */
export const RUN_EVENTS_ROUTE = RELAY_ROUTES.find((r) => r.name === APP_OPERATIONS.workflowEvents.path)!;

export function matchRoute(method: string, path: string): { route: RelayRoute; match: RegExpExecArray } | undefined {
  for (const candidate of RELAY_ROUTES) {
    if (candidate.method !== method) continue;
    const match = candidate.pattern.exec(path);
    if (match) return { route: candidate, match };
  }
  return undefined;
}
