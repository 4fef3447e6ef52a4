/** Typed events of `<conversation-variables>`. All bubble and cross shadow roots. */
import type { ConversationVariable } from '../../protocol/index.js';
import { CompanionEvent } from '../shared/companion-events.js';

/** What `before-variable-change` carries: the variable, and the value about to be saved. */
export interface VariableChange {
  variable: ConversationVariable;
  value: unknown;
}

/** About to save; call `preventDefault()` to keep the variable as it is. */
export class BeforeVariableChangeEvent extends CompanionEvent<VariableChange> {
  static readonly type = 'before-variable-change';
  declare readonly detail: VariableChange;

  constructor(change: VariableChange) {
    super(BeforeVariableChangeEvent.type, change, true);
  }
}

/** A save succeeded; `detail` is the updated variable. */
export class VariableChangedEvent extends CompanionEvent<ConversationVariable> {
  static readonly type = 'variable-changed';
  declare readonly detail: ConversationVariable;

  constructor(variable: ConversationVariable) {
    super(VariableChangedEvent.type, variable);
  }
}
