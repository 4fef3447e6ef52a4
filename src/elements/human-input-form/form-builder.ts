/**
 * A form's content as DOM: its Markdown with an input where each slot was, built from a form
 * definition alone (no element, no request). It loads with the Markdown renderer, apart from
 * the element (see `parts.ts`), as does its Markdown renderer, which it is given.
 */
import type { Transport } from '../../client/transport.js';
import { splitFormContent, type FormInput, type HumanInputFormDefinition } from '../../protocol/index.js';
import type { HitlFile } from '../hitl-file/hitl-file.js';
import type { HitlControl } from '../shared/control.js';
import type { RenderOptions } from '../shared/markdown.js';
import type { renderMarkdown as RenderMarkdown } from '../shared/markdown.js';
import { uploadFile } from '../shared/upload.js';

const INPUT_TAGS: Record<string, string> = {
  paragraph: 'hitl-paragraph',
  select: 'hitl-select',
  file: 'hitl-file',
  'file-list': 'hitl-file-list',
};

/** The inputs' parts, reachable as `human-input-form::part(…)`. */
const INPUT_PARTS = 'label,control:input,error:input-error,files,file,file-name,file-size,progress,file-error,file-button,dropzone,choose,url,url-input,url-button,hint';

/** The Markdown renderer, loaded apart from the element (see `parts.ts`). */
export interface Markdown {
  renderMarkdown: typeof RenderMarkdown;
  SLOT_TAG: string;
}

export interface BuildOptions {
  /** Labels by input name, over those found in the content. */
  labels?: Record<string, string> | null | undefined;
  /** Inputs' states saved from an earlier visit, by name. */
  draft: Record<string, string>;
  /** What the content may load. */
  render: RenderOptions;
  /** The relay that file inputs upload to. */
  transport: Transport;
}

/** A form's content (`part="content"`) and its inputs, in the order they appear. */
export interface BuiltForm {
  body: HTMLElement;
  controls: HitlControl[];
}

/** Builds the form `def` defines: its content with its inputs in place, values from `draft` or defaults. */
export function buildForm({ renderMarkdown, SLOT_TAG }: Markdown, def: HumanInputFormDefinition, options: BuildOptions): BuiltForm {
  const byName = new Map(def.inputs.map((input) => [input.output_variable_name, input]));
  // Each slot becomes a marker, so its input lands exactly where the slot was (in a list, a
  // table, mid-sentence); a slot that names no input renders nothing. The markers carry a key
  // the content cannot guess, so a marker written in the content never moves or relabels an input.
  const key = Math.random().toString(36).slice(2);
  const body = document.createElement('div');
  body.setAttribute('part', 'content');
  body.append(
    renderMarkdown(
      splitFormContent(def.form_content)
        .map((part) => (part.kind === 'markdown' ? part.text : byName.has(part.name) ? `<${SLOT_TAG} data-name="${part.name}" data-key="${key}"></${SLOT_TAG}>` : ''))
        .join(''),
      options.render,
    ),
  );
  const controls: HitlControl[] = [];
  const make = (input: FormInput, label?: string): HitlControl => {
    const name = input.output_variable_name;
    const control = document.createElement(INPUT_TAGS[input.type] ?? INPUT_TAGS.paragraph!) as HitlControl;
    control.name = name;
    control.config = input;
    // Only a paragraph may stay empty (the node's own rule).
    control.required = input.type !== 'paragraph';
    control.label = options.labels?.[name] || label || name.charAt(0).toUpperCase() + name.slice(1).replace(/_/g, ' ');
    control.defaultValue = defaultOf(def, input);
    control.restore(options.draft[name] ?? control.defaultValue);
    (control as HitlFile).upload = (file, progress, signal) => uploadFile(options.transport, file, progress, signal);
    control.setAttribute('exportparts', INPUT_PARTS);
    controls.push(control);
    byName.delete(name);
    return control;
  };
  for (const slot of body.querySelectorAll(SLOT_TAG)) {
    const input = slot.getAttribute('data-key') === key ? byName.get(slot.getAttribute('data-name')!) : undefined;
    if (input) slot.replaceWith(make(input, takeLabel(slot)));
    else slot.remove();
  }
  // Inputs the content never mentions come after it.
  for (const input of [...byName.values()]) body.append(make(input));
  return { body, controls };
}

/**
 * The label a slot's surroundings give it, taken out of the content: the heading or bold line
 * just before a slot that stands alone, or a short text ending in a colon just before it.
 */
function takeLabel(slot: Element): string | undefined {
  const parent = slot.parentElement!;
  let node: ChildNode | null = parent.localName === 'p' && !parent.textContent!.trim() ? parent : slot;
  do node = node.previousSibling;
  while (node && !node.textContent!.trim());
  const text = node?.textContent!.trim() ?? '';
  const strong = (e: Element | null | undefined) => /^(h\d|strong|b)$/.test(e?.localName ?? '');
  const element = node as Element;
  // Text only: a paragraph that also holds an image or a link is content, not a label.
  if (!text || text.length > 80 || element.querySelector?.(':not(strong,b,em,i,code)')) return undefined;
  if (!(strong(element) || (element.localName === 'p' && element.childNodes.length === 1 && strong(element.firstElementChild)) || /[:：]$/.test(text))) return undefined;
  node!.remove();
  return text.replace(/\s*[:：]$/, '');
}

/**
 * A paragraph's pre-filled text: its variable's value, which only `resolved_default_values`
 * holds, else its constant `default.value` (never resolved by the real service; §2.4).
 */
function defaultOf(def: HumanInputFormDefinition, input: FormInput): string {
  const constant = input.type === 'paragraph' && input.default?.type === 'constant' ? input.default.value : '';
  return def.resolved_default_values?.[input.output_variable_name] ?? constant ?? '';
}
