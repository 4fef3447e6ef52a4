import { expect, oneEvent } from '@open-wc/testing';
import type { HitlFile } from '../../../src/elements/hitl-file/hitl-file.js';
import { RunFinishedEvent, type RunEventEvent } from '../../../src/elements/human-input-form/events.js';
import { expectNoAxeViolations } from '../helpers/axe.js';
import { $, $$, action, actions, choose, control, hasState, inner, mount, statusText, type } from '../helpers/form.js';
import { until } from '../helpers/wait.js';

describe('<human-input-form>', () => {
  it('starts a run, renders the Markdown with every input in place, and finishes the run', async () => {
    const el = await mount({ app: 'hitl-simple' });
    expect($(el, '[part~=title]')!.textContent).to.equal('Quick question');
    expect(statusText(el)).to.equal('Ready for your input.');
    const choice = control(el, 'choice')!;
    const comment = control(el, 'comment')!;
    expect(choice.localName).to.equal('hitl-select');
    // The bold line before the slot became the visible label; the plain sentence stayed content.
    expect(inner(comment, 'label')!.textContent!.trim()).to.equal('Comments');
    expect($(el, '[part~=content]')!.textContent).to.contain('Which option do you prefer?');
    expect($(el, '[part~=content]')!.textContent).not.to.contain('**');
    await expectNoAxeViolations(el);

    choose(choice, 'beta');
    type(comment, 'Looks fine.');
    const finished = oneEvent(el, RunFinishedEvent.type) as Promise<RunFinishedEvent>;
    action(el, 'Send').click();
    const { result } = await finished;
    expect(result.outputs).to.deep.include({ choice: 'beta', comment: 'Looks fine.', action: 'send' });
    await until(() => statusText(el) === 'The workflow has finished.', 'the finished status');
    expect($(el, '[part~=filled]')!.textContent).to.contain('You chose “Send”.');
    expect($(el, '[part~=filled] [part~=content]')!.textContent).to.contain('beta');
    await expectNoAxeViolations(el);
  });
});
