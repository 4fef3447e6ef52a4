/** The form's templates (view.ts), rendered on their own: pure functions of what they are given. */
import { expect } from '@open-wc/testing';
import { render } from 'lit';
import type { ClosedForm, OpenForm } from '../../../src/elements/human-input-form/forms.js';
import { renderClosed, renderOpen, type Phase } from '../../../src/elements/human-input-form/view.js';
import type { HitlControl } from '../../../src/elements/shared/control.js';
import { termsFor } from '../../../src/elements/shared/terms.js';
import type { HumanInputFormDefinition } from '../../../src/protocol/index.js';

const t = termsFor('en');

function content(text: string): HTMLElement {
  const body = document.createElement('div');
  body.setAttribute('part', 'content');
  body.textContent = text;
  return body;
}

function show(template: unknown): HTMLElement {
  const box = document.createElement('div');
  render(template, box);
  return box;
}

const def = {
  form_content: 'Approve?',
  inputs: [],
  user_actions: [
    { id: 'approve', title: 'Approve', button_style: 'primary' },
    { id: 'reject', title: 'Reject', button_style: 'default' },
  ],
  expiration_time: 0,
} as unknown as HumanInputFormDefinition;
const open = (): OpenForm => ({ token: 't', title: 'Approval', def, body: content('Approve?'), controls: [] as HitlControl[] });

describe('renderClosed', () => {
  it('shows an answered form with the action chosen, its content as it is', () => {
    const closed: ClosedForm = { title: 'Approval', body: content('Approved.'), action: 'Approve' };
    const box = show(renderClosed(closed, 'Approval', t));
    expect(box.querySelector('[part=title]')!.textContent).to.equal('Approval');
    expect(box.querySelector('fieldset')).to.equal(null);
    expect(box.querySelector('[part=chosen]')!.textContent).to.equal('You chose “Approve”.');
  });

  it('shows a form closed unanswered disabled, with the note when its time ran out', () => {
    const closed: ClosedForm = { title: 'Approval', body: content('Approve?'), action: '', timedOut: true };
    const box = show(renderClosed(closed, 'Approval', t));
    expect(box.querySelector('fieldset')!.disabled).to.equal(true);
    expect(box.querySelector('[part=note]')!.textContent).to.equal(t.timeout);
    const plain = show(renderClosed({ ...closed, timedOut: false }, 'Approval', t));
    expect(plain.querySelector('[part=note]')).to.equal(null);
  });
});

describe('renderOpen', () => {
  const noop = () => undefined;

  it('names the form by its title, shows the time left while it can be answered, and one button per action', () => {
    const box = show(renderOpen(open(), t, 'ready', { name: 'Approval', nth: 1 }, 299.2, 'en', noop));
    const form = box.querySelector('form')!;
    expect(form.getAttribute('aria-labelledby')).to.equal('title');
    expect(form.hasAttribute('aria-label')).to.equal(false);
    expect(box.querySelector('[part=countdown]')!.textContent).to.equal('Time left: 5:00');
    expect(box.querySelector('fieldset')!.disabled).to.equal(false);
    const buttons = [...box.querySelectorAll('button')];
    expect(buttons.map((b) => [b.value, b.getAttribute('part'), b.textContent])).to.deep.equal([
      ['approve', 'action action-primary', 'Approve'],
      ['reject', 'action action-default', 'Reject'],
    ]);
  });

  it('numbers a second form of the same name, and disables it (no countdown) unless ready or submitting', () => {
    const phases: [Phase, boolean, boolean][] = [
      ['submitting', true, true],
      ['expired', true, false],
      ['waiting', true, false],
    ];
    for (const [phase, disabled, countdown] of phases) {
      const box = show(renderOpen(open(), t, phase, { name: 'Approval', nth: 2 }, 60, 'en', noop));
      expect(box.querySelector('form')!.getAttribute('aria-label'), phase).to.equal('Approval (2)');
      expect(box.querySelector('fieldset')!.disabled, phase).to.equal(disabled);
      expect(!!box.querySelector('[part=countdown]'), phase).to.equal(countdown);
    }
    // No time left, no countdown.
    expect(show(renderOpen(open(), t, 'ready', { name: 'Approval', nth: 1 }, 0, 'en', noop)).querySelector('[part=countdown]')).to.equal(null);
  });

  it('hands a submission to onSubmit', () => {
    const submitted: string[] = [];
    const box = show(
      renderOpen(open(), t, 'ready', { name: 'Approval', nth: 1 }, 0, 'en', (e: SubmitEvent) => {
        e.preventDefault();
        submitted.push((e.submitter as HTMLButtonElement).value);
      }),
    );
    document.body.append(box);
    box.querySelector<HTMLButtonElement>('button[value=reject]')!.click();
    box.remove();
    expect(submitted).to.deep.equal(['reject']);
  });
});
