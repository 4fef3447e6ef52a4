/**
 * A run's or message's `inputs`, prepared as the real service does (`BaseAppGenerator.
 * _prepare_user_inputs` and `_validate_inputs`): only the form's variables, each checked and
 * converted, a missing optional one at its default (or null); what the form does not declare is
 * dropped, from what is stored and echoed too.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { FixtureApp, InputVariable } from '../../src/service/fixture.js';
import { checkRunInputs } from '../../src/service/run-inputs.js';
import { assertError, KEYS, startApp, type Harness, type RawFixture } from './app-helpers.js';

const variable = (v: Partial<InputVariable> & { variable: string }): InputVariable => ({ label: v.variable, type: 'text-input', required: false, default: '', ...v });
const app = (...inputs: InputVariable[]) => ({ inputs }) as unknown as FixtureApp;
const refused = (fn: () => unknown, message: string) => assert.throws(fn, (e: { status: number; code: string; message: string }) => e.status === 400 && e.code === 'invalid_param' && e.message === message);

describe('run inputs', () => {
  test('only the form’s variables, each at what was given, else its default, else null', () => {
    const form = app(variable({ variable: 'name', default: 'Ada' }), variable({ variable: 'note', type: 'paragraph' }), variable({ variable: 'tone', type: 'select', options: ['warm', 'dry'] }), variable({ variable: 'count', type: 'number' }));
    assert.deepEqual(checkRunInputs(form, { stray: 1, name: null }, 'ChatRequestPayload'), { name: 'Ada', note: '', tone: null, count: null });
    assert.deepEqual(checkRunInputs(form, { name: 'Bo\0b', tone: 'dry', count: ' 4_2 ', note: 'x' }, 'ChatRequestPayload'), { name: 'Bob', note: 'x', tone: 'dry', count: 42 });
    // Python's int() of text without a dot, float() of text with one; a number as given; blank text unset.
    for (const [given, expected] of [['1.5', 1.5], ['-7', -7], [3, 3], ['  ', null]] as const) assert.equal(checkRunInputs(form, { count: given }, 'ChatRequestPayload').count, expected);
    for (const given of ['1e3', 'seven', '0x10', {}]) refused(() => checkRunInputs(form, { count: given }, 'ChatRequestPayload'), 'count in input form must be a valid number');
  });

  test('the real service’s words for what it refuses', () => {
    const form = app(variable({ variable: 'name', required: true, max_length: 3 }), variable({ variable: 'tone', type: 'select', options: ['warm', 'dry'] }));
    refused(() => checkRunInputs(form, {}, 'WorkflowRunPayload'), 'name is required in input form');
    refused(() => checkRunInputs(form, { name: null }, 'WorkflowRunPayload'), 'name is required in input form');
    refused(() => checkRunInputs(form, { name: 5 }, 'WorkflowRunPayload'), "(type 'text-input') name in input form must be a string");
    // Code points, as Python counts: three emoji are three characters.
    assert.equal(checkRunInputs(form, { name: '😀😀😀' }, 'WorkflowRunPayload').name, '😀😀😀');
    refused(() => checkRunInputs(form, { name: 'abcd' }, 'WorkflowRunPayload'), 'name in input form must be less than 3 characters');
    refused(() => checkRunInputs(form, { name: 'ab', tone: 'cold' }, 'WorkflowRunPayload'), "tone in input form must be one of the following: ['warm', 'dry']");
    refused(() => checkRunInputs(form, null, 'CompletionRequestPayload'), '1 validation error for CompletionRequestPayload\ninputs\n  Input should be a valid dictionary');
    refused(() => checkRunInputs(form, undefined, 'WorkflowRunPayload'), '1 validation error for WorkflowRunPayload\ninputs\n  Field required');
  });

  test('a number input padded with tens of thousands of spaces is read in time linear in its length', async () => {
    // Python's strip(); a regex `[…]+$` retried from every start took seconds for 60,000 spaces.
    const withNumber = (raw: RawFixture) => raw.apps.find((a: { key: string }) => a.key === KEYS.textGenerator).inputs.push(variable({ variable: 'count', type: 'number' }));
    const h = await startApp(withNumber);
    try {
      for (const [count, expected] of [[`1${' '.repeat(60_000)}1`, 400], [`${' \u3000'.repeat(30_000)}7${'\t'.repeat(60_000)}`, 200]] as const) {
        const started = performance.now();
        const answer = await h.raw('POST', '/completion-messages', { key: KEYS.textGenerator, json: { inputs: { count }, user: 'inputs-u' } });
        const elapsed = performance.now() - started;
        assert.equal(answer.status, expected, JSON.stringify(answer.body));
        assert.ok(elapsed < 500, `${Math.round(elapsed)} ms`);
      }
    } finally {
      await h.close();
    }
  });

  describe('over HTTP', () => {
    let h: Harness;
    before(async () => (h = await startApp()));
    after(() => h.close());

    test('what is stored and echoed holds the form’s variables only', async () => {
      const chat = await h.raw('POST', '/chat-messages', { key: KEYS.chatflow, json: { inputs: { extra: 'x' }, query: 'hi', user: 'inputs-u', response_mode: 'blocking' } });
      assert.equal(chat.status, 200, JSON.stringify(chat.body));
      const list = await h.raw('GET', '/conversations?user=inputs-u', { key: KEYS.chatflow });
      assert.deepEqual((list.body as { data: { inputs: unknown }[] }).data[0]!.inputs, { scenario: 'review' });
      const completion = await h.raw('POST', '/completion-messages', { key: KEYS.textGenerator, json: { inputs: { query: 'stray' }, user: 'inputs-u' } });
      assert.equal(completion.status, 200, JSON.stringify(completion.body));
      assertError(await h.raw('POST', '/completion-messages', { key: KEYS.textGenerator, json: { inputs: { product: 5 }, user: 'inputs-u' } }), 400, 'invalid_param', "(type 'text-input') product in input form must be a string");
    });
  });
});
