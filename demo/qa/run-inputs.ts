/** The scenario form's run inputs, built from the app's `user_input_form` (`GET /parameters`). */
import type { UserInputControl } from './contract.js';

/** Replaces `container`'s fields with one per input of the app, filled with its defaults. */
export function renderRunInputs(container: HTMLElement, controls: UserInputControl[]): void {
  container.replaceChildren(
    ...controls.flatMap((control) => {
      const [type, spec] = Object.entries(control)[0] ?? [];
      if (!type || !spec) return [];
      const label = document.createElement('label');
      label.append(spec.label || spec.variable);
      let field: HTMLInputElement | HTMLSelectElement | HTMLTextAreaElement;
      if (type === 'select') {
        field = document.createElement('select');
        field.append(...(spec.options ?? []).map((o) => new Option(o, o)));
      } else if (type === 'paragraph') {
        field = document.createElement('textarea');
        field.rows = 2;
      } else {
        field = document.createElement('input');
        field.type = type === 'number' ? 'number' : 'text';
        if (spec.max_length) field.maxLength = spec.max_length;
      }
      field.name = spec.variable;
      field.value = spec.default ?? '';
      field.required = Boolean(spec.required);
      field.dataset.runInput = '';
      label.append(field);
      return [label];
    }),
  );
}

/** The values of the fields `renderRunInputs` made; empty optional fields are left out. */
export function runInputValues(container: HTMLElement): Record<string, string | number> {
  const fields = container.querySelectorAll<HTMLInputElement | HTMLSelectElement | HTMLTextAreaElement>('[data-run-input]');
  return Object.fromEntries(
    [...fields].filter((f) => f.value !== '').map((f) => [f.name, f instanceof HTMLInputElement && f.type === 'number' ? Number(f.value) : f.value]),
  );
}

/** Puts a run's own inputs (from its `workflow_started`) back in the fields, so they tell what is on screen. */
export function showRunInputs(container: HTMLElement, inputs: Record<string, unknown>): void {
  for (const field of container.querySelectorAll<HTMLInputElement | HTMLSelectElement | HTMLTextAreaElement>('[data-run-input]')) {
    const value = inputs[field.name];
    if (typeof value === 'string' || typeof value === 'number') field.value = String(value);
  }
}
