import { expect, fixture, html, oneEvent } from '@open-wc/testing';
import '../../../src/elements/human-input-form/define.js';
import type { HumanInputForm } from '../../../src/elements/human-input-form/human-input-form.js';
import { RunFinishedEvent, type RunEventEvent } from '../../../src/elements/human-input-form/events.js';
import { markdownToSafeHtml } from '../../../src/elements/shared/markdown.js';
import { expectNoAxeViolations } from '../helpers/axe.js';
import { until } from '../helpers/wait.js';

const shadow = (el: HumanInputForm) => el.shadowRoot!;
const status = (el: HumanInputForm) => shadow(el).querySelector('[part="status"]')!.textContent!.trim();

describe('<human-input-form>', () => {
  it('starts a run through the relay, renders the paused form and finishes it', async () => {
    const events: string[] = [];
    const el = await fixture<HumanInputForm>(
      html`<human-input-form session-url="/api/session" @run-event=${(e: RunEventEvent) => events.push(e.event.event)}></human-input-form>`,
    );
    const textarea = await until(() => shadow(el).querySelector('textarea'), 'the paragraph input');

    expect(shadow(el).querySelector('[part="title"]')!.textContent).to.equal('Editor review');
    const label = shadow(el).querySelector(`label[for="${textarea.id}"]`)!;
    expect(label.textContent).to.equal('Comments');
    // The slot sits between the Markdown before and after it.
    const parts = [...shadow(el).querySelectorAll('[part="content"], [part="field"]')].map((p) => p.getAttribute('part'));
    expect(parts).to.deep.equal(['content', 'field', 'content']);
    expect(shadow(el).querySelector('blockquote')!.textContent).to.match(/Version 2\.4\.0 brings faster uploads/);
    const buttons = [...shadow(el).querySelectorAll('button[part="action"]')] as HTMLButtonElement[];
    expect(buttons.map((b) => [b.textContent!.trim(), b.dataset.style])).to.deep.equal([
      ['Approve and publish', 'primary'],
      ['Send back', 'default'],
    ]);
    expect(status(el)).to.equal('Ready for your input.');
    await expectNoAxeViolations(el);

    textarea.value = 'Needs a changelog link.';
    textarea.dispatchEvent(new Event('input'));
    const finished = oneEvent(el, RunFinishedEvent.type) as Promise<RunFinishedEvent>;
    buttons[1]!.click();
    await until(() => buttons[1]!.disabled || status(el) !== 'Ready for your input.', 'the submit to start');
    const result = await finished;

    expect(result.result.status).to.equal('succeeded');
    expect(result.result.outputs).to.deep.include({ result: 'sent_back', comments: 'Needs a changelog link.' });
    await until(() => status(el) === 'The workflow has finished.', 'the finished status');
    expect(shadow(el).textContent).to.contain('You chose “Send back”.');
    expect(events).to.include.members(['workflow_started', 'human_input_required', 'workflow_paused', 'human_input_form_filled', 'workflow_finished']);
    expect(events.indexOf('human_input_form_filled')).to.be.lessThan(events.indexOf('workflow_finished'));
    await expectNoAxeViolations(el);
  });

  it('follows an existing run given by run-id', async () => {
    const first = await fixture<HumanInputForm>(html`<human-input-form session-url="/api/session"></human-input-form>`);
    const started = (await oneEvent(first, 'run-event')) as RunEventEvent;
    const runId = (started.event as { workflow_run_id: string }).workflow_run_id;
    await until(() => shadow(first).querySelector('textarea'), 'the first element to pause');
    first.remove();

    const el = await fixture<HumanInputForm>(html`<human-input-form session-url="/api/session" run-id=${runId}></human-input-form>`);
    await until(() => shadow(el).querySelector('textarea'), 'the form of the followed run');
    expect(shadow(el).querySelector('[part="title"]')!.textContent).to.equal('Editor review');
  });

  it('shows a visible, announced error with a retry when the session endpoint fails', async () => {
    const el = await fixture<HumanInputForm>(html`<human-input-form session-url="/api/no-such-session"></human-input-form>`);
    const alert = await until(() => shadow(el).querySelector('[role="alert"]'), 'the error');
    expect(alert.textContent).to.not.equal('');
    expect(shadow(el).querySelector('button[part="retry"]')).to.exist;
    await expectNoAxeViolations(el);
  });

  it('sanitizes Markdown from the service', () => {
    const out = markdownToSafeHtml('**bold** <img src=x onerror="window.pwned=1"> <script>window.pwned=2</script> [x](javascript:alert(1))');
    expect(out).to.contain('<strong>bold</strong>');
    expect(out).to.not.match(/onerror|<script|javascript:/);
  });
});
