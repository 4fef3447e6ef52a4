/** Dropped streams, reloads, rejected submissions, expiry and forms that cannot be answered here. */
import { expect, fixture, html, oneEvent } from '@open-wc/testing';
import { FormErrorEvent, SubmittedEvent, TimedOutEvent } from '../../../src/elements/human-input-form/events.js';
import type { HumanInputForm } from '../../../src/elements/human-input-form/human-input-form.js';
import type { HitlParagraph } from '../../../src/elements/hitl-paragraph/hitl-paragraph.js';
import { expectNoAxeViolations } from '../helpers/axe.js';
import { $, action, choose, control, hasState, inner, mount, qa, recordEvents, sessionUrl, startRun, statusText, type } from '../helpers/form.js';
import { until } from '../helpers/wait.js';

describe('<human-input-form> under failure', () => {
  // Module loads fill the default buffer of 250; the streams counted below must not be dropped.
  before(() => performance.setResourceTimingBufferSize(5000));
  afterEach(() => qa('/settings', { failRemoteFetch: false, cutStreamAfter: null, pingIntervalMs: 10_000, streamIdleTimeoutMs: 300_000 }));

  it('reconnects after a dropped stream with a snapshot, rendering nothing twice and keeping what was typed', async () => {
    const { runId } = await startRun('hitl-simple');
    // The element's stream closes after the snapshot's six events (the form), as a dropped connection would.
    await qa('/cut-next-stream', { after: 6 });
    const el = await mount({ app: 'hitl-simple', runId });
    const events = recordEvents(el);
    const shown: unknown[] = [];
    el.addEventListener('form-shown', (e) => shown.push(e));
    const comment = control(el, 'comment')!;
    type(comment, 'typed before the drop');
    // The element reconnects with a snapshot that replays the run; nothing of it is shown again.
    await new Promise((r) => setTimeout(r, 300));
    expect(hasState(el, 'ready')).to.be.true;
    expect(control(el, 'comment')).to.equal(comment);
    expect((comment as HitlParagraph).value).to.equal('typed before the drop');
    choose(control(el, 'choice')!, 'alpha');
    action(el, 'Send').click();
    await until(() => hasState(el, 'finished'), 'the run to finish over the new stream', 9000);
    expect(shown).to.have.length(0);
    // Two streams of this run were opened: the one cut, and the reconnection.
    const streamsOf = () => performance.getEntriesByType('resource').filter((r) => r.name.includes(`/workflow/${runId}/events`));
    // An entry is recorded once its stream has ended, a moment after its last event.
    const streams = await until(() => streamsOf().length >= 2 && streamsOf(), 'both streams to end');
    expect(streams.map((r) => new URL(r.name).search)).to.deep.equal(['?include_state_snapshot=true&continue_on_pause=true', '?include_state_snapshot=true&continue_on_pause=true']);
    // Replayed events were dropped: each appears once.
    expect(events.filter((e) => e === 'human_input_required')).to.have.length(0);
    expect(events.filter((e) => e === 'human_input_form_filled')).to.have.length(1);
    expect(events.filter((e) => e === 'workflow_finished')).to.have.length(1);
  });

  it('keeps a submitted form shut when the stream drops before the run says so and the retry reconnects', async () => {
    const { runId } = await startRun('hitl-simple');
    const { fetch } = window;
    /** How the element's events requests fare: passed through, refused (503), or left hanging. */
    let mode: 'through' | 'down' | 'hang' = 'through';
    /** Drops the element's first stream as a network would: its side errors, and the real one is closed (it would hold a stream slot for the next tests). */
    let drop = () => undefined as void;
    window.fetch = async (input, init) => {
      const url = String(input instanceof Request ? input.url : input);
      if (!url.includes(`/workflow/${runId}/events`)) return fetch(input, init);
      if (mode === 'down') return new Response('{"code":"upstream_unavailable","message":"down","status":503}', { status: 503, headers: { 'Content-Type': 'application/json' } });
      if (mode === 'hang') return new Promise<Response>((_, reject) => init?.signal?.addEventListener('abort', () => reject(new DOMException('aborted', 'AbortError'))));
      const response = await fetch(input, init);
      const reader = response.body!.getReader();
      // Carries the stream until the submission, then drops it as a network would, before the run's news of it.
      const body = new ReadableStream<Uint8Array>({
        start: (controller) => {
          drop = () => (controller.error(new TypeError('network error')), void reader.cancel().catch(() => undefined));
        },
        pull: async (controller) => {
          const { done, value } = await reader.read().catch(() => ({ done: true, value: undefined }));
          if (mode !== 'through') return drop();
          if (done) return controller.close();
          controller.enqueue(value!);
        },
      });
      return new Response(body, { status: response.status, headers: response.headers });
    };
    try {
      const el = await mount({ app: 'hitl-simple', runId });
      type(control(el, 'comment')!, 'my answer');
      choose(control(el, 'choice')!, 'alpha');
      mode = 'down';
      drop();
      action(el, 'Send').click();
      await until(() => hasState(el, 'submitted') || hasState(el, 'error'), 'the submission to be taken');
      // The reconnects are refused until the element gives up and offers a retry.
      await until(() => hasState(el, 'error'), 'the retry to be offered', 9000);
      mode = 'hang';
      $<HTMLButtonElement>(el, 'button[part~=retry]')!.click();
      await new Promise((r) => setTimeout(r, 100));
      // The answer the service took is not offered again: a second submission would be refused as "taken".
      expect(hasState(el, 'ready'), statusText(el)).to.be.false;
      expect(hasState(el, 'submitted'), statusText(el)).to.be.true;
      expect(action(el, 'Send').closest('fieldset')!.disabled).to.be.true;
      el.remove();
    } finally {
      window.fetch = fetch;
    }
  });

  it('leaves the open form be when news of another form comes late (a form already closed as answered here)', async () => {
    const { runId, form } = await startRun('hitl-simple');
    const { fetch } = window;
    let stream!: ReadableStreamDefaultController<Uint8Array>;
    const send = (event: string, data: unknown) => stream.enqueue(new TextEncoder().encode(`data: ${JSON.stringify({ event, workflow_run_id: runId, task_id: runId, data })}\n\n`));
    window.fetch = async (input, init) => {
      const url = String(input instanceof Request ? input.url : input);
      if (!url.includes(`/workflow/${runId}/events`)) return fetch(input, init);
      return new Response(new ReadableStream<Uint8Array>({ start: (controller) => void (stream = controller) }), { headers: { 'Content-Type': 'text/event-stream' } });
    };
    try {
      const el = fixture<HumanInputForm>(html`<human-input-form session-url=${sessionUrl('hitl-simple')} run-id=${runId} lang="en"></human-input-form>`);
      await until(() => stream, 'the events request');
      send('human_input_required', { ...form, node_id: 'second-node' });
      const element = await el;
      await until(() => hasState(element, 'ready'), 'the form');
      type(control(element, 'comment')!, 'typed into the second form');
      // The first form's `human_input_form_filled`, arriving after the second form opened.
      send('human_input_form_filled', { node_id: 'first-node', node_title: 'First', rendered_content: 'First, answered', action_id: 'send', action_text: 'Send', submitted_data: null });
      await new Promise((r) => setTimeout(r, 200));
      expect(hasState(element, 'ready'), statusText(element)).to.be.true;
      expect((control(element, 'comment') as HitlParagraph).value).to.equal('typed into the second form');
      expect(Object.keys(localStorage).filter((k) => k.startsWith('hitl-draft:') && k.includes(form.form_token!))).to.have.length(1);
    } finally {
      window.fetch = fetch;
    }
  });

  it('stays ready while the service closes its idle stream again and again, as it does to a form left waiting past 300 s', async () => {
    // The service's timings scaled down: pings every 50 ms, an idle stream closed after 400 ms.
    await qa('/settings', { pingIntervalMs: 50, streamIdleTimeoutMs: 400 });
    const { runId } = await startRun('hitl-simple');
    const el = await mount({ app: 'hitl-simple', runId });
    const comment = control(el, 'comment')!;
    type(comment, 'typed while the human thinks');
    const streamsOf = () => performance.getEntriesByType('resource').filter((r) => r.name.includes(`/workflow/${runId}/events`));
    // More closes in a row than the reconnects a failing connection gets: each of these streams
    // lived through pings, so its end is no failure.
    await until(() => streamsOf().length >= 7 || hasState(el, 'error'), 'seven idle closes', 15_000);
    expect(hasState(el, 'error'), statusText(el)).to.be.false;
    expect(hasState(el, 'ready')).to.be.true;
    expect(control(el, 'comment')).to.equal(comment);
    await qa('/settings', { streamIdleTimeoutMs: 300_000 });
    choose(control(el, 'choice')!, 'alpha');
    action(el, 'Send').click();
    await until(() => hasState(el, 'finished'), 'the run to finish over the latest stream', 9000);
  });

  it('keeps typed values across a reload of the page (a draft per form) and forgets them after the submit', async () => {
    const { runId, form } = await startRun('hitl-simple');
    const first = await mount({ app: 'hitl-simple', runId });
    type(control(first, 'comment')!, 'half-written thought');
    choose(control(first, 'choice')!, 'beta');
    first.remove();
    const key = `hitl-draft:${form.form_token}`;
    expect(JSON.parse(localStorage.getItem(key)!)).to.deep.equal({ choice: 'beta', comment: 'half-written thought' });

    const again = await mount({ app: 'hitl-simple', runId });
    expect(inner<HTMLTextAreaElement>(control(again, 'comment')!, 'textarea')!.value).to.equal('half-written thought');
    expect(inner<HTMLSelectElement>(control(again, 'choice')!, 'select')!.value).to.equal('beta');
    action(again, 'Send').click();
    await until(() => hasState(again, 'finished'), 'the end of the run');
    expect(localStorage.getItem(key)).to.be.null;
  });

  it('shows a rejection at the input it names, keeps every value, and lets the user fix it and submit again', async () => {
    const { runId, form } = await startRun('hitl-files');
    // A draft from an earlier visit names an upload the service does not know.
    localStorage.setItem(
      `hitl-draft:${form.form_token}`,
      JSON.stringify({ notes: JSON.stringify([{ name: 'old.md', size: 3, ref: { transfer_method: 'local_file', upload_file_id: '7b0e6a53-95c5-4a4f-9a55-7d0c1f3c7d11', type: 'custom' } }]) }),
    );
    const el = await mount({ app: 'hitl-files', runId });
    const pictures = control(el, 'pictures')!;
    const link = inner<HTMLInputElement>(pictures, '[part~=url-input]')!;
    link.value = `${location.origin}/test/fixtures/files/pixel.png`;
    inner<HTMLButtonElement>(pictures, '[part~=url-button]')!.click();
    const rejected = oneEvent(el, FormErrorEvent.type) as Promise<FormErrorEvent>;
    action(el, 'Send files').click();
    const { error } = await rejected;
    expect(error.code).to.equal('invalid_form_data');
    expect(error.message).to.equal("Invalid value for file input 'notes': Invalid upload file");
    await until(() => hasState(el, 'ready') && inner(control(el, 'notes')!, '[part~=error]')!.textContent === error.message, 'the message at the input');
    expect($(el, '[role=alert]')!.textContent).to.equal('Check the highlighted fields.');
    expect(control(el, 'notes')!.matches(':state(user-invalid)')).to.be.true;
    expect(control(el, 'pictures')!.value).to.have.length(1);
    await until(() => control(el, 'notes')!.matches(':focus-within'), 'focus on the rejected input');

    // Replace the stale file with a real upload, and submit again.
    const notes = control(el, 'notes')!;
    inner<HTMLButtonElement>(notes, '[part~=file-button]')!.click();
    await notes.updateComplete;
    const picker = inner<HTMLInputElement>(notes, '[type=file]')!;
    const transfer = new DataTransfer();
    transfer.items.add(new File(['# Notes'], 'notes.md', { type: 'text/markdown' }));
    picker.files = transfer.files;
    picker.dispatchEvent(new Event('change'));
    await until(() => (notes.value as { upload_file_id?: string } | null)?.upload_file_id, 'the upload');
    action(el, 'Send files').click();
    await until(() => hasState(el, 'finished'), 'the run to finish');
  });

  it('rejects a submission whose link the service cannot fetch, at that input', async () => {
    const { runId } = await startRun('hitl-files');
    await qa('/settings', { failRemoteFetch: true });
    const el = await mount({ app: 'hitl-files', runId });
    const notes = control(el, 'notes')!;
    const picker = inner<HTMLInputElement>(notes, '[type=file]')!;
    const transfer = new DataTransfer();
    transfer.items.add(new File(['plain'], 'notes.txt', { type: 'text/plain' }));
    picker.files = transfer.files;
    picker.dispatchEvent(new Event('change'));
    await until(() => notes.value, 'the upload');
    const pictures = control(el, 'pictures')!;
    const link = `${location.origin}/test/fixtures/files/pixel.png`;
    inner<HTMLInputElement>(pictures, '[part~=url-input]')!.value = link;
    inner<HTMLButtonElement>(pictures, '[part~=url-button]')!.click();
    action(el, 'Send files').click();
    const message = () => inner(pictures, '[part~=error]')!.textContent!;
    await until(() => message().startsWith('Could not fetch this link. Check it opens, then send again.'), 'the message at the link input');
    expect(message()).to.contain(`(Invalid value for file list input 'pictures': Failed to fetch remote file ${link}`);
    expect(hasState(el, 'ready')).to.be.true;
    expect(notes.value).to.not.be.null;
    // The remote host is back: the same link, sent again as it is, goes through.
    await qa('/settings', { failRemoteFetch: false });
    const submitted = oneEvent(el, SubmittedEvent.type) as Promise<SubmittedEvent>;
    action(el, 'Send files').click();
    expect((await submitted).inputs.pictures).to.deep.equal([{ transfer_method: 'remote_url', url: link, type: 'image' }]);
  });

  it('counts down to the expiry, disables the form when it passes, then follows the timeout branch', async () => {
    const el = await mount({ app: 'hitl-expiry' });
    const timer = $(el, '[part~=countdown]')!;
    expect(timer.getAttribute('role')).to.equal('timer');
    expect(timer.textContent).to.match(/^Time left: 0:0[1-3]$/);
    type(control(el, 'answer')!, 'too slow');
    const expired = oneEvent(el, TimedOutEvent.type) as Promise<TimedOutEvent>;
    expect((await expired).local).to.be.true;
    await el.updateComplete;
    expect(statusText(el)).to.equal('This form has expired.');
    expect($<HTMLFieldSetElement>(el, 'fieldset')!.disabled).to.be.true;
    expect(inner<HTMLTextAreaElement>(control(el, 'answer')!, 'textarea')!.disabled).to.be.true;
    expect($(el, '[part~=countdown]')).to.be.null;
    await until(() => hasState(el, 'timeout') || hasState(el, 'finished'), 'the timeout from the run', 4000);
    await until(() => hasState(el, 'finished'), 'the timeout branch to finish', 4000);
    // The form stays, closed with what was typed, and says why even after the run has finished.
    const closed = $(el, '[part~=filled]')!;
    expect(closed.querySelector('[part~=title]')!.textContent).to.equal('Decide quickly');
    expect(closed.querySelector('[part~=note]')!.textContent).to.equal('Time ran out for this step.');
    const answer = inner<HTMLTextAreaElement>(closed.querySelector('hitl-paragraph')!, 'textarea')!;
    expect(answer.value).to.equal('too slow');
    expect(answer.disabled).to.be.true;
    await until(() => statusText(el) === 'The workflow has finished.', 'the finished status');
    expect($(el, 'form')).to.be.null;
    await expectNoAxeViolations(el);
  });

  it('reports a form the run timed out (QA expiry) and one already answered elsewhere', async () => {
    const { runId, form } = await startRun('hitl-simple');
    const el = await mount({ app: 'hitl-simple', runId });
    const timedOut = oneEvent(el, TimedOutEvent.type) as Promise<TimedOutEvent>;
    type(control(el, 'comment')!, 'half an answer');
    await qa(`/forms/${form.form_token}/expire`, {});
    expect((await timedOut).local).to.be.false;
    await until(() => statusText(el) === 'Time ran out for this step.' || hasState(el, 'finished'), 'the timeout');
    // Whatever the run does next, the timed-out form stays with its values and its note.
    expect($(el, '[part~=note]')!.textContent).to.equal('Time ran out for this step.');
    await control(el, 'comment')!.updateComplete;
    expect(inner<HTMLTextAreaElement>(control(el, 'comment')!, 'textarea')!.value).to.equal('half an answer');
    expect(inner<HTMLTextAreaElement>(control(el, 'comment')!, 'textarea')!.disabled).to.be.true;
    expect(localStorage.getItem(`hitl-draft:${form.form_token}`)).to.be.null;

    const other = await startRun('hitl-simple');
    const a = await mount({ app: 'hitl-simple', formToken: other.form.form_token! });
    const b = await mount({ app: 'hitl-simple', formToken: other.form.form_token! });
    choose(control(a, 'choice')!, 'alpha');
    action(a, 'Send').click();
    await until(() => hasState(a, 'submitted'), 'the first submit');
    choose(control(b, 'choice')!, 'beta');
    action(b, 'Send').click();
    await until(() => hasState(b, 'taken'), 'the second submit to be refused');
    await until(() => statusText(b) === 'This form has already been submitted.', 'the taken status');
  });

  it('says so when a form is answered by email only, and follows the run on', async () => {
    const el = await mount({ app: 'hitl-email' }, 'undrivable');
    expect(statusText(el)).to.equal('This step is answered by email and cannot be completed here.');
    expect($(el, 'form')).to.be.null;
    await expectNoAxeViolations(el);
    await until(() => hasState(el, 'finished'), 'the email form to time out and the run to end', 5000);
  });

  it('checks every input before submitting, flags every problem at once, takes the user to the first, and drops the summary once all is fixed', async () => {
    const el = await mount();
    let sent = false;
    el.addEventListener('before-submit', () => (sent = true));
    action(el, 'Approve').click();
    await until(() => $(el, '[role=alert]'), 'the summary');
    expect($(el, '[role=alert]')!.textContent).to.equal('Check the highlighted fields.');
    expect(sent).to.be.false;
    const priority = control(el, 'priority')!;
    await el.updateComplete;
    // Every required input says so in one go, not one per submit.
    for (const name of ['priority', 'screenshot', 'reports']) {
      const input = control(el, name)!;
      await input.updateComplete;
      expect(inner(input, '[part~=error]')!.textContent, name).to.equal('This field is required.');
      expect(input.matches(':state(user-invalid)'), name).to.be.true;
    }
    expect(inner(priority, 'select')!.getAttribute('aria-invalid')).to.equal('true');
    await until(() => priority.matches(':focus-within'), 'focus on the first invalid input');
    // The optional paragraph is not flagged.
    expect(inner(control(el, 'summary')!, '[part~=error]')!.textContent).to.equal('');
    await expectNoAxeViolations(el);

    // Fixing the inputs, without submitting again, takes the summary away.
    choose(priority, 'high');
    await el.updateComplete;
    expect($(el, '[role=alert]')).to.exist;
    for (const [name, link] of [['screenshot', 'https://example.com/shot.png'], ['reports', 'https://example.com/report.pdf']] as const) {
      inner<HTMLInputElement>(control(el, name)!, '[part~=url-input]')!.value = link;
      inner<HTMLButtonElement>(control(el, name)!, '[part~=url-button]')!.click();
    }
    await el.updateComplete;
    expect($(el, '[role=alert]')).to.be.null;
    expect(inner(control(el, 'reports')!, '[part~=error]')!.textContent).to.equal('');
  });

  it('shows an upload under way as such, and asks to wait for it only when a submit is attempted', async () => {
    const el = await mount({ app: 'hitl-files' });
    const notes = control(el, 'notes')!;
    const pictures = control(el, 'pictures')!;
    inner<HTMLInputElement>(pictures, '[part~=url-input]')!.value = 'https://example.com/cat.png';
    inner<HTMLButtonElement>(pictures, '[part~=url-button]')!.click();
    await qa('/settings', { latencyMs: 600 });
    try {
      const picker = inner<HTMLInputElement>(notes, '[type=file]')!;
      const transfer = new DataTransfer();
      transfer.items.add(new File(['# Notes'], 'notes.md', { type: 'text/markdown' }));
      picker.files = transfer.files;
      picker.dispatchEvent(new Event('change'));
      await notes.updateComplete;
      // Uploading is no mistake: a neutral status, no error, no summary.
      expect(inner(notes, '[role=status]')!.textContent).to.equal('Uploading (1)…');
      expect(inner(notes, '[part~=error]')!.textContent).to.equal('');
      expect(inner(notes, '[part~=files]')!.getAttribute('aria-invalid')).to.equal('false');
      expect($(el, '[role=alert]')).to.be.null;
      // A submit attempt meanwhile is held back, and says why at the input.
      action(el, 'Send files').click();
      await notes.updateComplete;
      expect(inner(notes, '[part~=error]')!.textContent).to.equal('Wait for the uploads to finish, or remove the failed ones.');
      await el.updateComplete;
      expect($(el, '[role=alert]')!.textContent).to.equal('Check the highlighted fields.');
      expect(hasState(el, 'ready')).to.be.true;
      // Once the upload is done, both messages go.
      await until(() => notes.value, 'the upload');
      await notes.updateComplete;
      expect(inner(notes, '[part~=error]')!.textContent).to.equal('');
      await el.updateComplete;
      expect($(el, '[role=alert]')).to.be.null;
    } finally {
      await qa('/settings', { latencyMs: 0 });
    }
  });

  it('starts one run even when the page moves it while the run is being started', async () => {
    // Watches (does not change) the page's fetch, to count the run starts the element sends.
    const realFetch = window.fetch;
    let starts = 0;
    window.fetch = (input, init) => {
      if (String(input instanceof Request ? input.url : input).endsWith('/workflows/run')) starts++;
      return realFetch(input, init);
    };
    await qa('/settings', { latencyMs: 300 });
    try {
      const [a, b] = [document.createElement('div'), document.createElement('div')];
      document.body.append(a, b);
      const el = document.createElement('human-input-form');
      el.sessionUrl = sessionUrl();
      a.append(el);
      await until(() => starts === 1, 'the start request');
      // The start is on its way (held by the latency) when a framework moves the element.
      b.append(el);
      await until(() => hasState(el, 'ready'), 'the form');
      expect(starts).to.equal(1);
      a.remove();
      b.remove();
    } finally {
      window.fetch = realFetch;
      await qa('/settings', { latencyMs: 0 });
    }
  });

  it('leaves a failed session visible, with a retry when the backend could not be reached', async () => {
    // Nothing listens on port 9: the next try may well work, so a retry is offered, and it tries again.
    const el = await fixture<HumanInputForm>(html`<human-input-form session-url="http://127.0.0.1:9/session"></human-input-form>`);
    await until(() => hasState(el, 'error'), 'the error');
    const errors: string[] = [];
    el.addEventListener('form-error', (e) => errors.push(e.error.code));
    $<HTMLButtonElement>(el, '[part~=retry]')!.click();
    await until(() => errors.length === 1 && hasState(el, 'error'), 'the retry to fail again');
    // A session endpoint that does not exist answers 404: asking again cannot help, so no retry.
    const missing = await fixture<HumanInputForm>(html`<human-input-form session-url="/api/no-such-endpoint"></human-input-form>`);
    await until(() => hasState(missing, 'error'), 'the error');
    expect($(missing, '[part~=retry]')).to.be.null;
    void sessionUrl;
  });
});
