/** The base of the companions' typed events, and their error event. */
import { ElementErrorEvent } from './errors.js';

/**
 * A companion's event: `detail` is what happened (a conversation, a variable, a rating…). Each
 * event has its own subclass (`ConversationSelectedEvent`…) with its name as `type`; all bubble
 * and cross shadow roots.
 */
export class CompanionEvent<T = unknown> extends Event {
  constructor(type: string, readonly detail: T, cancelable = false) {
    super(type, { bubbles: true, composed: true, cancelable });
  }
}

/** A companion failed; `error` (and `detail`) is `{code, message, status}`. The form's is `FormErrorEvent`. */
export class CompanionErrorEvent extends ElementErrorEvent {
  static readonly type = 'companion-error';

  constructor(error: unknown) {
    super(CompanionErrorEvent.type, error);
  }
}
