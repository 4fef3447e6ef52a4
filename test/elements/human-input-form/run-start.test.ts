/**
 * A run the element starts is started at most once (issue 12.4): each start carries an
 * `Idempotency-Key`, and every retry of that start (after a stream dropped before the run's id
 * arrived, after the relay's `409 run_start_pending`, or from the Retry button) resends the same
 * request with the same key; only a new start gets a new key. The relay's side (one run per key,
 * a repeat answered with that run's events) is built separately: these tests watch the requests
 * the element sends, passing each one on to the real relay.
 */
import { expect, fixture, html } from '@open-wc/testing';
import type { HumanInputForm } from '../../../src/elements/human-input-form/human-input-form.js';
import { newUser } from '../conversation-list/chat-app.js';
import { $, control, hasState, qa, recordEvents, statusText } from '../helpers/form.js';
import { until } from '../helpers/wait.js';

interface Sent {
  key: string | null;
  body: string;
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;
const realFetch = window.fetch;

/**
 * Records every run start the page sends. `answer` may stand in for the network for a start
 * (a Response, or an Error to throw as a failed connection); otherwise it goes to the relay.
 */
function watchStarts(answer?: (sent: Sent, index: number) => Response | Error | undefined): Sent[] {
  const starts: Sent[] = [];
  window.fetch = async (input, init) => {
    const url = String(input instanceof Request ? input.url : input);
    if (init?.method === 'POST' && url.endsWith('/workflows/run')) {
      const sent = { key: new Headers(init.headers).get('Idempotency-Key'), body: String(init.body) };
      starts.push(sent);
      const stand = answer?.(sent, starts.length - 1);
      if (stand instanceof Error) throw stand;
      if (stand) return stand;
    }
    return realFetch(input, init);
  };
  return starts;
}

/**
 * A form that starts a run, as a user of its own: the relay counts a stream against its user until
 * the connection closes, so streams earlier test files left open never count against this one's
 * `too_many_streams`.
 */
const mountStarting = async (inputs: Record<string, unknown> = {}) =>
  fixture<HumanInputForm>(html`<human-input-form session-url=${await newUser('hitl-simple')} lang="en" .inputs=${inputs}></human-input-form>`);

describe('<human-input-form> starting a run', () => {
  afterEach(async () => {
    window.fetch = realFetch;
    await qa('/settings', { cutStreamAfter: null });
  });

  it('sends a random Idempotency-Key with the start, and a new one for a new start', async () => {
    const starts = watchStarts();
    const el = await mountStarting({ topic: 'one' });
    await until(() => hasState(el, 'ready'), 'the form');
    // start() settles when the run ends: not awaited.
    void el.start();
    // The element's own retries of a start turned away (429) wait up to 3.5 s before the run even starts.
    await until(() => starts.length >= 2 && hasState(el, 'ready'), 'the second run', 20_000);
    expect(starts[0]!.key).to.match(UUID);
    expect(starts[1]!.key).to.match(UUID);
    expect(starts[1]!.key).not.to.equal(starts[0]!.key);
    // A start the relay turned away at once (429: the first run's stream slot not yet free) is asked again with its own key.
    expect(starts.slice(1).every((s) => s.key === starts[1]!.key)).to.be.true;
  });

  it('resends the same start with the same key when its stream drops before the first event', async () => {
    const starts = watchStarts();
    // The relay's stream of the start closes before any event, as a dropped connection would.
    await qa('/cut-next-stream', { after: 0 });
    const el = await mountStarting({ topic: 'dropped' });
    const events = recordEvents(el);
    await until(() => hasState(el, 'ready'), `the form after the retry (now: ${statusText(el)})`);
    expect(starts).to.have.length(2);
    expect(starts[1]).to.deep.equal(starts[0]);
    expect(starts[0]!.key).to.match(UUID);
    // The form of the run that answered is shown once.
    expect(events.filter((e) => e === 'human_input_required')).to.have.length(1);
    expect(control(el, 'comment')).to.exist;
  });

  it('waits as long as Retry-After says on 409 run_start_pending, then asks again with the same key', async () => {
    const pending = () =>
      Response.json(
        { code: 'run_start_pending', message: 'This run is still being started; ask again shortly.', status: 409 },
        { status: 409, headers: { 'Retry-After': '1' } },
      );
    // The relay's answers to a repeated key while the first attempt has not learned the run id.
    const starts = watchStarts((_, i) => (i === 0 ? new TypeError('Failed to fetch') : i === 1 ? pending() : undefined));
    const el = await mountStarting({ topic: 'pending' });
    await until(() => starts.length === 2, 'the repeated start');
    const asked = performance.now();
    await until(() => hasState(el, 'ready'), `the form (now: ${statusText(el)})`);
    expect(performance.now() - asked).to.be.greaterThan(900);
    expect(starts.map((s) => s.key)).to.deep.equal([starts[0]!.key, starts[0]!.key, starts[0]!.key]);
    expect(new Set(starts.map((s) => s.body)).size).to.equal(1);
  });

  it('keeps the key for the Retry button after the start kept failing', async function () {
    // Five attempts with backoff (0, 0.5, 1, 2, 4 s) before the error state.
    this.timeout(20_000);
    let down = true;
    const starts = watchStarts(() => (down ? new TypeError('Failed to fetch') : undefined));
    const el = await mountStarting({ topic: 'retry' });
    await until(() => hasState(el, 'error'), `the error state (now: ${statusText(el)})`, 12_000);
    const key = starts[0]!.key;
    expect(key).to.match(UUID);
    expect(starts.every((s) => s.key === key)).to.be.true;
    down = false;
    const tries = starts.length;
    $<HTMLButtonElement>(el, '[part~=retry]')!.click();
    await until(() => hasState(el, 'ready'), 'the form after Retry');
    expect(starts.length).to.equal(tries + 1);
    expect(starts.at(-1)!.key).to.equal(key);
  });

  it('offers no Retry when the relay cannot vouch for the start (409 run_start_unknown): the same key can never succeed', async () => {
    const unknown = () =>
      Response.json(
        { code: 'run_start_unknown', message: 'A run may have started with this Idempotency-Key, but its id was never seen.', status: 409 },
        { status: 409 },
      );
    const starts = watchStarts(() => unknown());
    const el = await mountStarting({ topic: 'unknown' });
    await until(() => hasState(el, 'error'), `the error state (now: ${statusText(el)})`);
    expect(starts).to.have.length(1);
    expect($(el, '[part~=retry]')).to.equal(null);
  });
});
