/** The order in which a run's events reach the form: one at a time, replays dropped, held while a submission is in flight. */
import { expect } from '@open-wc/testing';
import { EventGate } from '../../../src/elements/human-input-form/event-gate.js';
import type { RunEvent } from '../../../src/protocol/index.js';

const required = (formId: string) => ({ event: 'human_input_required', data: { form_id: formId } }) as unknown as RunEvent;
const filled = { event: 'human_input_form_filled', data: { node_id: 'n' } } as unknown as RunEvent;
const started = (id: string, reason?: string) => ({ event: 'workflow_started', data: { id, reason } }) as unknown as RunEvent;
const settle = () => new Promise((r) => setTimeout(r, 10));

describe('EventGate', () => {
  it('hands events over in order and drops a replay of one handled', async () => {
    const seen: string[] = [];
    const gate = new EventGate((e) => seen.push(`${e.event}:${(e as { data: { form_id?: string; id?: string } }).data.form_id ?? (e as { data: { id?: string } }).data.id ?? ''}`));
    gate.push(started('run'));
    gate.push(required('f1'));
    // A reconnect's snapshot replays both; a resumption's workflow_started repeats the run id legitimately.
    gate.push(started('run'));
    gate.push(required('f1'));
    gate.push(started('run', 'resumption'));
    await settle();
    expect(seen).to.deep.equal(['workflow_started:run', 'human_input_required:f1', 'workflow_started:run']);
  });

  it('holds every event that comes while a submission is in flight, and lets them through after it, in order', async () => {
    const order: string[] = [];
    const gate = new EventGate((e) => order.push(e.event));
    let answer!: () => void;
    const submission = gate.hold(new Promise<void>((resolve) => (answer = resolve)).then(() => order.push('submitted')));
    gate.push(filled);
    gate.push(required('f2'));
    await settle();
    expect(order).to.deep.equal([]);
    answer();
    await submission;
    await settle();
    expect(order).to.deep.equal(['submitted', 'human_input_form_filled', 'human_input_required']);
  });

  it('lets events through after a refused submission too', async () => {
    const order: string[] = [];
    const gate = new EventGate((e) => order.push(e.event));
    const refused = gate.hold(Promise.reject(new Error('412')));
    gate.push(filled);
    await refused.catch(() => order.push('refused'));
    await settle();
    expect(order).to.deep.equal(['refused', 'human_input_form_filled']);
  });

  it('holds the next event while one is being handled (a form being built)', async () => {
    const order: string[] = [];
    let built!: () => void;
    const gate = new EventGate((e) => {
      order.push(`start ${e.event}`);
      if (e.event === 'human_input_required') return new Promise<void>((resolve) => (built = resolve)).then(() => order.push('built'));
      return undefined;
    });
    gate.push(required('f1'));
    gate.push(filled);
    await settle();
    expect(order).to.deep.equal(['start human_input_required']);
    built();
    await settle();
    expect(order).to.deep.equal(['start human_input_required', 'built', 'start human_input_form_filled']);
  });

  it('hands a forgotten event over again, and drops the events of an aborted connection', async () => {
    const seen: string[] = [];
    const gate = new EventGate((e) => seen.push(e.event));
    gate.push(required('f1'));
    await settle();
    gate.forget(required('f1'));
    const aborted = new AbortController();
    aborted.abort();
    gate.push(filled, aborted.signal);
    gate.push(required('f1'));
    await settle();
    expect(seen).to.deep.equal(['human_input_required', 'human_input_required']);
    // A new run shows everything again.
    gate.reset();
    gate.push(required('f1'));
    await settle();
    expect(seen).to.have.length(3);
  });

  it('does not let a connection left behind hold the next one', async () => {
    const seen: string[] = [];
    const gate = new EventGate((e) => seen.push(e.event));
    void gate.hold(new Promise(() => undefined));
    gate.detach();
    gate.push(filled);
    await settle();
    expect(seen).to.deep.equal(['human_input_form_filled']);
  });
});
