/** Typed events of `<message-feedback>`; `detail` is `{rating, content}`. All bubble and cross shadow roots. */
import type { FeedbackRating } from '../../protocol/index.js';
import { CompanionEvent } from '../shared/companion-events.js';

/** What `before-feedback` and `feedback-changed` carry (`rating: null` revokes). */
export interface FeedbackDetail {
  rating: FeedbackRating | null;
  content?: string;
}

/** About to send feedback; call `preventDefault()` to stop it. */
export class BeforeFeedbackEvent extends CompanionEvent<FeedbackDetail> {
  static readonly type = 'before-feedback';
  declare readonly detail: FeedbackDetail;

  constructor(feedback: FeedbackDetail) {
    super(BeforeFeedbackEvent.type, feedback, true);
  }
}

/** The service recorded the feedback. */
export class FeedbackChangedEvent extends CompanionEvent<FeedbackDetail> {
  static readonly type = 'feedback-changed';
  declare readonly detail: FeedbackDetail;

  constructor(feedback: FeedbackDetail) {
    super(FeedbackChangedEvent.type, feedback);
  }
}
