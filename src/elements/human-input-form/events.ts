/** Typed events of `<human-input-form>`; all bubble and cross shadow boundaries. */
import type {
  HumanInputFormDefinition,
  HumanInputFormFilledData,
  HumanInputRequest,
  RunEvent,
  WorkflowFinishedData,
} from '../../protocol/index.js';
import { ElementErrorEvent } from '../shared/errors.js';

const init = { bubbles: true, composed: true };

/** A form is on screen and can be answered; `request` is absent for a `form-token` form. */
export class FormShownEvent extends Event {
  static readonly type = 'form-shown';
  constructor(readonly token: string, readonly form: HumanInputFormDefinition, readonly request?: HumanInputRequest) {
    super(FormShownEvent.type, init);
  }
}

/** About to submit; call `preventDefault()` to stop it. */
export class BeforeSubmitEvent extends Event {
  static readonly type = 'before-submit';
  constructor(readonly action: string, readonly inputs: Record<string, unknown>) {
    super(BeforeSubmitEvent.type, { ...init, cancelable: true });
  }
}

/**
 * The service accepted the submission. The run's `human_input_form_filled` follows as a
 * `run-event`; `filled` carries it already for a `form-token` form (rendered here).
 */
export class SubmittedEvent extends Event {
  static readonly type = 'submitted';
  constructor(readonly action: string, readonly inputs: Record<string, unknown>, readonly filled?: Partial<HumanInputFormFilledData>) {
    super(SubmittedEvent.type, init);
  }
}

/**
 * The form can no longer be answered: its `expiration_time` passed (`local`), or the run
 * reported `human_input_form_timeout`. Fires once per form.
 */
export class TimedOutEvent extends Event {
  static readonly type = 'timed-out';
  constructor(readonly expirationTime: number | null, readonly local: boolean) {
    super(TimedOutEvent.type, init);
  }
}

/** The run reached `workflow_finished` (succeeded, failed, stopped…). */
export class RunFinishedEvent extends Event {
  static readonly type = 'run-finished';
  constructor(readonly result: WorkflowFinishedData) {
    super(RunFinishedEvent.type, init);
  }
}

/** Something failed; `error` (and `detail`) is `{code, message, status}`. The companions' is `CompanionErrorEvent`. */
export class FormErrorEvent extends ElementErrorEvent {
  static readonly type = 'form-error';
  /** `error`: any failure; it is read as `{code, message, status}` (see `toErrorBody`). */
  constructor(error: unknown) {
    super(FormErrorEvent.type, error);
  }
}

/** Every raw run event as it arrives (a replayed one that was seen already is not repeated). */
export class RunEventEvent extends Event {
  static readonly type = 'run-event';
  constructor(readonly event: RunEvent) {
    super(RunEventEvent.type, init);
  }
}
