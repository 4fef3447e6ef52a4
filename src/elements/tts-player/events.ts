/** Typed events of `<tts-player>` beyond the media ones (`play`, `pause`, `ended`, plain `Event`s). */
import { CompanionEvent } from '../shared/companion-events.js';

/**
 * What `autoplay-blocked` carries: the browser's refusal (`NotAllowedError`). Named, like the other
 * events' details, so the generated typings import it from the package rather than a DOM global
 * they cannot import.
 */
export type AutoplayBlockedDetail = DOMException;

/** The browser refused to start without a user gesture; `detail` is its error. The player waits for a tap. */
export class AutoplayBlockedEvent extends CompanionEvent<AutoplayBlockedDetail> {
  static readonly type = 'autoplay-blocked';
  declare readonly detail: AutoplayBlockedDetail;

  constructor(error: AutoplayBlockedDetail) {
    super(AutoplayBlockedEvent.type, error);
  }
}
