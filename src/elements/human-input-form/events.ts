/** Typed events of `<human-input-form>`; all bubble and cross shadow boundaries. */
import type { HumanInputFormFilledData, HumanInputRequest, RunEvent, WorkflowFinishedData } from '../../protocol/index.js';

const init = { bubbles: true, composed: true };

/** A form is on screen and can be answered. */
export class FormShownEvent extends Event {
  static readonly type = 'form-shown';
  constructor(readonly form: HumanInputRequest) {
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

/** The service accepted the submission (and later confirmed it with `human_input_form_filled`). */
export class SubmittedEvent extends Event {
  static readonly type = 'submitted';
  constructor(readonly action: string, readonly inputs: Record<string, unknown>, readonly filled?: HumanInputFormFilledData) {
    super(SubmittedEvent.type, init);
  }
}

/** The run reached `workflow_finished`. */
export class RunFinishedEvent extends Event {
  static readonly type = 'run-finished';
  constructor(readonly result: WorkflowFinishedData) {
    super(RunFinishedEvent.type, init);
  }
}

/** Something failed; `error` has `{code, message, status}`. */
export class FormErrorEvent extends Event {
  static readonly type = 'form-error';
  constructor(readonly error: { code: string; message: string; status: number }) {
    super(FormErrorEvent.type, init);
  }
}

/** Every raw run event, as it arrives. */
export class RunEventEvent extends Event {
  static readonly type = 'run-event';
  constructor(readonly event: RunEvent) {
    super(RunEventEvent.type, init);
  }
}

declare global {
  interface HTMLElementEventMap {
    'form-shown': FormShownEvent;
    'before-submit': BeforeSubmitEvent;
    submitted: SubmittedEvent;
    'run-finished': RunFinishedEvent;
    'form-error': FormErrorEvent;
    'run-event': RunEventEvent;
  }
}
