/** Typed events of `<tts-player>` beyond the media ones (`play`, `pause`, `ended`, plain `Event`s). */
import { CompanionEvent } from '../shared/companion-events.js';

/** The browser refused to start without a user gesture; `detail` is its error. The player waits for a tap. */
export class AutoplayBlockedEvent extends CompanionEvent<DOMException> {
  static readonly type = 'autoplay-blocked';
  declare readonly detail: DOMException;

  constructor(error: DOMException) {
    super(AutoplayBlockedEvent.type, error);
  }
}
