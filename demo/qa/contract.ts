/** What the sample host backend answers the QA page: shared by both sides, so no Node or DOM code. */

export const API_PATH = '/api';
export const SESSION_PATH = '/api/session';
export const RELAY_PATH = '/api/relay';
export const APPS_PATH = '/api/apps';
export const QA_PATH = '/api/qa';
/** The demo's stand-in for a real login: the user's id in a cookie. */
export const USER_COOKIE = 'demo_user';
export const USER_PATTERN = /^[\w.@-]{1,64}$/;

/** An app as the QA page sees it: never its key. */
export interface DemoApp {
  /** The app's handle in `/api/session?app=` and `/api/relay/<id>/`. */
  id: string;
  name: string;
  mode: string;
  /** `GET /parameters`' `user_input_form`: the inputs a run (or a chat message) takes. */
  user_input_form: UserInputControl[];
}

/** One entry of `user_input_form`: a one-key object naming the control type. */
export type UserInputControl = Record<string, { variable: string; label: string; required?: boolean; default?: string; options?: string[]; max_length?: number }>;

/** `GET /api/apps`. */
export interface AppsAnswer {
  /** `embedded`: the embedded service (QA controls available); `upstream`: a real deployment. */
  upstream: 'embedded' | 'upstream';
  /** Whether the QA controls work; when not, `qa_unavailable` says why. */
  qa: boolean;
  qa_unavailable?: string;
  default_app: string;
  apps: DemoApp[];
}

/** `GET /api/qa`: the embedded service's fault settings. */
export interface QaSettings {
  latencyMs: number;
  cutStreamAfter: number | null;
  failRemoteFetch: boolean;
  remoteFetchTimeoutMs: number;
  pingIntervalMs: number;
  streamIdleTimeoutMs: number;
}

/** The session endpoint of an app. */
export const sessionUrl = (appId: string) => `${SESSION_PATH}?app=${encodeURIComponent(appId)}`;
