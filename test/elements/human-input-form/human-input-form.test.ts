/** Rendering, modes and the run's flow, against the relay and the embedded service. */
import { expect, fixture, html, oneEvent } from '@open-wc/testing';
import { FormShownEvent, RunFinishedEvent, SubmittedEvent, type BeforeSubmitEvent } from '../../../src/elements/human-input-form/events.js';
import type { HumanInputForm } from '../../../src/elements/human-input-form/human-input-form.js';
import type { HitlParagraph } from '../../../src/elements/hitl-paragraph/hitl-paragraph.js';
import { expectNoAxeViolations } from '../helpers/axe.js';
import { $, $$, action, actions, choose, control, hasState, inner, mount, recordEvents, sessionUrl, startRun, statusText, type } from '../helpers/form.js';
import { until } from '../helpers/wait.js';

const label = (el: HumanInputForm, name: string) => inner(control(el, name)!, '[part~=label]')!.textContent!.replace('*', '').trim();

describe('<human-input-form>', () => {
  it('starts a run, renders the Markdown with its inputs, and finishes the run', async () => {
    const el = await mount({ app: 'hitl-simple' });
    const seen = recordEvents(el);
    expect($(el, '[part~=title]')!.textContent).to.equal('Quick question');
    expect(statusText(el)).to.equal('Ready for your input.');
    expect(hasState(el, 'ready')).to.be.true;
    const choice = control(el, 'choice')!;
    expect(choice.localName).to.equal('hitl-select');
    // The bold line before the slot became the visible label and left the content.
    expect(label(el, 'comment')).to.equal('Comments');
    expect($(el, '[part~=content]')!.textContent).to.contain('Which option do you prefer?').and.not.contain('Comments');
    await expectNoAxeViolations(el);

    choose(choice, 'beta');
    type(control(el, 'comment')!, 'Looks fine.');
    const finished = oneEvent(el, RunFinishedEvent.type) as Promise<RunFinishedEvent>;
    action(el, 'Send').click();
    const { result } = await finished;
    expect(result.outputs).to.deep.include({ choice: 'beta', comment: 'Looks fine.', action: 'send' });
    await until(() => statusText(el) === 'The workflow has finished.', 'the finished status');
    expect(hasState(el, 'finished')).to.be.true;
    expect($(el, '[part~=chosen]')!.textContent).to.equal('You chose “Send”.');
    expect($(el, '[part~=filled] [part~=content]')!.textContent).to.contain('beta');
    expect($(el, 'form')).to.be.null;
    expect(seen.indexOf('human_input_form_filled')).to.be.within(0, seen.indexOf('workflow_finished'));
    await expectNoAxeViolations(el);
  });

  it('puts every input where its slot is, with defaults, labels from the content, and nothing for an unknown slot', async () => {
    const el = await mount({ inputs: { note: 'From the run' } });
    const content = $(el, '[part~=content]')!;
    const names = [...content.querySelectorAll('[name]')].map((c) => [c.localName, c.getAttribute('name')]);
    // Slots in content order, then the inputs the content never mentions.
    expect(names).to.deep.equal([
      ['hitl-paragraph', 'summary'],
      ['hitl-select', 'priority'],
      ['hitl-file', 'screenshot'],
      ['hitl-file-list', 'reports'],
      ['hitl-paragraph', 'reviewer_note'],
    ]);
    // The inline slot stays inside its sentence's paragraph; the text after the last slot stays after it.
    expect(control(el, 'priority')!.parentElement!.localName).to.equal('p');
    expect(content.textContent).to.match(/Version 2\.4\.0 brings faster uploads[\s\S]*Attach the test reports below/);
    expect(content.textContent).not.to.contain('not_an_input').and.not.contain('{{');
    expect(content.lastElementChild!.getAttribute('name')).to.equal('reviewer_note');

    expect(label(el, 'summary')).to.equal('Your summary for the changelog');
    expect(label(el, 'priority')).to.equal('Priority');
    expect(label(el, 'screenshot')).to.equal('Screenshot');
    expect(label(el, 'reports')).to.equal('Reports');
    expect(label(el, 'reviewer_note')).to.equal('Reviewer note');
    // A constant default (only in the input, as real Dify sends it) and a variable one (only in resolved_default_values).
    expect((control(el, 'summary') as HitlParagraph).value).to.equal('Faster uploads');
    expect(inner<HTMLTextAreaElement>(control(el, 'reviewer_note')!, 'textarea')!.value).to.equal('From the run');
    expect(control(el, 'priority')!.value).to.equal('');
    // Every input has an accessible name equal to its visible label.
    expect(inner(control(el, 'summary')!, 'textarea')!.getAttribute('id')).to.equal('control');
    await expectNoAxeViolations(el);
  });

  it('takes labels from the labels property over the content', async () => {
    const el = await fixture<HumanInputForm>(html`<human-input-form session-url=${sessionUrl('hitl-simple')} .labels=${{ comment: 'Anything else?' }}></human-input-form>`);
    await until(() => hasState(el, 'ready'), 'the form');
    expect(label(el, 'comment')).to.equal('Anything else?');
    expect(label(el, 'choice')).to.equal('Choice');
  });

  it('writes black or white on the app colour, whichever reads better (as the companions do)', async () => {
    // A light chat_color_theme (#FACA15): white on it was unreadable.
    const light = await mount({ app: 'hitl-light' });
    await until(() => getComputedStyle(action(light, 'Primary')).backgroundColor === 'rgb(250, 202, 21)', 'the app colour');
    expect(getComputedStyle(action(light, 'Primary')).color).to.equal('rgb(0, 0, 0)');
    expect($(light, '[part~=container]')!.getAttribute('style')).to.contain('--hitl-site-contrast:#000');
    // The page's own text colour on the accent wins.
    light.style.setProperty('--hitl-accent-contrast', 'rgb(1, 2, 3)');
    expect(getComputedStyle(action(light, 'Primary')).color).to.equal('rgb(1, 2, 3)');
    // A dark one (#1C64F2) keeps white.
    const dark = await mount({ app: 'hitl-styles' });
    await until(() => getComputedStyle(action(dark, 'Primary')).backgroundColor === 'rgb(28, 100, 242)', 'the app colour');
    expect(getComputedStyle(action(dark, 'Primary')).color).to.equal('rgb(255, 255, 255)');
  });

  it('styles one button per action by button_style, in the app colour unless the page sets its own', async () => {
    const el = await mount({ app: 'hitl-styles' });
    expect(actions(el).map((b) => [b.textContent, b.getAttribute('part')])).to.deep.equal([
      ['Primary', 'action action-primary'],
      ['Default', 'action action-default'],
      ['Accent', 'action action-accent'],
      ['Ghost', 'action action-ghost'],
    ]);
    const [primary, fallback, accent, ghost] = actions(el).map((b) => getComputedStyle(b));
    // The site's chat_color_theme (#1C64F2) colours the primary and accent buttons.
    expect(primary!.backgroundColor).to.equal('rgb(28, 100, 242)');
    expect(accent!.color).to.equal('rgb(28, 100, 242)');
    expect(ghost!.borderTopColor).to.equal('rgba(0, 0, 0, 0)');
    expect(fallback!.backgroundColor).to.equal('rgb(255, 255, 255)');
    el.style.setProperty('--hitl-accent', 'rgb(1, 2, 3)');
    expect(getComputedStyle(actions(el)[0]!).backgroundColor).to.equal('rgb(1, 2, 3)');

    const main = await mount();
    expect(getComputedStyle(action(main, 'Approve')).backgroundColor).to.equal('rgb(120, 57, 238)');
  });

  it('disables the form while a submission is in flight, then shows the submission and the chosen action', async () => {
    const el = await mount({ app: 'hitl-styles' });
    // The status line keeps "Ready for your input." up for a second, so a screen reader reads it.
    await new Promise((r) => setTimeout(r, 1100));
    const submitted = oneEvent(el, SubmittedEvent.type) as Promise<SubmittedEvent>;
    action(el, 'Accent').click();
    expect(hasState(el, 'submitting')).to.be.true;
    await el.updateComplete;
    expect(statusText(el)).to.equal('Submitting…');
    expect(actions(el).every((b) => b.matches(':disabled'))).to.be.true;
    expect((await submitted).action).to.equal('a');
    await until(() => hasState(el, 'finished'), 'the end of the run');
    expect($(el, '[part~=chosen]')!.textContent).to.equal('You chose “Accent”.');
  });

  it('lets before-submit cancel a submission', async () => {
    const el = await mount({ app: 'hitl-styles' });
    let inputs: unknown;
    el.addEventListener('before-submit', (e: BeforeSubmitEvent) => {
      inputs = e.inputs;
      e.preventDefault();
    });
    action(el, 'Primary').click();
    await el.updateComplete;
    expect(inputs).to.deep.equal({});
    expect(hasState(el, 'ready')).to.be.true;
  });

  it('follows consecutive forms of one run on one stream', async () => {
    const el = await mount({ app: 'hitl-chain' });
    const events = recordEvents(el);
    const shown: string[] = [];
    el.addEventListener('form-shown', (e: FormShownEvent) => shown.push(e.request!.node_title));
    type(control(el, 'idea')!, 'A bicycle');
    action(el, 'Next').click();
    await until(() => hasState(el, 'ready') && $(el, '[part~=title]#title')?.textContent === 'Second step', 'the second form');
    expect($(el, '[part~=filled] [part~=title]')!.textContent).to.equal('First step');
    expect($(el, 'form [part~=content]')!.textContent).to.contain('You proposed: A bicycle');
    choose(control(el, 'size')!, 'large');
    const finished = oneEvent(el, RunFinishedEvent.type) as Promise<RunFinishedEvent>;
    action(el, 'Finish').click();
    expect((await finished).result.outputs).to.deep.equal({ idea: 'A bicycle', size: 'large' });
    expect(shown).to.deep.equal(['Second step']);
    expect($$(el, '[part~=filled]').map((s) => s.querySelector('[part~=chosen]')!.textContent)).to.deep.equal(['You chose “Next”.', 'You chose “Finish”.']);
    expect(events.filter((e) => e === 'human_input_required')).to.have.length(1);
    expect(events.filter((e) => e === 'workflow_started')).to.have.length(2);
  });

  it('says in the console when its inputs attribute is not JSON', async () => {
    const warnings: unknown[][] = [];
    const warn = console.warn;
    console.warn = (...args: unknown[]) => warnings.push(args);
    try {
      const el = await fixture<HumanInputForm>(html`<human-input-form inputs="{version: '3.1.0'}"></human-input-form>`);
      expect(el.inputs).to.equal(null);
      expect(warnings.some((w) => w.join(' ').includes("{version: '3.1.0'}"))).to.equal(true);
    } finally {
      console.warn = warn;
    }
  });

  it('follows a run given by run-id, and shows a form given by form-token on its own', async () => {
    const { runId, form } = await startRun('hitl-simple');
    const followed = await mount({ app: 'hitl-simple', runId });
    expect($(followed, '#title')!.textContent).to.equal('Quick question');

    const standalone = await mount({ app: 'hitl-simple', formToken: form.form_token! });
    // No node title on this page: the app's title stands in.
    await until(() => $(standalone, '#title')!.textContent === 'Simple answer', 'the site title');
    choose(control(standalone, 'choice')!, 'alpha');
    type(control(standalone, 'comment')!, 'From the form page');
    const submitted = oneEvent(standalone, SubmittedEvent.type) as Promise<SubmittedEvent>;
    action(standalone, 'Skip').click();
    const { filled } = await submitted;
    expect(filled!.rendered_content).to.contain('alpha').and.contain('From the form page');
    await until(() => hasState(standalone, 'submitted'), 'the submitted state');
    await until(() => statusText(standalone) === 'Submitted.', 'the submitted status');
    expect($(standalone, '[part~=chosen]')!.textContent).to.equal('You chose “Skip”.');
    // The answered form keeps the title it had.
    expect($(standalone, '[part~=filled] [part~=title]')!.textContent).to.equal('Simple answer');
    expect($(standalone, '[part~=filled] [part~=content]')!.textContent).to.contain('From the form page');
    // The followed run moves on too.
    await until(() => hasState(followed, 'finished'), 'the followed run to finish');
    expect($(followed, '[part~=chosen]')!.textContent).to.equal('You chose “Skip”.');
  });

  it('fires submitted before run-finished, even when the submission is answered after the resumed run has ended', async () => {
    const { client, runId } = await startRun('hitl-simple');
    const el = await mount({ app: 'hitl-simple', runId });
    const order: string[] = [];
    for (const name of ['submitted', 'run-finished']) el.addEventListener(name, () => order.push(name));
    el.addEventListener('run-event', (e) => order.push(e.event.event));
    // A second follower of the run, to know when it has ended.
    const ended = (async () => {
      for await (const event of client.workflowEvents(runId, { user: 'ignored-by-the-relay', continue_on_pause: true })) if (event.event === 'workflow_finished') return;
    })();
    // The submission's answer comes late, as on a slow network: by then the service has resumed
    // and finished the run, whose events have come over the element's stream meanwhile.
    const { fetch } = window;
    window.fetch = async (input, init) => {
      const response = await fetch(input, init);
      if (init?.method === 'POST' && String(input).includes('/form/human_input/')) {
        await ended;
        await new Promise((r) => setTimeout(r, 200));
      }
      return response;
    };
    try {
      choose(control(el, 'choice')!, 'alpha');
      action(el, 'Send').click();
      await until(() => order.includes('run-finished'), 'the end of the run');
    } finally {
      window.fetch = fetch;
    }
    expect(order.indexOf('submitted'), order.join()).to.be.within(0, order.indexOf('human_input_form_filled'));
    expect(order.slice(-2)).to.deep.equal(['workflow_finished', 'run-finished']);
    expect(hasState(el, 'finished')).to.be.true;
    expect($(el, '[part~=chosen]')!.textContent).to.equal('You chose “Send”.');
  });

  it('says so, visibly and in the console, when it has no session-url', async () => {
    const warnings: unknown[][] = [];
    const { warn } = console;
    console.warn = (...args: unknown[]) => warnings.push(args);
    try {
      const el = await fixture<HumanInputForm>(html`<human-input-form lang="en"></human-input-form>`);
      await until(() => hasState(el, 'error'), 'the error state');
      expect($(el, '[role=alert]')!.textContent).to.equal('This form cannot load: its session-url attribute is missing.');
      expect(statusText(el)).to.equal('Something went wrong.');
      // Trying again cannot help until the attribute is set.
      expect($(el, '[part~=retry]')).to.be.null;
      await expectNoAxeViolations(el);
      el.setAttribute('session-url', '');
      await el.updateComplete;
      expect(warnings).to.have.length(1);
      expect(warnings[0]!.join(' ')).to.contain('human-input-form').and.contain('session-url');
      el.setAttribute('session-url', sessionUrl('hitl-simple'));
      await until(() => hasState(el, 'ready'), 'the form once the attribute is set');
      expect($(el, '[role=alert]')).to.be.null;

      const ja = await fixture<HumanInputForm>(html`<human-input-form lang="ja"></human-input-form>`);
      await until(() => $(ja, '[role=alert]')?.textContent === 'フォームを読み込めません：session-url 属性が指定されていません。', 'the Japanese message');
    } finally {
      console.warn = warn;
    }
  });

  it('shows an error that goes once the cause is gone, and no retry where asking again cannot help', async () => {
    const el = await fixture<HumanInputForm>(html`<human-input-form session-url="/api/session?app=no-such-app"></human-input-form>`);
    await until(() => hasState(el, 'error'), 'the error state');
    expect($(el, '[role=alert]')!.textContent).to.contain('no-such-app');
    expect(statusText(el)).to.equal('Something went wrong.');
    await expectNoAxeViolations(el);
    el.sessionUrl = sessionUrl('hitl-simple');
    await until(() => hasState(el, 'ready'), 'the form after the fix');
    expect($(el, '[part~=retry]')).to.be.null;

    const lost = await fixture<HumanInputForm>(html`<human-input-form session-url=${sessionUrl('hitl-simple')} run-id="00000000-0000-4000-8000-000000000000"></human-input-form>`);
    await until(() => hasState(lost, 'error'), 'the error for an unknown run');
    expect($(lost, '[role=alert]')!.textContent).to.equal('Workflow run not found');
    // Asking again cannot find it: no retry is offered for such a refusal.
    expect($(lost, '[part~=retry]')).to.be.null;
  });
});
