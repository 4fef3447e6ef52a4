// What `custom-elements.json` (generated from the elements' JSDoc) turns into: the API reference
// (docs/api.md), the React 19 JSX typings (dist/types/react.d.ts) and the Vue 3 typings
// (dist/types/vue.d.ts). All are derived for every element in the manifest, so a new element
// needs nothing here. (The IDE data and the Svelte, Solid and JSX typings come from the wc-toolkit
// generators, plugins in custom-elements-manifest.config.mjs.)
//
// `node scripts/api-reference.mjs` rewrites docs/api.md from the committed manifest (`npm run
// analyze` does this after refreshing the manifest).
import { readFileSync, writeFileSync, mkdirSync } from 'node:fs';
import { dirname } from 'node:path';

export const API_REFERENCE = 'docs/api.md';
const PACKAGE = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8'));

/** The manifest's custom elements, with the module each one lives in. */
export function elementsOf(manifest) {
  const tags = new Set();
  return manifest.modules
    .flatMap((module) => (module.declarations ?? []).map((declaration) => ({ module, declaration })))
    // Only a module's exported classes: the analyzer also lists the anonymous subclasses a define
    // module registers (`define(tag, class extends X {})`), under made-up names and tags.
    .filter(({ module, declaration }) => declaration.customElement && declaration.tagName && (module.exports ?? []).some((e) => e.name === declaration.name))
    .filter(({ declaration }) => !tags.has(declaration.tagName) && tags.add(declaration.tagName))
    .map(({ module, declaration }) => {
      const members = declaration.members ?? [];
      const isPublic = (m) => !m.privacy && !m.static && !m.name.startsWith('#');
      const folder = dirname(module.path);
      const defineModule = manifest.modules.find((m) => m.path === `${folder}/define.js`);
      return {
        tag: declaration.tagName,
        className: declaration.name,
        summary: declaration.summary ?? '',
        description: declaration.description ?? '',
        modulePath: module.path,
        attributes: declaration.attributes ?? [],
        properties: members.filter((m) => m.kind === 'field' && isPublic(m)),
        methods: members.filter((m) => m.kind === 'method' && isPublic(m)),
        // The analyzer also lists the events it infers from `dispatchEvent` calls, named after the
        // constructor's first argument; only the documented (`@fires`) ones carry real names.
        events: (declaration.events ?? [])
          .filter((e) => e.name && e.description)
          .map((e) => {
            const className = eventClass(e);
            const declaredIn = manifest.modules.find((m) => (m.declarations ?? []).some((d) => d.kind === 'class' && d.name === className));
            return { ...e, className, classModule: declaredIn?.path };
          }),
        slots: declaration.slots ?? [],
        cssParts: declaration.cssParts ?? [],
        cssProperties: declaration.cssProperties ?? [],
        cssStates: declaration.cssStates ?? [],
        defineFunctions: (defineModule?.declarations ?? []).filter((d) => d.kind === 'function'),
        classExport: exportFor(module.path),
        defineExport: exportFor(`${folder}/define.js`),
      };
    });
}

/** The package export (`hitl-elements/…`) whose ESM file is `modulePath` (the manifest names shipped files), if any. */
function exportFor(modulePath) {
  const built = `./${modulePath}`;
  const entry = Object.entries(PACKAGE.exports).find(([, target]) => (typeof target === 'string' ? target : target.import) === built);
  return entry ? `${PACKAGE.name}${entry[0].slice(1)}` : undefined;
}

const cell = (text = '') => String(text).replace(/\s*\n\s*/g, ' ').replace(/\|/g, '\\|');
const code = (text) => (text ? `\`${cell(text)}\`` : '');
/** The event's class: its type without type arguments (`CompanionEvent<Conversation>` → `CompanionEvent`). */
const eventClass = (event) => event.type?.text.replace(/<.*$/, '');

function table(headings, rows) {
  if (!rows.length) return [];
  return [`| ${headings.join(' | ')} |`, `| ${headings.map(() => '---').join(' | ')} |`, ...rows.map((r) => `| ${r.join(' | ')} |`), ''];
}

function section(title, headings, rows) {
  return rows.length ? [`### ${title}`, '', ...table(headings, rows)] : [];
}

/** docs/api.md: every element's attributes, properties, methods, events, slots, parts, CSS properties and states. */
export function apiMarkdown(manifest) {
  const elements = elementsOf(manifest);
  const lines = [
    '# API reference',
    '',
    '<!-- Generated from custom-elements.json by scripts/api-reference.mjs (`npm run analyze` or `npm run build`); do not edit. -->',
    '',
    ...elements.map((e) => `- [\`<${e.tag}>\`](#${e.tag})${e.summary ? `: ${cell(e.summary)}` : ''}`),
    '',
  ];
  for (const e of elements) {
    const attributeFields = new Set(e.attributes.map((a) => a.fieldName));
    lines.push(`## <a id="${e.tag}"></a>\`<${e.tag}>\``, '');
    if (e.summary) lines.push(`**${e.summary.trim()}**`, '');
    if (e.description) lines.push(e.description.trim(), '');
    const imports = [];
    if (e.defineExport) imports.push(`import '${e.defineExport}';            // registers <${e.tag}>`);
    if (e.classExport) imports.push(`import { ${e.className} } from '${e.classExport}';  // the class alone, no side effects`);
    if (imports.length) lines.push('```js', ...imports, '```', '');
    for (const fn of e.defineFunctions) {
      const params = (fn.parameters ?? []).map((p) => `${p.name}${p.default ? ` = ${p.default}` : ''}`).join(', ');
      lines.push(`\`${fn.name}(${params})\`${fn.description ? `: ${cell(fn.description)}` : ''}`, '');
    }
    lines.push(
      ...section(
        'Attributes',
        ['Attribute', 'Property', 'Type', 'Default', 'Description'],
        e.attributes.map((a) => [code(a.name), code(a.fieldName), code(a.type?.text), code(a.default), cell(a.description)]),
      ),
      ...section(
        'Properties',
        ['Property', 'Type', 'Default', 'Description'],
        e.properties
          .filter((p) => !attributeFields.has(p.name))
          .map((p) => [code(p.name) + (p.readonly ? ' (read-only)' : ''), code(p.type?.text), code(p.default), cell(p.description)]),
      ),
      ...section(
        'Methods',
        ['Method', 'Returns', 'Description'],
        e.methods.map((m) => [
          code(`${m.name}(${(m.parameters ?? []).map((p) => `${p.name}${p.optional ? '?' : ''}: ${p.type?.text ?? 'unknown'}`).join(', ')})`),
          code(m.return?.type?.text),
          cell(m.description),
        ]),
      ),
      ...section(
        'Events',
        ['Event', 'Type', 'Description'],
        // The class named in the description moves to its own column.
        e.events.map((ev) => [code(ev.name), code(ev.type?.text), cell(ev.description.replace(/\s*\(`\w+Event`\)/, ''))]),
      ),
      ...section('Slots', ['Slot', 'Description'], e.slots.map((s) => [s.name ? code(s.name) : '(default)', cell(s.description)])),
      ...section('CSS parts', ['Part', 'Description'], e.cssParts.map((p) => [code(p.name), cell(p.description)])),
      ...(e.cssProperties.some((p) => p.default)
        ? section('CSS custom properties', ['Property', 'Default', 'Description'], e.cssProperties.map((p) => [code(p.name), code(p.default), cell(p.description)]))
        : section('CSS custom properties', ['Property', 'Description'], e.cssProperties.map((p) => [code(p.name), cell(p.description)]))),
      ...section('CSS states', ['State', 'Description'], e.cssStates.map((s) => [code(`:state(${s.name})`), cell(s.description)])),
    );
  }
  return `${lines.join('\n').trimEnd()}\n`;
}

const typeName = (tag) => tag.replace(/(^|-)(\w)/g, (_, __, c) => c.toUpperCase());

/**
 * dist/types/react.d.ts: `<tag>` props for React 19 JSX. React 19 sets a prop as a property when
 * the element has one (so `inputs={{…}}` passes an object) and as an attribute otherwise, and
 * `on<event-name>` adds a listener for exactly `event-name`.
 */
export function reactTypings(manifest) {
  const elements = elementsOf(manifest);
  const lines = [
    '// Generated from custom-elements.json by scripts/api-reference.mjs: JSX typings for React 19.',
    "// Use: `import type {} from 'hitl-elements/react';` once in your app (or list it in tsconfig \"types\").",
    "import type { DetailedHTMLProps, HTMLAttributes } from 'react';",
    ...typeHeader(elements),
    '',
    '/**',
    " * A custom element's React props: its attributes, its writable properties, and `on<event-name>`",
    ' * listeners. The attributes documented as required are required: TypeScript checks no unknown',
    ' * hyphenated JSX attribute, so a misspelled `session-url` is caught as the required one missing.',
    ' */',
    'export type CustomElementProps<E extends HTMLElement, Attributes extends string, Fields extends { [A in Attributes]: keyof E }, Properties extends keyof E, Events extends object, Required extends Attributes = never> = Omit<',
    '  DetailedHTMLProps<HTMLAttributes<E>, E>,',
    '  Attributes | Properties | `on${keyof Events & string}`',
    '> & { [A in Exclude<Attributes, Required>]?: AttributeValue<E[Fields[A]]> } & { [A in Required]: AttributeValue<E[Fields[A]]> } & { [P in Properties]?: E[P] } & { [K in keyof Events & string as `on${K}`]?: (event: Events[K]) => void };',
    '',
  ];
  for (const e of elements) {
    const attributeFields = new Set(e.attributes.map((a) => a.fieldName));
    // Attributes named like their property are set as properties by React: typed as the property.
    const kebab = e.attributes.filter((a) => a.fieldName && a.name !== a.fieldName);
    const properties = e.properties.filter((p) => !p.readonly).map((p) => p.name);
    for (const f of attributeFields) if (f && !properties.includes(f)) properties.push(f);
    const union = (names) => (names.length ? names.map((n) => `'${n}'`).join(' | ') : 'never');
    lines.push(
      `/** \`<${e.tag}>\`${e.summary ? `: ${e.summary.trim()}` : ''} */`,
      `export type ${typeName(e.tag)}Props = CustomElementProps<`,
      `  ${e.className},`,
      `  ${union(kebab.map((a) => a.name))},`,
      `  { ${kebab.map((a) => `'${a.name}': '${a.fieldName}'; `).join('')}},`,
      `  ${union(properties)},`,
      `  { ${e.events.map((ev) => `'${ev.name}': ${eventType(ev)}; `).join('')}},`,
      `  ${union(kebab.filter(isRequired).map((a) => a.name))}`,
      '>;',
      '',
    );
  }
  lines.push(
    "declare module 'react' {",
    '  namespace JSX {',
    '    interface IntrinsicElements {',
    ...elements.map((e) => `      '${e.tag}': ${typeName(e.tag)}Props;`),
    '    }',
    '  }',
    '}',
    '',
  );
  return lines.join('\n');
}

/** `.d.ts` lines both framework typings start with: the classes they name, and the value types. */
function typeHeader(elements) {
  // Each event is typed by its own class where the manifest names one, else by the global
  // HTMLElementEventMap (which the element modules extend), else as a plain Event.
  const toBuilt = (path) => `./${path.replace(/^dist\//, '')}`;
  const imports = new Map();
  const use = (name, path) => imports.set(toBuilt(path), [...new Set([...(imports.get(toBuilt(path)) ?? []), name])]);
  for (const e of elements) {
    use(e.className, e.modulePath);
    for (const ev of e.events) if (ev.classModule) use(ev.className, ev.classModule);
  }
  return [
    ...[...imports].map(([path, names]) => `import type { ${names.join(', ')} } from '${path}';`),
    '',
    // A string-literal union (`draft-storage`) stays that union, so a value outside it does not compile.
    'type AttributeValue<T> = T extends boolean ? boolean : T extends number ? number | `${number}` : T extends string ? T : string;',
    'type EventOf<K extends string> = K extends keyof HTMLElementEventMap ? HTMLElementEventMap[K] : Event;',
  ];
}

const eventType = (ev) => (ev.classModule ? ev.className : `EventOf<'${ev.name}'>`);
/** Attributes whose description says `Required:` (an element without them shows an error). */
const isRequired = (attribute) => /\bRequired:/.test(attribute.description ?? '');
const camel = (name) => name.replace(/-(\w)/g, (_, c) => c.toUpperCase());
const doc = (text) => (text ? `  /** ${text.trim().replace(/\*\//g, '*\\/').replace(/\s*\n\s*/g, ' ')} */` : undefined);

/**
 * dist/types/vue.d.ts: every tag in Vue's `GlobalComponents`, so vue-tsc checks templates. Vue
 * normalizes `session-url` to `sessionUrl` and `@form-shown` to `onFormShown` before it checks
 * them, so the props are camelCase; a required attribute is required, and with
 * `strictTemplates` an unknown one is an error.
 */
export function vueTypings(manifest) {
  const elements = elementsOf(manifest);
  const lines = [
    '// Generated from custom-elements.json by scripts/api-reference.mjs: Vue 3 typings (GlobalComponents).',
    "// Use: `import type {} from 'hitl-elements/vue';` once in your app (e.g. in env.d.ts).",
    "import type { DefineComponent } from 'vue';",
    ...typeHeader(elements),
    '',
  ];
  for (const e of elements) {
    const props = [];
    const seen = new Set();
    for (const a of e.attributes) {
      const field = a.fieldName ?? camel(a.name);
      seen.add(field);
      // Vue sets a bound value as the property when the element has one (`:inputs="{…}"`).
      props.push(doc(a.description), `  ${field}${isRequired(a) ? '' : '?'}: ${e.className}['${field}'] | AttributeValue<${e.className}['${field}']>;`);
    }
    for (const p of e.properties.filter((p) => !p.readonly && !seen.has(p.name))) props.push(doc(p.description), `  ${p.name}?: ${e.className}['${p.name}'];`);
    for (const ev of e.events) props.push(doc(ev.description), `  on${camel(`-${ev.name}`)}?: (event: ${eventType(ev)}) => void;`);
    lines.push(`/** \`<${e.tag}>\`${e.summary ? `: ${e.summary.trim()}` : ''} */`, `export interface ${typeName(e.tag)}Props {`, ...props.filter(Boolean), '}', '');
  }
  lines.push("declare module 'vue' {", '  interface GlobalComponents {', ...elements.map((e) => `    '${e.tag}': DefineComponent<${typeName(e.tag)}Props>;`), '  }', '}', '');
  return lines.join('\n');
}

/** Writes `content` to `file`, creating its folder. */
export function write(file, content) {
  mkdirSync(dirname(file), { recursive: true });
  writeFileSync(file, content);
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const manifest = JSON.parse(readFileSync('custom-elements.json', 'utf8'));
  write(API_REFERENCE, apiMarkdown(manifest));
  console.log(`Wrote ${API_REFERENCE}`);
}
