/**
 * The form's templates for its forms, pure functions of what the element knows: a form closed
 * (answered here or elsewhere, or left unanswered) and the form open.
 */
import { html, nothing, type TemplateResult } from 'lit';
import { format, type Terms } from '../shared/terms.js';
import { duration } from './countdown.js';
import type { ClosedForm, OpenForm } from './forms.js';

/** What the element is doing: each is a custom state (`:state(ready)`) and a status line. */
export type Phase = 'loading' | 'waiting' | 'ready' | 'submitting' | 'submitted' | 'expired' | 'timeout' | 'taken' | 'undrivable' | 'finished' | 'failed' | 'error';

/** A form no longer open, under `title`: its content, and the action chosen or the note why it closed unanswered. */
export function renderClosed(closed: ClosedForm, title: string, t: Terms): TemplateResult {
  return html`<section part="filled">
    <h2 part="title">${title}</h2>
    ${closed.action ? closed.body : html`<fieldset disabled>${closed.body}</fieldset>`}
    ${closed.action ? html`<p part="chosen">${format(t.chose, closed.action)}</p>` : closed.timedOut ? html`<p part="note">${t.timeout}</p>` : ''}
  </section>`;
}

/**
 * The form open in `phase`: its landmark (named `name`, numbered when it is the `nth` of that name
 * on the page), the time `left` to answer (seconds) said in `locale`, its content and its actions
 * (answerable when `ready`), sent through `onSubmit`.
 */
export function renderOpen(form: OpenForm, t: Terms, phase: Phase, { name, nth }: { name: string; nth: number }, left: number, locale: string, onSubmit: (e: SubmitEvent) => void): TemplateResult {
  const ready = phase === 'ready';
  return html`<form part="form" aria-labelledby=${nth > 1 ? nothing : 'title'} aria-label=${nth > 1 ? format(t.nth, name, nth) : nothing} novalidate @submit=${onSubmit}>
    <h2 part="title" id="title" tabindex="-1" ?focus=${ready}>${name}</h2>
    ${left > 0 && (ready || phase === 'submitting') ? html`<p part="countdown" role="timer">${format(t.timeLeft, duration(left, locale))}</p>` : ''}
    <fieldset part="fields" ?disabled=${!ready}>
      ${form.body}
      <div part="actions">${form.def.user_actions.map((a) => html`<button part="action action-${a.button_style}" value=${a.id}>${a.title}</button>`)}</div>
    </fieldset>
  </form>`;
}
