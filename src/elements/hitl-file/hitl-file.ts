import { html, type PropertyDeclarations, type TemplateResult } from 'lit';
import type { ServiceError } from '../../client/errors.js';
import type { FileInput, FileReference, FileType, UploadedFile } from '../../protocol/index.js';
import { FILE_EXTENSIONS } from '../../protocol/files.js';
import { format, formatUnit, intlLocale, localeOf, type Terms } from '../shared/terms.js';
import { HitlControl } from '../shared/control.js';
import { said } from '../shared/errors.js';
import { toggleState } from '../shared/states.js';
import { styles } from './hitl-file.styles.js';

/** Uploads a local file and reports the fraction sent; aborting the signal cancels it. */
export type Uploader = (file: File, progress: (fraction: number) => void, signal: AbortSignal) => Promise<Pick<UploadedFile, 'id'>>;

/** A file of the input: being uploaded, failed, or done (then `ref` is what gets submitted). */
interface Item {
  name: string;
  /** Bytes; -1 for a link. */
  size: number;
  ref?: FileReference;
  file?: File;
  type?: FileType;
  progress?: number;
  error?: string;
  /** Refused as too large: sending it again cannot help. */
  big?: boolean;
  abort?: AbortController;
}

const extensionOf = (name: string): string => /\.([^./]+)$/.exec(name)?.[1]?.toLowerCase() ?? '';

/**
 * A file input that uploads as soon as a file is chosen, dropped or pasted, or takes a link:
 * allowed types, extensions and methods are enforced before anything is sent; each file shows
 * its progress and can be cancelled, retried or removed. Its value is the file reference the
 * form submission carries.
 *
 * @summary A form's file input.
 * @tag hitl-file
 *
 * @fires {Event} change - A file was added, uploaded, failed or removed.
 *
 * @csspart label - The visible label.
 * @csspart files - The group of everything below the label; its description says whether the input is required and why its value is invalid.
 * @csspart file - One file.
 * @csspart file-name - Its name.
 * @csspart file-size - Its size.
 * @csspart progress - Its upload progress bar.
 * @csspart file-error - Why its upload failed.
 * @csspart file-button - Its retry, cancel or remove button.
 * @csspart dropzone - Where files are dropped.
 * @csspart choose - The button that opens the file picker.
 * @csspart url - The link entry.
 * @csspart url-input - Its text field.
 * @csspart url-button - Its add button.
 * @csspart hint - Accepted types and limits.
 * @csspart error - The validation or server message.
 *
 * @cssproperty --hitl-accent - Focus ring, progress and drop highlight colour.
 * @cssproperty --hitl-border-color - Border colour.
 * @cssproperty --hitl-error-color - Colour of messages; default a red for light or dark `color-scheme`.
 * @cssproperty --hitl-muted-color - Colour of sizes and hints; default the text colour, faded.
 * @cssproperty --hitl-input-background - Background of the link field; default `Canvas`, which follows the page's `color-scheme`.
 * @cssproperty --hitl-input-color - Text colour of the link field; default `CanvasText`.
 * @cssproperty --hitl-button-background - Background of the buttons; default `Canvas`.
 * @cssproperty --hitl-button-color - Text colour of the buttons; default `CanvasText`.
 *
 * @cssstate user-invalid - The value was changed or submitted and cannot be submitted.
 * @cssstate dragging - Files are dragged over the drop zone.
 */
export class HitlFile extends HitlControl {
  static override styles = styles;
  static override properties: PropertyDeclarations = { ...HitlControl.properties, upload: { attribute: false } };

  #items: Item[] = [];
  #note = '';
  /** Whether focus was ours before a change that may remove the focused button or field. */
  #refocus = false;

  /** Sends a local file (the form sets one that uploads through its session); without it only links can be added. */
  upload: Uploader | undefined;

  /** The most files this input takes. */
  protected get max(): number {
    return 1;
  }

  /** The references of the files that are ready. */
  get files(): FileReference[] {
    return this.#items.flatMap((item) => (item.ref && !item.abort ? [item.ref] : []));
  }

  get value(): FileReference | FileReference[] | null {
    return this.files[0] ?? null;
  }

  get state(): string {
    return JSON.stringify(this.#items.filter((i) => i.ref).map(({ name, size, ref }) => ({ name, size, ref })));
  }

  protected override updated(): void {
    // The focused control went (the input filled up, a file removed): the nearest one takes it.
    if (this.#refocus && !this.shadowRoot!.activeElement) this.renderRoot.querySelector<HTMLElement>('[part=choose],[part=url-input],[part=file-button]')?.focus();
    this.#refocus = false;
  }

  restore(state: string): void {
    for (const item of this.#items) item.abort?.abort();
    try {
      this.#items = (JSON.parse(state) as Item[]).filter((i) => i.ref);
    } catch {
      this.#items = [];
    }
    this.requestUpdate();
  }

  get #config(): Partial<FileInput> {
    return (this.config ?? {}) as Partial<FileInput>;
  }

  /**
   * The kind a file of this extension is submitted as, or `undefined` when the input refuses it
   * (the service's rule: its kind is allowed, or `custom` is and the extension is listed; a list
   * without `custom` narrows the kinds).
   */
  #kindOf(extension: string): FileType | undefined {
    const { allowed_file_types: types = [], allowed_file_extensions: listed = [] } = this.#config;
    const kind = ((Object.keys(FILE_EXTENSIONS) as FileType[]).find((k) => FILE_EXTENSIONS[k as keyof typeof FILE_EXTENSIONS].includes(` ${extension} `)) ?? 'custom') as FileType;
    const custom = types.includes('custom');
    const isListed = listed.some((e) => e.toLowerCase() === `.${extension}`);
    // A file of no known kind counts as `custom`, which the listed extensions define.
    const byKind = !types.length || (types.includes(kind) && (kind !== 'custom' || !listed.length || isListed));
    if ((!byKind && !(custom && isListed)) || (!custom && listed.length && !isListed)) return undefined;
    return byKind ? kind : 'custom';
  }

  /** Extensions the input accepts (empty: any). */
  get #accepted(): string[] {
    const { allowed_file_types: types = [], allowed_file_extensions: listed = [] } = this.#config;
    const all = Object.values(FILE_EXTENSIONS).join('').split(' ').concat(listed.map((e) => e.slice(1).toLowerCase()));
    return types.length || listed.length ? [...new Set(all)].filter((e) => e && this.#kindOf(e)) : [];
  }

  /** Uploads under way or failed: each file shows its own state, so the input says it only on a submit. */
  get #pending(): boolean {
    return this.#items.some((i) => !i.ref || i.abort);
  }

  protected problem(t: Terms): string {
    if (this.#pending) return t.pending;
    return this.required && !this.#items.length ? t.required : '';
  }

  protected formValue(): FormData {
    const data = new FormData();
    for (const ref of this.files) data.append(this.name, JSON.stringify(ref));
    return data;
  }

  #add(files: Iterable<File>): void {
    this.#keepFocus();
    const t = this.terms;
    const refused: string[] = [];
    const over: string[] = [];
    for (const file of files) {
      const type = this.#kindOf(extensionOf(file.name));
      if (!type) refused.push(file.name);
      else if (this.#items.length >= this.max) over.push(file.name);
      else {
        const item: Item = { name: file.name, size: file.size, file, type };
        this.#items = [...this.#items, item];
        void this.#send(item);
      }
    }
    // Every file left out is named, with the reason.
    this.#note = [refused[0] && format(t.badType, refused.join(', ')), over[0] && format(t.notAdded, over.join(', '), this.max)].filter(Boolean).join(' ');
    this.changed('change');
  }

  async #send(item: Item): Promise<void> {
    const abort = (item.abort = new AbortController());
    item.error = '';
    item.progress = 0;
    this.changed('change');
    try {
      const { id } = await this.upload!(
        item.file!,
        (fraction) => {
          item.progress = fraction;
          this.requestUpdate();
        },
        abort.signal,
      );
      item.ref = { transfer_method: 'local_file', upload_file_id: id, type: item.type };
    } catch (error) {
      if (abort.signal.aborted) return;
      const { status, message } = error as ServiceError;
      // The relay and the service both end a 413's message with the limit in bytes.
      const limit = status === 413 && /(\d+)\D*$/.exec(message)?.[1];
      item.big = status === 413;
      item.error = limit ? format(this.terms.tooBig, size(intlLocale(localeOf(this)), +limit)) : said(error as ServiceError, this.terms.uploadFailed);
    }
    item.abort = undefined;
    this.changed('change');
  }

  #remove(item: Item): void {
    this.#keepFocus();
    item.abort?.abort();
    this.#items = this.#items.filter((i) => i !== item);
    this.changed('change');
  }

  #addLink(): void {
    this.#keepFocus();
    const field = this.renderRoot.querySelector<HTMLInputElement>('[type=url]')!;
    const t = this.terms;
    let url: URL | undefined;
    try {
      url = new URL(field.value.trim());
    } catch {
      // Reported below.
    }
    // Only the path's last segment names a file (a bare host is no file name).
    const last = url?.pathname.split('/').pop() ?? '';
    const name = last || url?.host || '';
    const extension = extensionOf(last);
    // A link without an extension is checked by the service when it fetches it.
    const type = extension ? this.#kindOf(extension) : undefined;
    this.#note = !url || !/^https?:$/.test(url.protocol) ? t.badUrl : extension && !type ? format(t.badType, name) : this.#items.length >= this.max ? format(t.notAdded, name, this.max) : '';
    if (!this.#note) {
      this.#items = [...this.#items, { name, size: -1, ref: { transfer_method: 'remote_url', url: url!.href, type } }];
      field.value = '';
    }
    this.changed('change');
  }

  #keepFocus(): void {
    this.#refocus = !!this.shadowRoot!.activeElement;
  }

  #drag(e: DragEvent): void {
    e.preventDefault();
    toggleState(this.internals, 'dragging', e.type === 'dragover');
    if (e.type === 'drop' && !this.disabled) this.#add(e.dataTransfer!.files);
  }

  protected override render(): TemplateResult {
    const t = this.terms;
    const locale = intlLocale(localeOf(this), this);
    const one = this.max < 2;
    const methods = this.#config.allowed_file_upload_methods ?? ['local_file', 'remote_url'];
    const local = this.upload && methods.includes('local_file');
    const accepted = this.#accepted;
    const uploading = this.#items.filter((i) => i.abort).length;
    const error = this.message('', this.#pending);
    // The group tells assistive tech what a native control's required and invalid would.
    return html`${this.renderLabel()}
      <div
        part="files"
        role="group"
        aria-labelledby="label"
        aria-describedby="required hint error"
        aria-invalid=${!!error}
        @paste=${(e: ClipboardEvent) => {
          const files = e.clipboardData?.files;
          if (local && !this.disabled && files?.length) {
            e.preventDefault();
            this.#add(files);
          }
        }}
      >
        ${this.#items.length
          ? html`<ul>
              ${this.#items.map(
                (item, i) =>
                  html`<li part="file">
                    <span part="file-name" id="f${i}">${item.name}</span>
                    ${item.size < 0 ? '' : html`<span part="file-size">${size(locale, item.size)}</span>`}
                    ${item.abort ? html`<progress part="progress" .value=${item.progress!} aria-labelledby="f${i}"></progress>` : ''}
                    ${item.error ? html`<span part="file-error">${item.error}</span>` : ''}
                    ${item.error && !item.big
                      ? html`<button type="button" part="file-button" aria-describedby="f${i}" ?disabled=${this.disabled} @click=${() => this.#send(item)}>${t.retry}</button>`
                      : ''}
                    <button type="button" part="file-button" aria-describedby="f${i}" ?disabled=${this.disabled} @click=${() => this.#remove(item)}>
                      ${item.abort ? t.cancel : t.remove}
                    </button>
                  </li>`,
              )}
            </ul>`
          : ''}
        ${this.#items.length >= this.max
          ? ''
          : html`${local
              ? html`<div part="dropzone" @dragover=${this.#drag} @dragleave=${this.#drag} @drop=${this.#drag}>
                  <button type="button" part="choose" ?disabled=${this.disabled} @click=${() => this.renderRoot.querySelector<HTMLInputElement>('[type=file]')!.click()}>${one ? t.chooseOne : t.choose}</button>
                  ${one ? t.dropOne : t.drop}
                  <input
                    type="file"
                    hidden
                    ?multiple=${this.max > 1}
                    accept=${accepted.map((e) => `.${e}`).join()}
                    @change=${(e: Event) => {
                      const input = e.target as HTMLInputElement;
                      this.#add(input.files!);
                      input.value = '';
                    }}
                  />
                </div>`
              : ''}
            ${methods.includes('remote_url')
              ? html`<div part="url">
                  <input type="url" dir="ltr" part="url-input" aria-label=${t.url} placeholder="https://" ?disabled=${this.disabled} @keydown=${(e: KeyboardEvent) => e.key === 'Enter' && (e.preventDefault(), this.#addLink())} />
                  <button type="button" part="url-button" ?disabled=${this.disabled} @click=${this.#addLink}>${t.add}</button>
                </div>`
              : ''}`}
        ${this.required ? html`<span id="required" hidden>${t.req}</span>` : ''}
        <div part="hint" id="hint">${accepted.length ? format(t.allowed, accepted.join(', ')) : ''} ${this.max > 1 && this.max < Infinity ? format(t.tooMany, this.max) : ''}</div>
        <div role="status">${uploading ? format(t.uploading, uploading) : ''}</div>
      </div>
      ${this.renderError(this.#note || error)}`;
  }
}

function size(locale: string, bytes: number): string {
  let unit = 0;
  while (bytes >= 1024 && unit < 3) (bytes /= 1024), unit++;
  // `74 bytes` (the short form reads `74 byte`), `1.4 MB`.
  return formatUnit(locale, bytes, ['byte', 'kilobyte', 'megabyte', 'gigabyte'][unit]!, !unit);
}
