// submitRefusal: the one place that reads what a refused form submission blames from the real
// service's message text (it has no structured field for it).
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { requestDefinition, submitRefusal, type HumanInputRequest } from '../../src/protocol/index.js';

test('missing inputs are named, and marked missing', () => {
  assert.deepEqual(submitRefusal('Missing required inputs: comments, size'), { inputs: ['comments', 'size'], missing: true, linkFailed: false });
});

test('one invalid input is named; a link the service could not fetch is told apart', () => {
  assert.deepEqual(submitRefusal("Invalid value for select input 'size': XL"), { inputs: ['size'], missing: false, linkFailed: false });
  assert.deepEqual(submitRefusal("Invalid value for file input 'report': Failed to fetch remote file https://example.com/a.pdf: HTTP 404"), {
    inputs: ['report'],
    missing: false,
    linkFailed: true,
  });
});

test('a message that names no input blames none', () => {
  assert.deepEqual(submitRefusal('Form data is invalid.'), { inputs: [], missing: false, linkFailed: false });
});

// requestDefinition: the form a `human_input_required` event carries, so the element need not GET it.
const request: HumanInputRequest = {
  form_id: 'f1',
  node_id: 'approval',
  node_title: 'Approval',
  form_content: 'Review: {{#$output.comment#}}',
  inputs: [{ type: 'paragraph', output_variable_name: 'comment', default: { type: 'constant', selector: [], value: 'ok' } }],
  actions: [{ id: 'approve', title: 'Approve', button_style: 'primary' }],
  display_in_ui: true,
  form_token: 'tok',
  resolved_default_values: { comment: 'from a variable' },
  expiration_time: 1_745_510_400,
};

test('an event with what the form needs is its definition, as the form GET would answer it', () => {
  assert.deepEqual(requestDefinition(request), {
    form_content: request.form_content,
    inputs: request.inputs,
    resolved_default_values: request.resolved_default_values,
    user_actions: request.actions,
    expiration_time: request.expiration_time,
  });
});

test('a select whose options come from a variable needs the form GET (only it has the live values)', () => {
  const variable = { ...request, inputs: [...request.inputs, { type: 'select' as const, output_variable_name: 'size', option_source: { type: 'variable' as const, selector: ['start', 'sizes'], value: [] } }] };
  assert.equal(requestDefinition(variable), undefined);
  const constant = { ...request, inputs: [{ type: 'select' as const, output_variable_name: 'size', option_source: { type: 'constant' as const, selector: [], value: ['S', 'M'] } }] };
  assert.deepEqual(requestDefinition(constant)?.inputs, constant.inputs);
});
