/**
 * Checks shared by the app routes: which app modes a route serves, `user`, and query values,
 * failing with the real service's codes and messages (pydantic-style text for shape errors).
 */
import { canonicalUuid, CONVERSATION_MODES, LAX_UUID_PATTERN, type AppMode } from '../protocol/index.js';
import { DEFAULT_USER } from './end-users.js';
import { ApiError, badParam, NOT_FOUND_TEXT } from './errors.js';
import type { FixtureApp } from './fixture.js';
import { validationMessage } from './validation.js';

const MODE_MESSAGE = 'Please check if your app mode matches the right API route.';

/** The seed's availability table, shared with the elements. */
export const CHAT_MODES = CONVERSATION_MODES;
export { FEEDBACK_MODES, VARIABLE_MODES } from '../protocol/index.js';
export const WORKFLOW_MODES: readonly AppMode[] = ['workflow', 'advanced-chat'];

/** The codes refusing an app of another mode; the completion routes answer `app_unavailable`, with its own message. */
export type ModeCode = 'not_chat_app' | 'not_workflow_app' | 'app_unavailable';

export function requireMode(app: FixtureApp, modes: readonly AppMode[], code: ModeCode = 'not_chat_app'): void {
  if (modes.includes(app.mode)) return;
  throw code === 'app_unavailable' ? new ApiError(400, code, 'App unavailable, please check your app configurations.') : new ApiError(400, code, MODE_MESSAGE);
}

/** `user` where a route makes it optional: the shared `DEFAULT-USER` when omitted. */
export function optionalUser(value: unknown): string {
  if (value === undefined || value === null || value === '') return DEFAULT_USER;
  if (typeof value === 'number' && Number.isFinite(value)) return String(value);
  if (typeof value !== 'string') throw badParam('Arg user must be provided.');
  return value;
}

/** A pydantic `ValidationError` as the real service renders it: 400 `invalid_param`. A model-level issue (`loc` '') has no location line. */
export function validationError(model: string, issues: { loc: string; msg: string }[]): ApiError {
  return badParam(validationMessage(model, issues.map((i) => ({ path: i.loc ? [i.loc] : [], message: i.msg }))));
}

const LAX_TRUE = new Set(['1', 'on', 't', 'true', 'y', 'yes']);
const LAX_FALSE = new Set(['0', 'off', 'f', 'false', 'n', 'no']);

/** A boolean as pydantic's lax mode reads one (`true`, `1`, `"yes"`, `"off"`…); undefined when it is none. */
export function laxBoolean(value: unknown): boolean | undefined {
  if (typeof value === 'boolean') return value;
  if (value === 0 || value === 1) return value === 1;
  if (typeof value !== 'string') return undefined;
  const text = value.trim().toLowerCase();
  return LAX_TRUE.has(text) ? true : LAX_FALSE.has(text) ? false : undefined;
}

/** Path parts the real routes declare as `<uuid:…>`: anything else is an unknown URL. Each is made canonical in place. */
export function uuidParams(params: Record<string, string>, ...names: string[]): void {
  for (const name of names) {
    if (!LAX_UUID_PATTERN.test(params[name] ?? '')) throw new ApiError(404, 'not_found', NOT_FOUND_TEXT);
    params[name] = canonicalUuid(params[name]!);
  }
}

/** Query values, validated like the real service's query models. */
export class QueryReader {
  readonly #issues: { loc: string; msg: string }[] = [];

  constructor(
    readonly model: string,
    readonly params: URLSearchParams,
  ) {}

  /** An integer in `[min, max]`, `fallback` when absent (an empty value is present, and no integer). */
  int(name: string, fallback: number, min: number, max: number): number {
    const raw = this.params.get(name);
    if (raw === null) return fallback;
    if (!/^-?\d+$/.test(raw.trim())) {
      this.#issues.push({ loc: name, msg: 'Input should be a valid integer, unable to parse string as an integer' });
      return fallback;
    }
    const value = Number(raw);
    if (value < min) this.#issues.push({ loc: name, msg: `Input should be greater than or equal to ${min}` });
    else if (value > max) this.#issues.push({ loc: name, msg: `Input should be less than or equal to ${max}` });
    return value;
  }

  /** A UUID, or null when absent or empty. */
  uuid(name: string): string | null {
    const raw = this.params.get(name);
    if (!raw) return null;
    if (!LAX_UUID_PATTERN.test(raw)) {
      this.#issues.push({ loc: name, msg: 'Input should be a valid UUID' });
      return raw;
    }
    return canonicalUuid(raw);
  }

  oneOf<T extends string>(name: string, allowed: readonly T[], fallback: T): T {
    const raw = this.params.get(name);
    if (raw === null) return fallback;
    if (!allowed.includes(raw as T)) {
      this.#issues.push({ loc: name, msg: `Input should be ${allowed.slice(0, -1).map((a) => `'${a}'`).join(', ')} or '${allowed.at(-1)}'` });
      return fallback;
    }
    return raw as T;
  }

  string(name: string): string | null {
    return this.params.get(name);
  }

  issue(loc: string, msg: string): void {
    this.#issues.push({ loc, msg });
  }

  /** Throws the collected problems, if any. */
  done(): void {
    if (this.#issues.length) throw validationError(this.model, this.#issues);
  }
}
