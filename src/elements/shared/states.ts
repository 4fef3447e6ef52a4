/**
 * Custom states (`:state(name)`), the elements' styling hooks for what they are doing: one
 * implementation for the form, its inputs and the companions.
 */

/** Turns a custom state on or off; browsers without custom states ignore it. */
export function toggleState(internals: ElementInternals, name: string, on: boolean): void {
  try {
    internals.states[on ? 'add' : 'delete'](name);
  } catch {
    // CustomStateSet missing, or the older dashed-names-only form: styling hooks only.
  }
}

/** Leaves state `from` (if any) for `to`: for an element that is in one such state at a time (its phase). */
export function switchState(internals: ElementInternals, from: string, to: string): void {
  if (from) toggleState(internals, from, false);
  toggleState(internals, to, true);
}
