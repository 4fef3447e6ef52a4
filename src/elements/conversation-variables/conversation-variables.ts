import { html, nothing, type PropertyDeclarations, type TemplateResult } from 'lit';
import type { Query } from '../../client/transport.js';
import { VARIABLE_MODES, type ConversationVariable } from '../../protocol/index.js';
import { PagedCompanion } from '../shared/companion.js';
import { said } from '../shared/errors.js';
import { styles } from './conversation-variables.styles.js';
import { BeforeVariableChangeEvent, VariableChangedEvent } from './events.js';
import { CONVERSATION_VARIABLE_PATH, CONVERSATION_VARIABLES_PATH } from '../../protocol/companion-paths.js';
import { pathOf } from '../../protocol/paths.js';

/**
 * The variables of one conversation, filtered by name and paged, each with an editor fitted to
 * its `value_type`; the service's own checks (a type mismatch) are shown at the field.
 *
 * @summary A conversation's variables, viewed and edited.
 * @tag conversation-variables
 *
 * @attr {string} session-url - URL of the host backend's session endpoint; elements naming the same URL share one session and one fetch of the app's web settings. Required: without it the element shows an error (`companion-error` code `session_url_missing`).
 * @attr {number} page-size - Items per page, 1 to 100 (default 20).
 *
 * @fires {BeforeVariableChangeEvent} before-variable-change - Cancelable, before a save; `detail` is `{variable, value}` (`BeforeVariableChangeEvent`).
 * @fires {VariableChangedEvent} variable-changed - A save succeeded; `detail` is the updated variable (`VariableChangedEvent`).
 * @fires {CompanionErrorEvent} companion-error - A failure, with `{code, message, status}` as `error` and `detail` (`CompanionErrorEvent`).
 *
 * @csspart container - The outer box.
 * @csspart filter - The name filter (inside its `label`).
 * @csspart list - The list of variables.
 * @csspart variable - One variable: its name, type, description, editor and save button.
 * @csspart name - A variable's name (its editor's label).
 * @csspart type - Its `value_type`.
 * @csspart description - Its description.
 * @csspart editor - Its editor (`input`, `textarea`), or the file list of a file variable.
 * @csspart save - Its save button.
 * @csspart field-error - An error at a field (a type mismatch, bad JSON, a bad filter).
 * @csspart empty - The status line in the empty state, where it says so (a part name besides `status`).
 * @csspart more - The "Load more" button.
 * @csspart row - A row of controls.
 * @csspart error - An error message.
 * @csspart retry - The retry button.
 * @csspart status - The announced status line.
 *
 * @cssproperty --hitl-accent - Accent colour (buttons, focus rings); default the app's `chat_color_theme`.
 * @cssproperty --hitl-accent-contrast - Text colour on the accent; default black or white, whichever reads better on the app's colour (white on the default blue).
 * @cssproperty --hitl-border-color - Borders.
 * @cssproperty --hitl-radius - Corner radius.
 * @cssproperty --hitl-padding - Padding of the box.
 * @cssproperty --hitl-background - Background of the box.
 * @cssproperty --hitl-input-background - Background of editors.
 * @cssproperty --hitl-button-background - Background of buttons.
 * @cssproperty --hitl-font - Font shorthand.
 * @cssproperty --hitl-color - Text colour.
 * @cssproperty --hitl-muted-color - Colour of descriptions, types and the status line.
 * @cssproperty --hitl-error-color - Colour of errors.
 *
 * @cssstate loading - A page is loading.
 * @cssstate ready - Variables are listed.
 * @cssstate empty - No conversation, or no variables (matching the filter).
 * @cssstate error - Loading failed; a retry button is shown.
 * @cssstate other-mode - The app's mode does not serve this element; it says so instead of its content.
 * @csspart other-mode - The status line then, where it says so (a part name besides `status`).
 */
export class ConversationVariables extends PagedCompanion<ConversationVariable> {
  static override styles = styles;
  static override properties: PropertyDeclarations = {
    conversationId: { attribute: 'conversation-id' },
    filter: {},
  };

  protected override reloadOn = ['sessionUrl', 'conversationId', 'filter', 'pageSize'];
  protected override modes = VARIABLE_MODES;
  protected override otherMode = 'appNoVariables' as const;
  /** Errors at fields, by variable id (`filter` for the filter). */
  #errors = new Map<string, string>();
  /** What was typed and not saved, by conversation and variable: a reload (a filter, a retry) must not lose it. */
  #drafts = new Map<string, string | boolean>();
  #debounce = 0;

  /** The conversation whose variables are shown. */
  conversationId = '';
  /** Shows only variables whose name contains this (letters, digits, `.`, `_`, `-`). */
  filter = '';

  /** The variables listed so far. */
  get variables(): readonly ConversationVariable[] {
    return this.items;
  }

  protected get emptyNote(): string {
    return this.conversationId ? this.t.noVariables : this.t.noConversation;
  }

  /** Lists from the first page again. */
  override reload(): Promise<void> {
    this.#errors.clear();
    return super.reload();
  }

  /** Saves `value` (of the variable's type) to a listed variable; a refusal is shown at its field. */
  async save(id: string, value: unknown): Promise<void> {
    const variable = this.items.find((v) => v.id === id);
    if (!variable || !this.dispatchEvent(new BeforeVariableChangeEvent({ variable, value }))) return;
    const run = this.run;
    this.#errors.delete(id);
    try {
      const updated = await (await this.api()).json<ConversationVariable>('PUT', pathOf(CONVERSATION_VARIABLE_PATH, this.conversationId, id), { json: { value } });
      if (run !== this.run) return;
      this.items = this.items.map((v) => (v.id === id ? updated : v));
      this.#drafts.delete(this.conversationId + id);
      this.say(this.t.saved);
      this.dispatchEvent(new VariableChangedEvent(updated));
    } catch (error) {
      if (run !== this.run) return;
      this.#errors.set(id, said(this.report(error), this.t.error));
      this.note = '';
      this.#focusError(id);
    }
    this.requestUpdate();
  }

  protected request(): [string, Query] | undefined {
    return this.conversationId ? [pathOf(CONVERSATION_VARIABLES_PATH, this.conversationId), { variable_name: this.filter || undefined }] : undefined;
  }

  /** The service's verdict on a filter belongs at the filter. */
  protected override failed(error: unknown): void {
    if (!this.filter || (error as { status?: number }).status !== 400) return this.fail(error);
    this.#errors.set('filter', said(this.report(error), this.t.error));
    this.note = '';
    this.set('empty');
  }

  #focusError(id: string): void {
    this.requestUpdate();
    void this.updateComplete.then(() => this.renderRoot.querySelector<HTMLElement>(`#v-${CSS.escape(id)}`)?.focus());
  }

  /** Reads a variable's editor and saves what it holds. */
  #submit(e: SubmitEvent, v: ConversationVariable): void {
    e.preventDefault();
    const control = (e.target as HTMLFormElement).elements.namedItem('value') as HTMLInputElement;
    const type = v.value_type;
    let value: unknown = control.value;
    if (type === 'boolean') value = control.checked;
    else if (type === 'number') {
      // Empty (or not a number, which reads as empty): the service would refuse it as a type mismatch.
      if (control.value === '') {
        this.#errors.set(v.id, this.t.badNumber);
        return this.#focusError(v.id);
      }
      value = control.valueAsNumber;
    }
    else if (type !== 'string' && type !== 'secret') {
      try {
        value = JSON.parse(control.value);
      } catch {
        this.#errors.set(v.id, this.t.badJson);
        return this.#focusError(v.id);
      }
    }
    void this.save(v.id, value);
  }

  /** Filters once typing pauses. */
  #onFilterInput(e: Event): void {
    const value = (e.target as HTMLInputElement).value.trim();
    clearTimeout(this.#debounce);
    this.#debounce = window.setTimeout(() => {
      // The service accepts names of these characters only; say so here rather than send it.
      if (value && !/^[\w.-]+$/.test(value)) {
        this.#errors.set('filter', this.t.badFilter);
      } else {
        this.#errors.delete('filter');
        this.filter = value;
      }
      this.requestUpdate();
    }, 300);
  }

  protected override render(): TemplateResult {
    const t = this.t;
    const filterError = this.#errors.get('filter');
    return this.frame(html`
      <label part="filter"
        >${t.filter}
        <input
          type="search"
          .value=${this.filter}
          maxlength="255"
          aria-invalid=${!!filterError}
          aria-describedby=${filterError ? 'e-filter' : nothing}
          @input=${this.#onFilterInput}
      /></label>
      ${filterError ? html`<p part="field-error" id="e-filter" role="alert">${filterError}</p>` : nothing}
      <ul part="list" aria-label=${t.variables} aria-busy=${this.state === 'loading'}>
        ${this.items.map((v) => html`<li part="variable">${this.#renderVariable(v)}</li>`)}
      </ul>
      ${this.renderPaging()}
    `);
  }

  #renderVariable(v: ConversationVariable): TemplateResult {
    const t = this.t;
    const type = v.value_type;
    const id = `v-${v.id}`;
    const error = this.#errors.get(v.id);
    const described = [v.description && `d-${v.id}`, error && `e-${v.id}`].filter(Boolean).join(' ') || nothing;
    const key = this.conversationId + v.id;
    const draft = this.#drafts.get(key);
    const value = draft ?? parse(v.value);
    const common = { id, described, error: !!error };
    let editor: TemplateResult;
    if (type.includes('file')) {
      const files = ([] as { filename?: string; url?: string; name?: string }[]).concat((value as never) ?? []);
      editor = html`<ul part="editor" id=${id} aria-labelledby="n-${v.id}" aria-describedby=${described} data-readonly>
        ${files.map((f) => html`<li>${f.filename || f.name || f.url || JSON.stringify(f)}</li>`)}
      </ul>`;
    } else if (type === 'boolean') editor = input(common, 'checkbox', '', value === true);
    else if (type === 'number') editor = input(common, 'number', String(value ?? ''));
    else if (type === 'secret') editor = input(common, 'password', String(draft ?? v.value ?? ''));
    else {
      const text = (draft as string | undefined) ?? (type === 'string' ? String(v.value ?? '') : JSON.stringify(value, null, 2));
      editor = html`<textarea
        part="editor"
        id=${id}
        name="value"
        rows=${Math.min(8, text.split('\n').length)}
        spellcheck=${type === 'string'}
        aria-invalid=${!!error}
        aria-describedby=${described}
        .value=${text}
      ></textarea>`;
    }
    const readOnly = type.includes('file');
    const typed = ({ target: t }: { target: HTMLInputElement }) => this.#drafts.set(key, t.type === 'checkbox' ? t.checked : t.value);
    return html`<form @submit=${(e: SubmitEvent) => this.#submit(e, v)} @input=${typed}>
      <div part="row">
        <label part="name" id="n-${v.id}" for=${id}>${v.name}</label>
        <code part="type">${type}</code>
        ${readOnly ? html`<span part="type">${t.readOnly}</span>` : nothing}
      </div>
      ${v.description ? html`<p part="description" id="d-${v.id}">${v.description}</p>` : nothing}
      <div part="row">
        ${editor}
        ${readOnly ? nothing : html`<button part="save" data-primary aria-label="${t.save}: ${v.name}">${t.save}</button>`}
      </div>
      ${error ? html`<p part="field-error" id="e-${v.id}">${error}</p>` : nothing}
    </form>`;
  }
}

function input(c: { id: string; described: unknown; error: boolean }, type: string, value: string, checked = false): TemplateResult {
  return html`<input
    part="editor"
    id=${c.id}
    name="value"
    type=${type}
    step="any"
    autocomplete="off"
    aria-invalid=${c.error}
    aria-describedby=${c.described}
    .value=${value}
    .checked=${checked}
  />`;
}

/** The listing carries non-string values as JSON text. */
function parse(value: unknown): unknown {
  if (typeof value !== 'string') return value;
  try {
    return JSON.parse(value);
  } catch {
    return value;
  }
}

declare global {
  interface HTMLElementEventMap {
    'before-variable-change': BeforeVariableChangeEvent;
    'variable-changed': VariableChangedEvent;
  }
}
