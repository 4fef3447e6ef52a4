/**
 * Form content Markdown and its `{{#$output.<name>#}}` slots (dify-wire.md §2.5).
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import {
  OUTPUT_NAME,
  renderWithOutputs,
  slotNames,
  splitFormContent,
  stringifyValue,
  substituteVariables,
  type FormInput,
} from '../../src/protocol/index.js';

const md = (text: string) => ({ kind: 'markdown' as const, text });
const slot = (name: string) => ({ kind: 'slot' as const, name });

describe('splitFormContent', () => {
  test('splits Markdown around a slot, in order', () => {
    assert.deepEqual(splitFormContent('Before {{#$output.comments#}} after'), [md('Before '), slot('comments'), md(' after')]);
  });

  test('content without slots is one Markdown run; empty content is no parts', () => {
    assert.deepEqual(splitFormContent('## Title\n\nJust text.'), [md('## Title\n\nJust text.')]);
    assert.deepEqual(splitFormContent(''), []);
  });

  test('adjacent slots produce no empty Markdown run between them', () => {
    assert.deepEqual(splitFormContent('{{#$output.a#}}{{#$output.b#}}'), [slot('a'), slot('b')]);
    assert.deepEqual(splitFormContent('x{{#$output.a#}}{{#$output.b#}}y'), [md('x'), slot('a'), slot('b'), md('y')]);
  });

  test('a slot at the very start or end leaves no empty run', () => {
    assert.deepEqual(splitFormContent('{{#$output.a#}} tail'), [slot('a'), md(' tail')]);
    assert.deepEqual(splitFormContent('head {{#$output.a#}}'), [md('head '), slot('a')]);
  });

  test('a slot whose name the server would refuse is still recognised, like the web client', () => {
    assert.deepEqual(splitFormContent('{{#$output.9 not valid#}}'), [slot('9 not valid')]);
    assert.equal(OUTPUT_NAME.test('9 not valid'), false);
    assert.equal(OUTPUT_NAME.test('comments'), true);
  });

  test('malformed slots and non-slot references stay Markdown', () => {
    for (const text of [
      '{{#$output.#}}', // empty name
      '{{#$output.a}}', // missing closing #
      '{{$output.a#}}', // missing opening #
      '{{#$outputs.a#}}', // early dev builds' plural form
      '{{#start.user#}}', // a workflow variable, not a slot
      '{{#$output.a#b#}}', // # inside the name
    ]) {
      assert.deepEqual(splitFormContent(text), [md(text)], text);
    }
  });

  test('multiline Markdown around slots is kept byte for byte', () => {
    const content = '## Review\n\n> quoted\n\n{{#$output.comments#}}\n\nApprove?';
    const parts = splitFormContent(content);
    assert.deepEqual(parts, [md('## Review\n\n> quoted\n\n'), slot('comments'), md('\n\nApprove?')]);
    assert.equal(parts.map((p) => (p.kind === 'slot' ? `{{#$output.${p.name}#}}` : p.text)).join(''), content);
  });

  test('slotNames lists each slot once, in order of first mention', () => {
    assert.deepEqual(slotNames('{{#$output.b#}} {{#$output.a#}} {{#$output.b#}}'), ['b', 'a']);
    assert.deepEqual(slotNames('no slots'), []);
  });
});

describe('renderWithOutputs', () => {
  const inputs: FormInput[] = [
    { type: 'paragraph', output_variable_name: 'note', default: null },
    { type: 'select', output_variable_name: 'priority', option_source: { type: 'constant', selector: [], value: ['low', 'high'] } },
    { type: 'file', output_variable_name: 'attachment', allowed_file_types: ['image'], allowed_file_extensions: [], allowed_file_upload_methods: ['local_file'] },
    {
      type: 'file-list',
      output_variable_name: 'attachments',
      allowed_file_types: ['document'],
      allowed_file_extensions: [],
      allowed_file_upload_methods: ['remote_url'],
      number_limits: 5,
    },
  ];
  const file = { transfer_method: 'remote_url', url: 'https://example.com/a.pdf', type: 'document' };

  test('paragraph and select values replace their slots as text', () => {
    assert.equal(
      renderWithOutputs('Note: {{#$output.note#}} / {{#$output.priority#}}', inputs, { note: 'Looks good', priority: 'high' }),
      'Note: Looks good / high',
    );
  });

  test('a file renders as [file], a file list as [N files]', () => {
    assert.equal(
      renderWithOutputs('{{#$output.attachment#}} and {{#$output.attachments#}}', inputs, { attachment: file, attachments: [file, file, file] }),
      '[file] and [3 files]',
    );
    assert.equal(renderWithOutputs('{{#$output.attachments#}}', inputs, { attachments: [] }), '[0 files]');
  });

  test('null and missing values render as nothing', () => {
    assert.equal(renderWithOutputs('[{{#$output.note#}}]', inputs, { note: null }), '[]');
    assert.equal(renderWithOutputs('[{{#$output.note#}}]', inputs, {}), '[]');
    assert.equal(renderWithOutputs('[{{#$output.attachment#}}]', inputs, { attachment: null }), '[]');
  });

  test('a slot naming no input renders its value as text, or nothing', () => {
    assert.equal(renderWithOutputs('<{{#$output.unknown#}}>', inputs, { unknown: 'x' }), '<x>');
    assert.equal(renderWithOutputs('<{{#$output.unknown#}}>', inputs, {}), '<>');
  });

  test('non-string paragraph values are stringified like the real service', () => {
    assert.equal(renderWithOutputs('{{#$output.note#}}', inputs, { note: 42 }), '42');
    assert.equal(renderWithOutputs('{{#$output.note#}}', inputs, { note: true }), 'True');
    assert.equal(renderWithOutputs('{{#$output.note#}}', inputs, { note: { a: 1 } }), '{"a":1}');
  });

  test('every occurrence of a slot is replaced; everything else is untouched', () => {
    assert.equal(
      renderWithOutputs('{{#$output.note#}}|{{#start.x#}}|{{#$output.note#}}', inputs, { note: 'n' }),
      'n|{{#start.x#}}|n',
    );
  });
});

describe('substituteVariables', () => {
  const pool: Record<string, Record<string, unknown>> = {
    start: { user: 'Alice', count: 3, flag: false, nothing: null },
    draft: { text: 'Draft body', meta: { lang: 'en', tags: ['a'] } },
  };
  const resolve = (selector: string[]) => {
    let value: unknown = pool;
    for (const key of selector) value = (value as Record<string, unknown> | undefined)?.[key];
    return value;
  };

  test('substitutes workflow variables and keeps $output slots', () => {
    assert.equal(
      substituteVariables('Question for {{#start.user#}}: {{#$output.note#}}', resolve),
      'Question for Alice: {{#$output.note#}}',
    );
  });

  test('hands the resolver the selector path', () => {
    const seen: string[][] = [];
    substituteVariables('{{#draft.meta.lang#}} {{#sys.user_id#}}', (s) => {
      seen.push(s);
      return 'v';
    });
    assert.deepEqual(seen, [['draft', 'meta', 'lang'], ['sys', 'user_id']]);
  });

  test('stringifies numbers, booleans, objects and null', () => {
    assert.equal(substituteVariables('{{#start.count#}}', resolve), '3');
    assert.equal(substituteVariables('{{#start.flag#}}', resolve), 'False');
    assert.equal(substituteVariables('{{#draft.meta#}}', resolve), '{"lang":"en","tags":["a"]}');
    assert.equal(substituteVariables('[{{#start.nothing#}}]', resolve), '[]');
  });

  test('an unresolved reference stays as written', () => {
    assert.equal(substituteVariables('Hi {{#start.missing#}}!', resolve), 'Hi {{#start.missing#}}!');
    assert.equal(substituteVariables('{{#nowhere.x#}}', resolve), '{{#nowhere.x#}}');
  });

  test('text without a node.var reference is untouched and the resolver is not asked', () => {
    let calls = 0;
    const counting = () => {
      calls += 1;
      return 'x';
    };
    for (const text of ['plain', '{{#single#}}', '{{start.user}}', '{{#$output.a#}}']) {
      assert.equal(substituteVariables(text, counting), text);
    }
    assert.equal(calls, 0);
  });

  test('the real form of the demo: draft text substituted, slot kept', () => {
    const content = '> {{#draft.text#}}\n\n{{#$output.comments#}}';
    assert.equal(substituteVariables(content, resolve), '> Draft body\n\n{{#$output.comments#}}');
  });
});

test('stringifyValue follows the real service: null → "", objects → JSON, booleans Python-style', () => {
  assert.equal(stringifyValue(null), '');
  assert.equal(stringifyValue(undefined), '');
  assert.equal(stringifyValue('s'), 's');
  assert.equal(stringifyValue(1.5), '1.5');
  assert.equal(stringifyValue([1, 'a']), '[1,"a"]');
  assert.equal(stringifyValue(true), 'True');
});
