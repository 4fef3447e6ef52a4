/**
 * What a screen reader hears (issue 12.7): every state change a sighted user sees reaches the
 * status line (a polite live region) once, in order, and stays long enough to be read before the
 * next replaces it. The test reads the live region's sequence of texts as the browser renders them.
 */
import { expect } from '@open-wc/testing';
import type { HumanInputForm } from '../../../src/elements/human-input-form/human-input-form.js';
import { $, action, choose, hasState, control, mount, statusText } from '../helpers/form.js';
import { until } from '../helpers/wait.js';

interface Said {
  text: string;
  at: number;
}

/** Every text the status line shows from now on, with when it appeared. */
function listen(el: HumanInputForm): Said[] {
  const status = $(el, '[part~=status]')!;
  expect(status.getAttribute('role')).to.equal('status');
  const said: Said[] = [{ text: statusText(el), at: performance.now() }];
  new MutationObserver(() => {
    const text = statusText(el);
    if (text !== said.at(-1)!.text) said.push({ text, at: performance.now() });
  }).observe(status, { childList: true, characterData: true, subtree: true });
  return said;
}

/** The texts, without the passing "waiting" line (shown or not depending on the run's pace). */
const texts = (said: Said[]) => said.map((s) => s.text).filter((t) => t !== 'Waiting for the next step…');

/** How long each text but the last stayed up, in ms. */
const dwell = (said: Said[]) => said.slice(0, -1).map((s, i) => said[i + 1]!.at - s.at);

describe('<human-input-form> announcements', () => {
  it('announces the submission and then the run\'s end, each long enough to be read', async () => {
    const el = await mount({ app: 'hitl-simple' });
    // "Ready for your input." has had its time.
    await new Promise((r) => setTimeout(r, 1100));
    const said = listen(el);
    choose(control(el, 'choice')!, 'alpha');
    action(el, 'Send').click();
    await until(() => hasState(el, 'finished') && statusText(el) === 'The workflow has finished.', 'the end of the run on the status line');
    expect(texts(said)).to.deep.equal(['Ready for your input.', 'Submitting…', 'Submitted.', 'The workflow has finished.']);
    // "Submitted." was not replaced by the run's end before it could be read.
    const submitted = said.findIndex((s) => s.text === 'Submitted.');
    expect(said[submitted + 1]!.at - said[submitted]!.at).to.be.at.least(900);
  });

  it('goes on with the statuses still waiting after the element is moved in the page', async () => {
    const el = await mount({ app: 'hitl-simple' });
    choose(control(el, 'choice')!, 'alpha');
    action(el, 'Send').click();
    // The run has ended while "Submitted." (or an earlier status) is still up: its end waits in the queue.
    await until(() => hasState(el, 'finished') && statusText(el) !== 'The workflow has finished.', 'the end of the run, not yet on the status line');
    const box = document.createElement('div');
    el.parentElement!.append(box);
    box.append(el);
    await until(() => statusText(el) === 'The workflow has finished.', 'the end of the run on the status line after the move', 4000);
  });

  it('announces an expiry, the run\'s timeout and its end, in order, none replaced at once', async function () {
    this.timeout(20_000);
    const el = await mount({ app: 'hitl-expiry' });
    const said = listen(el);
    await until(() => hasState(el, 'finished') && statusText(el) === 'The workflow has finished.', 'the timeout branch to finish', 12_000);
    expect(texts(said)).to.deep.equal(['Ready for your input.', 'This form has expired.', 'Time ran out for this step.', 'The workflow has finished.']);
    for (const ms of dwell(said.filter((s) => s.text !== 'Waiting for the next step…'))) expect(ms).to.be.at.least(900);
    // The note under the closed form says the same, and the status line said it while it was new.
    expect($(el, '[part~=note]')!.textContent).to.equal('Time ran out for this step.');
  });
});
