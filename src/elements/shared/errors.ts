/**
 * What an element reports when something fails, the same way in the form and the companions:
 * every failure becomes the documented `{code, message, status}`, dispatched as the element's
 * error event (`form-error`, `companion-error`).
 */
import { isErrorBody, type ErrorBody } from '../../protocol/index.js';

/**
 * `{code, message, status}` (and `params`, where the service named a field) of any failure: a
 * service's or relay's error as it said it, as a plain object; anything else as `unknown`.
 */
export function toErrorBody(error: unknown): ErrorBody {
  if (!isErrorBody(error)) return { code: 'unknown', message: String((error as Error | undefined)?.message ?? error), status: 0 };
  const { code, message, status, params } = error;
  return params === undefined ? { code, message, status } : { code, message, status, params };
}

/**
 * What a failure says on screen: the service's own words, else `generic` (the localized "Something
 * went wrong."). A failure that is not the service's answer (no connection, a server error, an
 * answer that was not an error body, such as a proxy's HTML page) has no words for the user, and
 * what the browser or the client made up is English: the event keeps it for the developer.
 */
export const said = ({ code, message, status }: ErrorBody, generic: string): string =>
  (status < 500 && code !== 'unknown' && code !== 'upstream_unavailable' && message) || generic;

/**
 * The base of the elements' error events: `error` is the failure as `{code, message, status}`,
 * also readable as `detail`, where the companions' events carry what happened.
 */
export abstract class ElementErrorEvent extends Event {
  readonly error: ErrorBody;

  constructor(type: string, error: unknown) {
    super(type, { bubbles: true, composed: true });
    this.error = toErrorBody(error);
  }

  get detail(): ErrorBody {
    return this.error;
  }
}
