/** The form builder: a form's content as DOM, its inputs where its slots were, from a definition alone. */
import { expect } from '@open-wc/testing';
import '../../../src/elements/human-input-form/define.js';
import '../../../src/elements/hitl-file/define.js';
import { buildForm } from '../../../src/elements/human-input-form/form-builder.js';
import { closedAs, FormsController } from '../../../src/elements/human-input-form/forms.js';
import { Transport } from '../../../src/client/transport.js';
import { formParts } from '../../../src/elements/shared/lazy.js';
import { renderMarkdown, SLOT_TAG } from '../../../src/elements/shared/markdown.js';
import type { HumanInputFormDefinition } from '../../../src/protocol/index.js';

const def: HumanInputFormDefinition = {
  form_content: '# Review\n\n**Your comment**\n\n{{#$output.comment#}}\n\nPick one: {{#$output.size#}} and {{#$output.ghost#}}',
  inputs: [
    { type: 'paragraph', output_variable_name: 'comment', default: { type: 'constant', selector: [], value: 'constant text' } },
    { type: 'select', output_variable_name: 'size', option_source: { type: 'constant', selector: [], value: ['S', 'M'] } },
    { type: 'file', output_variable_name: 'scan_copy', allowed_file_types: ['image'], allowed_file_extensions: [], allowed_file_upload_methods: ['local_file'] },
  ],
  resolved_default_values: {},
  user_actions: [{ id: 'ok', title: 'OK', button_style: 'primary' }],
  expiration_time: null,
};
const transport = new Transport({ baseUrl: location.origin, credential: 'unused' });
const build = (over: Partial<HumanInputFormDefinition> = {}, draft: Record<string, string> = {}, labels?: Record<string, string>) =>
  buildForm({ renderMarkdown, SLOT_TAG }, { ...def, ...over }, { draft, labels, render: {}, transport });

describe('buildForm', () => {
  it('puts each input where its slot was, labelled by what stands before it, and the others after the content', () => {
    const { body, controls } = build();
    expect(body.getAttribute('part')).to.equal('content');
    expect(controls.map((c) => [c.localName, c.name, c.label, c.required])).to.deep.equal([
      ['hitl-paragraph', 'comment', 'Your comment', false],
      ['hitl-select', 'size', 'Pick one', true],
      ['hitl-file', 'scan_copy', 'Scan copy', true],
    ]);
    // The label is taken out of the content; a slot naming no input leaves nothing.
    expect(body.textContent).not.to.contain('Your comment');
    expect(body.querySelector(SLOT_TAG)).to.be.null;
    expect(body.lastElementChild).to.equal(controls[2]);
    expect(controls[0]!.getAttribute('exportparts')).to.contain('control:input');
  });

  it('pre-fills from a variable-backed default, else the constant one, and restores a draft over both', () => {
    expect(build().controls[0]!.defaultValue).to.equal('constant text');
    const resolved = build({ resolved_default_values: { comment: 'from a variable' } }).controls[0]!;
    expect(resolved.defaultValue).to.equal('from a variable');
    expect(resolved.state).to.equal('from a variable');
    expect(build({}, { comment: 'typed earlier' }).controls[0]!.state).to.equal('typed earlier');
  });

  it('takes labels given by name over those in the content', () => {
    expect(build({}, {}, { comment: 'Notes' }).controls[0]!.label).to.equal('Notes');
  });

  it('ignores a marker written in the content itself', () => {
    const { body, controls } = build({ form_content: `<${SLOT_TAG} data-name="comment" data-key="guess"></${SLOT_TAG}> {{#$output.comment#}}` });
    expect(controls.map((c) => c.name)).to.deep.equal(['comment', 'size', 'scan_copy']);
    expect(body.querySelectorAll('hitl-paragraph')).to.have.length(1);
  });
});

describe('FormsController.check and closedAs', () => {
  const host = { addController() {}, removeController() {}, requestUpdate() {}, updateComplete: Promise.resolve(true), draftStorage: 'none' as const, labels: {} };
  const forms = new FormsController(host, { transport: () => transport, render: () => ({}), expire() {}, edited() {} });

  it('clears the last refusal from every input, checks them all, and answers the first at fault', async () => {
    const open = forms.show({ renderMarkdown, SLOT_TAG }, 'token', 'Review', def);
    document.body.append(open.body);
    await Promise.all(open.controls.map((c) => c.updateComplete));
    const [comment, size] = open.controls;
    comment!.setCustomValidity('The service refused this.');
    // The select and the file input are required and empty: the select comes first.
    expect(forms.check(open)).to.equal(size);
    expect(comment!.checkValidity()).to.equal(true);
    forms.reset();
    open.body.remove();
  });

  it("prepares for a page's first form once, in idle time: a sample through the renderer with the form's own rules, the draft storage opened", async () => {
    const rendered: [string, unknown][] = [];
    const keys: string[] = [];
    const getItem = Storage.prototype.getItem;
    Storage.prototype.getItem = function (this: Storage, key: string) {
      keys.push(key);
      return getItem.call(this, key);
    };
    try {
      const record = (markdown: string, options?: object) => (rendered.push([markdown, options]), renderMarkdown(markdown, options));
      const local = new FormsController({ ...host, draftStorage: 'local' }, { transport: () => transport, render: () => ({ allowedOrigins: ['https://cdn.example.com'] }), expire() {}, edited() {} });
      local.prepare({ renderMarkdown: record, SLOT_TAG });
      // Not on the way of whatever called it.
      expect(rendered).to.have.length(0);
      await new Promise((resolve) => (globalThis.requestIdleCallback ?? setTimeout)(resolve));
      await new Promise((resolve) => setTimeout(resolve));
      expect(rendered).to.have.length(1);
      expect(rendered[0]![0]).to.include(`<${SLOT_TAG}>`);
      expect(rendered[0]![1]).to.deep.equal({ allowedOrigins: ['https://cdn.example.com'] });
      expect(keys).to.include('hitl-draft:');
      // Once per page, whichever form asks.
      local.prepare({ renderMarkdown: record, SLOT_TAG });
      forms.prepare({ renderMarkdown: record, SLOT_TAG });
      await new Promise((resolve) => setTimeout(resolve, 50));
      expect(rendered).to.have.length(1);
    } finally {
      Storage.prototype.getItem = getItem;
    }
  });

  it('closes a form whose answer was accepted as answered when the next form or the end comes first (a snapshot after a dropped stream replays no human_input_form_filled)', async () => {
    // The answered form's content is rendered with the parts the element loads.
    await formParts.load();
    const markdown = { renderMarkdown, SLOT_TAG };
    const titles = () => forms.closed.map((c) => [c.title, c.action, c.body.textContent!.includes('my comment')]);
    // The next form comes first.
    const first = forms.show(markdown, 'token-a', 'Review', def);
    forms.sent('ok', { comment: 'my comment', size: 'S' });
    forms.show(markdown, 'token-b', 'Second look', def);
    expect(forms.open!.token).to.equal('token-b');
    expect(titles()).to.deep.equal([['Review', 'OK', true]]);
    expect(forms.closed[0]!.body).to.not.equal(first.body);
    // The run's end comes first.
    forms.sent('ok', { comment: 'my comment', size: 'M' });
    forms.keep();
    expect(titles()).to.deep.equal([
      ['Review', 'OK', true],
      ['Second look', 'OK', true],
    ]);
    // Not accepted: kept as it was, unanswered, with what was typed.
    forms.show(markdown, 'token-c', 'Third', def);
    forms.keep();
    expect(forms.closed.at(-1)!.action).to.equal('');
    forms.reset();
  });

  it('names the phase of a form the service no longer takes', () => {
    expect(closedAs({ code: 'human_input_form_expired', message: '', status: 412 })).to.equal('expired');
    expect(closedAs({ code: 'human_input_form_submitted', message: '', status: 412 })).to.equal('taken');
  });
});
