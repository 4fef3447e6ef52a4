/**
 * The run stream under the element: a submission in flight while the run's next events, and a
 * reconnect's replay of the form being answered, arrive (the race that made an earlier attempt
 * to build forms from the event fail), and the abort when the element leaves the page.
 */
import { expect, fixture, html } from '@open-wc/testing';
import { LitElement } from 'lit';
import { RunStream } from '../../../src/elements/human-input-form/run-stream.js';
import { SessionSource } from '../../../src/elements/shared/session.js';
import type { Transport } from '../../../src/client/transport.js';
import type { RunEvent } from '../../../src/protocol/index.js';
import { $, action, choose, control, hasState, mount, qa, recordEvents, sessionUrl, startRun, type } from '../helpers/form.js';
import { until } from '../helpers/wait.js';

class StreamHost extends LitElement {
  events: string[] = [];
  resumed = 0;
  readonly stream = new RunStream(this, {
    event: (event: RunEvent) => this.events.push(event.event),
    open: () => undefined,
    resume: () => this.resumed++,
    unavailable: () => 'unavailable',
  });
}
customElements.define('run-stream-host', StreamHost);

describe('RunStream', () => {
  before(() => performance.setResourceTimingBufferSize(5000));

  it('shows the next form only after submitted, once, built from its event, when the submission is answered late and the stream drops meanwhile', async () => {
    const { client, runId } = await startRun('hitl-chain');
    // Another follower of the run, to know when the second form exists.
    const second = (async () => {
      for await (const event of client.workflowEvents(runId, { user: 'ignored-by-the-relay', continue_on_pause: true })) if (event.event === 'human_input_required' && event.data.node_id === 'second') return;
    })();
    const { fetch } = window;
    const formGets: string[] = [];
    let streams = 0;
    let drop: (() => void) | undefined;
    /** What the element's first stream has carried to it. */
    let carried = '';
    window.fetch = async (input, init) => {
      const url = String(input instanceof Request ? input.url : input);
      if (url.includes('/form/human_input/') && (init?.method ?? 'GET') === 'GET') formGets.push(url);
      const response = await fetch(input, init);
      if (url.includes(`/workflow/${runId}/events`) && ++streams === 1) {
        // The element's first stream, passed through until the test drops it as a network would.
        const reader = response.body!.getReader();
        let sink!: ReadableStreamDefaultController<Uint8Array>;
        const body = new ReadableStream<Uint8Array>({
          start: (controller) => void (sink = controller),
          pull: async (controller) => {
            const { done, value } = await reader.read().catch(() => ({ done: true, value: undefined }));
            if (done) return controller.close();
            carried += new TextDecoder().decode(value);
            controller.enqueue(value!);
          },
        });
        drop = () => (sink.error(new TypeError('network error')), void reader.cancel());
        return new Response(body, { status: response.status, headers: response.headers });
      }
      if (init?.method === 'POST' && url.includes('/form/human_input/')) {
        // The answer comes once the resumed run's events up to its next form have reached the
        // element (held, not shown), and after its stream has dropped and its reconnection has
        // replayed the run (the next form again).
        await second;
        await until(() => carried.includes('human_input_form_filled') && carried.includes('"Second step"'), 'the next form on the first stream');
        drop!();
        await until(() => streams >= 2, 'the reconnection');
        await new Promise((r) => setTimeout(r, 400));
      }
      return response;
    };
    try {
      const el = await mount({ app: 'hitl-chain', runId });
      const order: string[] = [];
      el.addEventListener('submitted', () => order.push('submitted'));
      el.addEventListener('form-shown', (e) => order.push(`shown ${e.request?.node_title}`));
      const events = recordEvents(el);
      type(control(el, 'idea')!, 'a bridge');
      action(el, 'Next').click();
      await until(() => control(el, 'size') && hasState(el, 'ready'), 'the second form', 12000);
      expect(streams).to.be.at.least(2);
      expect(order).to.deep.equal(['submitted', 'shown Second step']);
      expect(events.filter((e) => e === 'human_input_form_filled')).to.have.length(1);
      expect(events.filter((e) => e === 'human_input_required')).to.have.length(1);
      expect(events.indexOf('human_input_form_filled')).to.be.lessThan(events.indexOf('human_input_required'));
      expect($(el, '[part~=filled] [part~=chosen]')!.textContent).to.equal('You chose “Next”.');
      // Both forms came with their events: neither was asked for.
      expect(formGets).to.deep.equal([]);
    } finally {
      window.fetch = fetch;
    }
  });

  it('gives up a connection gone silent (no ping, no close, as one that died in a sleeping laptop) and follows the run on a new one', async () => {
    // Pings every 100 ms keep the live connections talking; the dead one says nothing.
    await qa('/settings', { pingIntervalMs: 100 });
    const silenceMs = RunStream.silenceMs;
    RunStream.silenceMs = 800;
    const { runId } = await startRun('hitl-simple');
    const { fetch } = window;
    let streams = 0;
    window.fetch = async (input, init) => {
      const url = String(input instanceof Request ? input.url : input);
      const response = await fetch(input, init);
      if (!url.includes(`/workflow/${runId}/events`) || ++streams > 1) return response;
      // The first stream carries the run up to its form, then nothing more, and never ends: the
      // connection is gone, and only an abort of the request ends the read (as fetch does).
      const reader = response.body!.getReader();
      let carried = '';
      const body = new ReadableStream<Uint8Array>({
        start: (controller) => init?.signal?.addEventListener('abort', () => (controller.error(new DOMException('aborted', 'AbortError')), void reader.cancel())),
        pull: async (controller) => {
          if (carried.includes('workflow_paused')) return new Promise<void>(() => undefined);
          const { done, value } = await reader.read();
          if (done) return controller.close();
          carried += new TextDecoder().decode(value);
          controller.enqueue(value);
        },
      });
      return new Response(body, { status: response.status, headers: response.headers });
    };
    try {
      const el = await mount({ app: 'hitl-simple', runId });
      const comment = control(el, 'comment')!;
      type(comment, 'typed before the silence');
      await until(() => streams >= 2, 'a new connection once the first fell silent', 5000);
      expect(hasState(el, 'ready')).to.be.true;
      expect(control(el, 'comment')).to.equal(comment);
      choose(control(el, 'choice')!, 'alpha');
      action(el, 'Send').click();
      await until(() => hasState(el, 'finished'), 'the run to finish over the new connection', 9000);
    } finally {
      window.fetch = fetch;
      RunStream.silenceMs = silenceMs;
      await qa('/settings', { pingIntervalMs: 10_000 });
    }
  });

  /** A host in the page whose stream is set to follow a new run: its signal and the relay's transport. */
  async function hostOnRun(): Promise<{ host: StreamHost; signal: AbortSignal; api: Transport }> {
    const { runId } = await startRun('hitl-simple');
    const host = await fixture<StreamHost>(html`<run-stream-host></run-stream-host>`);
    host.stream.reset(runId);
    return { host, signal: host.stream.restart(), api: await SessionSource.for(sessionUrl('hitl-simple')).transport() };
  }

  it('aborts when its host leaves the page, not when the host is only moved', async () => {
    const { host, signal, api } = await hostOnRun();
    const following = host.stream.follow(api, undefined, signal);
    await until(() => host.events.includes('human_input_required'), 'the snapshot of the run');
    // A move: removed and added again in one task.
    const parent = host.parentElement!;
    host.remove();
    parent.append(host);
    await new Promise((r) => setTimeout(r, 50));
    expect(signal.aborted).to.be.false;
    expect(host.resumed).to.equal(0);
    host.remove();
    await until(() => signal.aborted, 'the abort');
    await following;
    // Back in the page, it asks its host to connect again.
    parent.append(host);
    expect(host.resumed).to.equal(1);
  });

  it('follows nothing when its host left before the run could be followed (while its session was asked for, say)', async () => {
    const { host, signal, api } = await hostOnRun();
    host.stream.abort();
    const { fetch } = window;
    const asked: string[] = [];
    window.fetch = (input, init) => (asked.push(String(input instanceof Request ? input.url : input)), fetch(input, init));
    try {
      await host.stream.follow(api, undefined, signal);
    } finally {
      window.fetch = fetch;
    }
    expect(asked).to.deep.equal([]);
    expect(host.events).to.deep.equal([]);
  });
});
