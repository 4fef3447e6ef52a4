/** The inputs on their own: real form participation, validation, and files with real uploads through the relay. */
import { expect, fixture, html, waitUntil } from '@open-wc/testing';
import { render } from 'lit';
import '../../../src/elements/human-input-form/define.js';
// The form loads the file inputs with its parts (shared/lazy.ts); tests of the inputs alone register them.
import '../../../src/elements/hitl-file/define.js';
import '../../../src/elements/hitl-file-list/define.js';
import type { HitlFile } from '../../../src/elements/hitl-file/hitl-file.js';
import type { HitlFileList } from '../../../src/elements/hitl-file-list/hitl-file-list.js';
import type { HitlParagraph } from '../../../src/elements/hitl-paragraph/hitl-paragraph.js';
import type { HitlSelect } from '../../../src/elements/hitl-select/hitl-select.js';
import type { FileInput, FileListInput } from '../../../src/protocol/index.js';
import { SessionSource } from '../../../src/elements/shared/session.js';
import { uploadFile } from '../../../src/elements/shared/upload.js';
import { expectNoAxeViolations } from '../helpers/axe.js';
import { choose, inner, sessionUrl, type } from '../helpers/form.js';
import { until } from '../helpers/wait.js';
import { pasteFiles } from '../helpers/input.js';

const fileConfig = (over: Partial<FileListInput> = {}): FileListInput => ({
  type: 'file-list',
  output_variable_name: 'files',
  allowed_file_types: [],
  allowed_file_extensions: [],
  allowed_file_upload_methods: ['local_file', 'remote_url'],
  number_limits: 0,
  ...over,
});

/** Uploads through the relay of the fixture's `hitl-files` app (1 MB limit per file). */
const uploader = async (file: File, progress: (f: number) => void, signal: AbortSignal) =>
  uploadFile(await SessionSource.for(sessionUrl('hitl-files')).transport(), file, progress, signal);

const files = (...list: File[]) => {
  const transfer = new DataTransfer();
  for (const f of list) transfer.items.add(f);
  return transfer;
};

describe('the inputs', () => {
  it('take part in a plain form: values, validity, disabled fieldsets, reset', async () => {
    const form = await fixture<HTMLFormElement>(html`<form>
      <fieldset>
        <hitl-paragraph name="note" label="Note" .defaultValue=${'hello'}></hitl-paragraph>
        <hitl-select name="size" label="Size" required .options=${['S', 'M']}></hitl-select>
      </fieldset>
    </form>`);
    const note = form.querySelector<HitlParagraph>('hitl-paragraph')!;
    const size = form.querySelector<HitlSelect>('hitl-select')!;
    note.restore('hello');
    await Promise.all([note.updateComplete, size.updateComplete]);
    expect(note.form).to.equal(form);
    expect(form.checkValidity()).to.be.false;
    expect(size.validationMessage).to.equal('This field is required.');
    choose(size, 'M');
    type(note, 'changed');
    expect(form.checkValidity()).to.be.true;
    expect(Object.fromEntries(new FormData(form))).to.deep.equal({ note: 'changed', size: 'M' });
    form.querySelector('fieldset')!.disabled = true;
    await note.updateComplete;
    expect(inner<HTMLTextAreaElement>(note, 'textarea')!.disabled).to.be.true;
    expect(inner<HTMLSelectElement>(size, 'select')!.disabled).to.be.true;
    form.querySelector('fieldset')!.disabled = false;
    form.reset();
    expect(note.value).to.equal('hello');
    expect(size.value).to.equal('');
    // A saved value that is no longer an option (an old draft) is not restored.
    size.formStateRestoreCallback('XL');
    expect(size.value).to.equal('');
    size.formStateRestoreCallback('S');
    expect(size.value).to.equal('S');
    await expectNoAxeViolations(form);
  });

  it('grow a paragraph with its text, and show a server message until the value changes', async () => {
    const note = await fixture<HitlParagraph>(html`<hitl-paragraph name="n" label="N"></hitl-paragraph>`);
    const area = inner<HTMLTextAreaElement>(note, 'textarea')!;
    const before = area.offsetHeight;
    type(note, 'line\n'.repeat(8));
    await note.updateComplete;
    expect(area.offsetHeight).to.be.greaterThan(before);
    // By CSS (field-sizing) where the engine has it, not a measured inline height: that cost a
    // forced layout per input. Engines without it (Firefox, WebKit) are measured as the text changes.
    if (CSS.supports('field-sizing', 'content')) {
      expect(getComputedStyle(area).getPropertyValue('field-sizing')).to.equal('content');
      expect(area.style.height).to.equal('');
    }
    note.setCustomValidity('Invalid value: too long');
    await note.updateComplete;
    expect(inner(note, '[part~=error]')!.textContent).to.equal('Invalid value: too long');
    expect(note.checkValidity()).to.be.false;
    expect(area.getAttribute('aria-describedby')).to.equal('error');
    type(note, 'shorter');
    await note.updateComplete;
    expect(note.checkValidity()).to.be.true;
    expect(inner(note, '[part~=error]')!.textContent).to.equal('');
  });

  it('fit paragraphs given text by script together in the next frame, not each with a layout of its own as it renders', async function () {
    if (CSS.supports('field-sizing', 'content')) this.skip(); // CSS sizes them: nothing is measured
    const text = 'line\n'.repeat(6);
    const areas: HTMLTextAreaElement[] = [];
    // Each read of a textarea's height, and whether another had been given a height since the
    // last read (which makes the engine lay out again for this one).
    const reads: boolean[] = [];
    let given = areas.map(() => '');
    const descriptor = Object.getOwnPropertyDescriptor(Element.prototype, 'scrollHeight')!;
    Object.defineProperty(Element.prototype, 'scrollHeight', {
      configurable: true,
      get(this: Element) {
        const now = areas.map((a) => a.style.height);
        reads.push(now.some((h, i) => h && h !== given[i]));
        given = now;
        return descriptor.get!.call(this);
      },
    });
    const box = document.body.appendChild(document.createElement('div'));
    try {
      // Rendered by hand: a fixture would wait for a frame, and the fitting with it.
      render(html`${Array.from({ length: 20 }, (_, i) => html`<hitl-paragraph name=${`p${i}`} label="P" .value=${text}></hitl-paragraph>`)}`, box);
      const paragraphs = [...box.querySelectorAll<HitlParagraph>('hitl-paragraph')];
      await Promise.all(paragraphs.map((p) => p.updateComplete));
      areas.push(...paragraphs.map((p) => inner<HTMLTextAreaElement>(p, 'textarea')!));
      expect(reads, 'measured while rendering').to.deep.equal([]);
      await waitUntil(() => areas.every((a) => a.style.height), 'the paragraphs fitted');
      expect(reads.filter(Boolean), 'layouts forced between reads').to.deep.equal([]);
      const empty = await fixture<HitlParagraph>(html`<hitl-paragraph name="e" label="E"></hitl-paragraph>`);
      for (const area of areas) expect(area.offsetHeight).to.be.greaterThan(inner<HTMLTextAreaElement>(empty, 'textarea')!.offsetHeight);
    } finally {
      Object.defineProperty(Element.prototype, 'scrollHeight', descriptor);
      box.remove();
    }
  });

  it('upload a chosen file with progress, and give the form its reference', async () => {
    const form = await fixture<HTMLFormElement>(html`<form><hitl-file name="doc" label="Document" required></hitl-file></form>`);
    const input = form.querySelector<HitlFile>('hitl-file')!;
    input.config = { ...fileConfig({ allowed_file_types: ['document'] }), type: 'file' } as FileInput;
    input.upload = uploader;
    await input.updateComplete;
    // One file: the words say so.
    expect(inner(input, '[part~=choose]')!.textContent).to.equal('Choose a file');
    expect(inner(input, '[part~=dropzone]')!.textContent).to.contain('or drop or paste it here');
    expect(inner<HTMLInputElement>(input, '[type=file]')!.accept).to.contain('.pdf').and.contain('.md').and.not.contain('.png');
    expect(inner(input, '[part~=hint]')!.textContent).to.contain('Accepted: txt, markdown, md');
    const picker = inner<HTMLInputElement>(input, '[type=file]')!;
    picker.files = files(new File(['x'.repeat(300_000)], 'report.pdf', { type: 'application/pdf' })).files;
    picker.dispatchEvent(new Event('change'));
    await input.updateComplete;
    expect(inner(input, 'progress')).to.exist;
    expect(input.checkValidity()).to.be.false;
    expect(input.validationMessage).to.equal('Wait for the uploads to finish, or remove the failed ones.');
    await until(() => input.value, 'the upload');
    expect(input.value).to.include({ transfer_method: 'local_file', type: 'document' });
    expect(input.checkValidity()).to.be.true;
    expect(JSON.parse(new FormData(form).get('doc') as string)).to.deep.equal(input.value);
    await input.updateComplete;
    expect(inner(input, 'progress')).to.be.null;
    expect(inner(input, '[part~=file-size]')!.textContent).to.match(/29[0-9]\.\d kB|293 kB/);
    // A single-file input takes no second file until the first is removed.
    expect(inner(input, '[part~=dropzone]')).to.be.null;
    inner<HTMLButtonElement>(input, '[part~=file-button]')!.click();
    await input.updateComplete;
    expect(input.value).to.be.null;
    expect(inner(input, '[part~=dropzone]')).to.exist;
    // Small sizes in whole words.
    picker.files = files(new File(['x'.repeat(74)], 'short.md')).files;
    picker.dispatchEvent(new Event('change'));
    await input.updateComplete;
    expect(inner(input, '[part~=file-size]')!.textContent).to.equal('74 bytes');
  });

  it('keep the keyboard focus when a choice removes the focused button or field', async () => {
    const input = await fixture<HitlFile>(html`<hitl-file name="doc" label="Document"></hitl-file>`);
    input.config = { ...fileConfig(), type: 'file' } as FileInput;
    input.upload = uploader;
    await input.updateComplete;
    const active = () => input.shadowRoot!.activeElement;
    // A file chosen from the button: the button goes (the input is full), its row's button takes focus.
    inner<HTMLButtonElement>(input, '[part~=choose]')!.focus();
    const picker = inner<HTMLInputElement>(input, '[type=file]')!;
    picker.files = files(new File(['# x'], 'a.md')).files;
    picker.dispatchEvent(new Event('change'));
    await until(() => active()?.getAttribute('part') === 'file-button', 'focus on the file’s button');
    await until(() => input.value, 'the upload');
    // Removing it: the choose button comes back and takes focus.
    (active() as HTMLButtonElement).click();
    await until(() => active()?.getAttribute('part') === 'choose', 'focus back on choose');
    // A link added with Enter: the field goes, the new row's button takes focus.
    const field = inner<HTMLInputElement>(input, '[part~=url-input]')!;
    field.focus();
    field.value = 'https://example.com/cat.png';
    field.dispatchEvent(new KeyboardEvent('keydown', { key: 'Enter' }));
    await until(() => active()?.getAttribute('part') === 'file-button', 'focus on the link’s button');
  });

  it('take files dropped or pasted, refuse types and counts before uploading, and retry or remove a failed upload', async () => {
    const list = await fixture<HitlFileList>(html`<hitl-file-list name="files" label="Files"></hitl-file-list>`);
    list.config = fileConfig({ allowed_file_types: ['custom'], allowed_file_extensions: ['.md', '.txt'], number_limits: 2 });
    // Counts finished uploads, so the test waits for the retry itself rather than sampling the
    // short moment while it is in flight (a fast refusal can come and go between two looks).
    let settled = 0;
    list.upload = (file, progress, signal) => uploader(file, progress, signal).finally(() => settled++);
    await list.updateComplete;
    expect(inner(list, '[part~=choose]')!.textContent).to.equal('Choose files');
    const zone = inner(list, '[part~=dropzone]')!;
    zone.dispatchEvent(new DragEvent('dragover', { dataTransfer: files(), cancelable: true }));
    expect(list.matches(':state(dragging)')).to.be.true;
    zone.dispatchEvent(new DragEvent('drop', { dataTransfer: files(new File(['a'], 'a.md'), new File(['b'], 'b.exe')), cancelable: true }));
    expect(list.matches(':state(dragging)')).to.be.false;
    await list.updateComplete;
    // The .exe never left the browser.
    expect(inner(list, '[part~=error]')!.textContent).to.equal('b.exe: this file type is not accepted.');
    expect([...list.shadowRoot!.querySelectorAll('[part~=file-name]')].map((n) => n.textContent)).to.deep.equal(['a.md']);
    pasteFiles(inner(list, '[part~=files]')!, new File(['big'.repeat(400_000)], 'big.txt'));
    await list.updateComplete;
    // Over the app's 1 MB limit: the upload fails, saying the limit in megabytes, with nothing to retry.
    await until(() => list.shadowRoot!.querySelector('[part~=file-error]'), 'the failed upload');
    expect(inner(list, '[part~=file-error]')!.textContent).to.equal('Larger than the 1 MB limit.');
    const buttons = () => [...list.shadowRoot!.querySelectorAll<HTMLButtonElement>('[part~=file-button]')].map((b) => b.textContent!.trim());
    await until(() => list.files.length === 1, 'the small upload');
    expect(buttons()).to.deep.equal(['Remove', 'Remove']);
    expect(list.checkValidity()).to.be.false;
    // The failed file says so itself: no second message before a submit.
    await list.updateComplete;
    expect(inner(list, '[part~=error]')!.textContent).to.equal('');
    // Files past the number limit are named.
    pasteFiles(inner(list, '[part~=files]')!, new File(['c'], 'c.txt'), new File(['d'], 'd.md'));
    await list.updateComplete;
    expect(inner(list, '[part~=error]')!.textContent).to.equal('c.txt, d.md: not added (at most 2).');
    expect(inner(list, '[part~=files]')!.textContent).not.to.contain('At most 2 files. At most 2 files.');
    // Another failure can be retried or removed.
    list.shadowRoot!.querySelectorAll<HTMLButtonElement>('[part~=file-button]')[1]!.click();
    await list.updateComplete;
    pasteFiles(inner(list, '[part~=files]')!, new File(['e'], 'bad:name.md'));
    await until(() => list.shadowRoot!.querySelector('[part~=file-error]'), 'the refused name');
    expect(inner(list, '[part~=file-error]')!.textContent).to.equal('Filename contains invalid characters');
    expect(buttons()).to.deep.equal(['Remove', 'Try again', 'Remove']);
    const before = settled;
    list.shadowRoot!.querySelectorAll<HTMLButtonElement>('[part~=file-button]')[1]!.click();
    await list.updateComplete;
    await until(() => settled > before, 'the retry');
    await list.updateComplete;
    expect(buttons()).to.deep.equal(['Remove', 'Try again', 'Remove']);
    // Submitted now, the input would say why it cannot be.
    expect(list.reportValidity()).to.be.false;
    await list.updateComplete;
    expect(inner(list, '[part~=error]')!.textContent).to.equal('Wait for the uploads to finish, or remove the failed ones.');
    expect(inner(list, '[part~=files]')!.getAttribute('aria-invalid')).to.equal('true');
    list.shadowRoot!.querySelectorAll<HTMLButtonElement>('[part~=file-button]')[2]!.click();
    await list.updateComplete;
    expect(list.files).to.have.length(1);
    expect(list.checkValidity()).to.be.true;
    // Beside the picker, a link of a listed extension.
    inner<HTMLInputElement>(list, '[part~=url-input]')!.value = 'https://example.com/readme.md';
    inner<HTMLButtonElement>(list, '[part~=url-button]')!.click();
    expect(list.files[1]).to.deep.equal({ transfer_method: 'remote_url', url: 'https://example.com/readme.md', type: 'custom' });
    await expectNoAxeViolations(list);
  });

  it('cancel an upload in flight', async () => {
    const list = await fixture<HitlFileList>(html`<hitl-file-list name="files" label="Files"></hitl-file-list>`);
    list.config = fileConfig({ allowed_file_types: ['document'] });
    let signal: AbortSignal | undefined;
    list.upload = (file, progress, s) => {
      signal = s;
      return uploader(file, progress, s);
    };
    await list.updateComplete;
    pasteFiles(inner(list, '[part~=files]')!, new File(['x'.repeat(900_000)], 'slow.txt'));
    await list.updateComplete;
    const cancel = inner<HTMLButtonElement>(list, '[part~=file-button]')!;
    expect(cancel.textContent!.trim()).to.equal('Cancel');
    expect(inner(list, '[role=status]')!.textContent).to.equal('Uploading (1)…');
    cancel.click();
    await list.updateComplete;
    expect(signal!.aborted).to.be.true;
    expect(list.shadowRoot!.querySelector('li')).to.be.null;
    expect(list.value).to.deep.equal([]);
  });

  it('take links where the input allows them, and only then', async () => {
    const list = await fixture<HitlFileList>(html`<hitl-file-list name="pics" label="Pictures"></hitl-file-list>`);
    list.config = fileConfig({ allowed_file_types: ['image'], allowed_file_upload_methods: ['remote_url'], number_limits: 3 });
    list.upload = uploader;
    await list.updateComplete;
    // Links only: no picker, no drop zone.
    expect(inner(list, '[part~=dropzone]')).to.be.null;
    const field = inner<HTMLInputElement>(list, '[part~=url-input]')!;
    const add = (value: string) => {
      field.value = value;
      field.dispatchEvent(new KeyboardEvent('keydown', { key: 'Enter' }));
    };
    add('ftp://example.com/a.png');
    await list.updateComplete;
    expect(inner(list, '[part~=error]')!.textContent).to.equal('Enter a link starting with http:// or https://.');
    add('https://example.com/doc.pdf');
    await list.updateComplete;
    expect(inner(list, '[part~=error]')!.textContent).to.equal('doc.pdf: this file type is not accepted.');
    add('https://example.com/cat.png');
    add('https://example.com/photo');
    // A link with no file name (a host's root) is the service's to judge, named by its host.
    add('http://127.0.0.1:5273/');
    await list.updateComplete;
    expect(inner(list, '[part~=error]')!.textContent).to.equal('');
    expect(list.value).to.deep.equal([
      { transfer_method: 'remote_url', url: 'https://example.com/cat.png', type: 'image' },
      { transfer_method: 'remote_url', url: 'https://example.com/photo', type: undefined },
      { transfer_method: 'remote_url', url: 'http://127.0.0.1:5273/', type: undefined },
    ]);
    expect([...list.shadowRoot!.querySelectorAll('[part~=file-name]')].map((n) => n.textContent)).to.deep.equal(['cat.png', 'photo', '127.0.0.1:5273']);
    // Full: the entry is gone.
    expect(inner(list, '[part~=url-input]')).to.be.null;
  });
});
