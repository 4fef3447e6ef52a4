/**
 * The script-tag bundle: `hitl-elements.js`, a classic script that registers the tags when loaded
 * and holds only what a form needs before its first request; one chunk beside it with the rest
 * (Markdown and its sanitizer, the file inputs, the companions), which it starts fetching at once;
 * and one small file per shipped locale (loaded on demand). The ESM package itself is emitted by
 * `tsc -p tsconfig.build.json`.
 */
import MagicString from 'magic-string';
import { transform as transformCss } from 'lightningcss';
import { createHash } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import { relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { minify } from 'terser';
import { defineConfig, parseAst, transformWithOxc, type Plugin } from 'vite';

export const ENTRY = 'hitl-elements.js';

const src = (path: string) => fileURLToPath(new URL(`src/elements/${path}`, import.meta.url));

/**
 * Minifies the CSS of Lit `css` templates (the `*styles.ts` modules, which interpolate nothing)
 * with lightningcss: the bundle has a size budget, and template text is left alone by JS
 * minifiers.
 */
function minifyLitCss(): Plugin {
  return {
    name: 'hitl:minify-lit-css',
    transform(code, id) {
      if (!id.endsWith('styles.ts')) return undefined;
      const out = code.replace(/\bcss`([^`$\\]*)`/g, (_, text: string) => {
        const minified = transformCss({ filename: id, code: Buffer.from(text), minify: true }).code.toString();
        return `css\`${minified}\``;
      });
      return { code: out, map: null };
    },
  };
}

/**
 * Collapses the line breaks and indentation in Lit `html` templates of the elements to one space,
 * which renders the same (no template holds text in `<pre>` or a `<textarea>`), and writes static
 * attribute values of name characters unquoted (`part=status`), which HTML and Lit's template
 * parser read the same: JS minifiers leave template text alone, and the bundle has a size budget.
 */
function minifyLitHtml(): Plugin {
  // ` name="value"` before a space or the tag's end; never before `/` (`a=b/>` would read `b/`).
  const UNQUOTABLE = /(\s[\w.:?@-]+)="([\w-]+)"(?=[\s>])/g;
  return {
    name: 'hitl:minify-lit-html',
    transform(code, id) {
      if (!id.includes('/src/elements/') || !id.endsWith('.ts') || !code.includes('html`')) return undefined;
      const spans: { start: number; end: number }[] = [];
      const visit = (node: unknown): void => {
        if (!node || typeof node !== 'object') return;
        const n = node as { type?: string; tag?: { type: string; name?: string }; quasi?: { quasis: { start: number; end: number }[] } };
        if (n.type === 'TaggedTemplateExpression' && n.tag?.type === 'Identifier' && n.tag.name === 'html') spans.push(...n.quasi!.quasis);
        for (const value of Object.values(node)) visit(value);
      };
      visit(parseAst(code, { lang: 'ts' }));
      // Each quasi's span includes its delimiters (`, ${, }), none of which holds a line break.
      let out = '';
      let at = 0;
      for (const { start, end } of spans.sort((a, b) => a.start - b.start)) {
        out += code.slice(at, start) + code.slice(start, end).replace(/[ \t]*\n\s*/g, ' ').replace(UNQUOTABLE, '$1=$2');
        at = end;
      }
      return { code: out + code.slice(at), map: null };
    },
  };
}

/**
 * marked's module ends with its default instance (`marked`, `marked.use`, `marked.setOptions`, …):
 * statements that assign properties to a function, which the bundler must keep as side effects,
 * and with them the whole `Marked` class (hooks, extensions, `walkTokens`; 1.7 kB gzip). The
 * elements call `Lexer` and `Parser` themselves (shared/markdown.ts), so the bundle takes the module
 * up to that instance. Fails the build if the module no longer has that shape, or if the bundle
 * imports a name that was cut.
 */
function markedWithoutDefaultInstance(): Plugin {
  const file = /\/node_modules\/marked\/lib\/marked\.esm\.js$/;
  const kept = new Set(['Lexer', 'Parser', 'Tokenizer', 'Renderer', 'TextRenderer', 'Hooks', 'getDefaults', 'defaults']);
  type Node = { type: string; start: number; end: number; [key: string]: unknown };
  return {
    name: 'hitl:marked-without-default-instance',
    transform(code, id) {
      // The bundle's marked runs with the options withFoldedOptions assumes: no element may set them.
      const option = new RegExp(`\\b(?:${Object.keys(FOLDED_OPTIONS).join('|')})\\s*:`).exec(code);
      if (/\/src\/.+\.ts$/.test(id) && /from 'marked'/.test(code) && option) {
        return this.error(`${id} sets marked's ${option[0]} option, which the script-tag bundle folds away (withFoldedOptions in vite.config.ts)`);
      }
      if (!file.test(id)) return undefined;
      const fail = (why: string) => this.error(`marked's module changed shape (${why}): update markedWithoutDefaultInstance in vite.config.ts`);
      const body = (parseAst(code) as unknown as { body: Node[] }).body;
      const exported = body.at(-1);
      if (exported?.type !== 'ExportNamedDeclaration') return fail('it no longer ends with one export list');
      const specifiers = (exported.specifiers as { local: { name: string }; exported: { name: string } }[]).map((s) => ({ local: s.local.name, name: s.exported.name }));
      const markedClass = specifiers.find((s) => s.name === 'Marked')?.local;
      const instance = body.findIndex(
        (n) => n.type === 'VariableDeclaration' && (n.declarations as { init?: Node & { callee?: { name?: string } } }[]).some((d) => d.init?.type === 'NewExpression' && d.init.callee?.name === markedClass),
      );
      if (!markedClass || instance < 0) return fail('no `new Marked` at its top level');
      // What the rest of the module declared before the instance, and so can still export.
      const declared = new Set<string>();
      for (const n of body.slice(0, instance)) {
        if (n.type === 'VariableDeclaration') for (const d of n.declarations as { id: { name?: string } }[]) d.id.name && declared.add(d.id.name);
        else if (n.type === 'FunctionDeclaration' || n.type === 'ClassDeclaration') declared.add((n.id as { name: string }).name);
      }
      const exports = specifiers.filter((s) => kept.has(s.name));
      if (exports.length !== kept.size || exports.some((s) => !declared.has(s.local))) return fail('a kept export is declared after the default instance');
      const list = exports.map((s) => `${s.local} as ${s.name}`).join(',');
      const head = new MagicString(code.slice(0, body[instance]!.start));
      const cut = withoutPedanticRules(head, body.slice(0, instance), code) ?? withFoldedOptions(head, code.slice(0, body[instance]!.start));
      if (cut) return fail(cut);
      return { code: `${head.toString()}export{${list}};\n`, map: null };
    },
  };
}

/**
 * marked's rule tables for `pedantic: true` (block and inline), and the rules only they use (1.6 kB
 * raw, about 0.5 kB gzip): the elements never set it (shared/markdown.ts asks for `gfm` and
 * `breaks`), and the tables are built at import, by calls no minifier can drop. Cut from `out` (the
 * module's text up to its default instance, `body` its statements), with the `pedantic` entries of
 * the two table maps (the lexer picks its tables from those maps only). Answers why it cannot, if
 * the module changed shape.
 */
function withoutPedanticRules(out: MagicString, body: { type: string; [key: string]: unknown }[], code: string): string | undefined {
  type Node = { type: string; start: number; end: number; [key: string]: unknown };
  type Declarator = Node & { id: { name?: string }; init?: Node & { properties?: (Node & { key?: { name?: string }; value: Node & { name?: string } })[] } };
  const declarators = body.flatMap((n) => (n.type === 'VariableDeclaration' ? (n.declarations as Declarator[]) : []));
  const maps = declarators.filter((d) => d.init?.type === 'ObjectExpression' && d.init.properties!.some((p) => p.key?.name === 'pedantic') && d.init.properties!.some((p) => p.key?.name === 'gfm'));
  if (maps.length !== 2) return 'not two rule maps with gfm and pedantic tables';
  // marked's regex builder: `edit(source, flags).replace(…).getRegex()`, no side effects.
  const builder = body.find((n) => n.type === 'FunctionDeclaration' && /getRegex:/.test(code.slice(n.start, n.end))) as (Node & { id: { name: string } }) | undefined;
  if (!builder) return 'no regex builder with getRegex';
  const cut: [number, number][] = [];
  // Where each name is read or declared (property names aside), to count what is left of it.
  const names = new Map<string, number[]>();
  const visit = (node: unknown, skip?: unknown): void => {
    if (!node || typeof node !== 'object') return;
    const n = node as Node & { name?: string; computed?: boolean; shorthand?: boolean; property?: Node; key?: Node };
    if (n.type === 'Identifier' && node !== skip) names.set(n.name!, [...(names.get(n.name!) ?? []), n.start]);
    const notRead = (n.type === 'MemberExpression' && !n.computed && n.property) || (n.type === 'Property' && !n.computed && !n.shorthand && n.key) || undefined;
    for (const value of Object.values(node)) Array.isArray(value) ? value.forEach((v) => visit(v, notRead)) : visit(value, notRead);
  };
  body.forEach((n) => visit(n));
  const uses = (name: string) => (names.get(name) ?? []).filter((at) => !cut.some(([a, b]) => at >= a && at < b)).length;
  const remove = (d: Declarator): string | undefined => {
    // `a=…,b=…`: the declarator and one comma beside it.
    const after = /^\s*,/.exec(code.slice(d.end))?.[0];
    const before = /,\s*$/.exec(code.slice(0, d.start))?.[0];
    if (after === undefined && before === undefined) return `${d.id.name} is declared alone`;
    const range: [number, number] = after !== undefined ? [d.start, d.end + after.length] : [d.start - before!.length, d.end];
    out.remove(...range);
    cut.push(range);
    return undefined;
  };
  for (const map of maps) {
    const entry = map.init!.properties!.find((p) => p.key?.name === 'pedantic')!;
    const name = entry.value.name;
    const table = declarators.find((d) => d.id.name === name);
    // The table must be read nowhere else (its name appears in its declaration and in the map only).
    if (!name || !table || uses(name) !== 2) return `the pedantic table ${name ?? '?'} is read elsewhere`;
    out.overwrite(entry.value.start, entry.value.end, 'void 0');
    cut.push([entry.value.start, entry.value.end]);
    const why = remove(table);
    if (why) return why;
  }
  // Then each rule nothing reads any more, if it is a literal or made by the builder (so dropping it drops nothing else).
  const pure = (init: Node | undefined): boolean => {
    if (!init) return false;
    if (init.type === 'Literal' || (init.type === 'TemplateLiteral' && !(init.expressions as Node[]).length)) return true;
    let call: Node | undefined = init;
    while (call?.type === 'CallExpression' && (call.callee as Node).type === 'MemberExpression') call = (call.callee as Node & { object: Node }).object;
    return call?.type === 'CallExpression' && (call.callee as { name?: string }).name === builder.id.name;
  };
  for (let more = true; more; ) {
    more = false;
    for (const d of declarators) {
      if (!d.id.name || cut.some(([a, b]) => d.start >= a && d.start < b) || !pure(d.init) || uses(d.id.name) !== 1) continue;
      // Only what the cut left unread: a rule nothing read before is not ours to drop.
      if (names.get(d.id.name)!.length === 1) continue;
      const why = remove(d);
      if (why) return why;
      more = true;
    }
  }
  return undefined;
}

/**
 * The options the bundle's marked runs with are the elements' own (shared/markdown.ts: marked's
 * defaults, `gfm` and `breaks`), made without the `Marked` instance, the one place that fills in
 * extensions and hooks: `pedantic` is false (its tables are gone, see `withoutPedanticRules`),
 * `extensions` and `hooks` are null, and `silent` is false (marked's default: an unknown token
 * throws, where `silent` would log it). Each read of them in `head` (the module's text up to its
 * default instance) becomes that value, and the minifiers drop the branches they guarded (about
 * 0.4 kB gzip). Answers why it cannot, if the module changed shape.
 */
const FOLDED_OPTIONS: Record<string, string> = { pedantic: 'false', extensions: 'null', hooks: 'null', silent: 'false' };
function withFoldedOptions(out: MagicString, head: string): string | undefined {
  for (const [name, value] of Object.entries(FOLDED_OPTIONS)) {
    const reads = [...head.matchAll(new RegExp(`\\bthis\\.options\\.${name}\\b`, 'g'))];
    if (!reads.length) return `no \`this.options.${name}\` to fold`;
    for (const m of reads) {
      if (/^\s*=(?!=)/.test(head.slice(m.index + m[0].length))) return `\`this.options.${name}\` is assigned`;
      out.overwrite(m.index, m.index + m[0].length, value);
    }
  }
  return undefined;
}

/**
 * DOMPurify's instances carry methods the elements never call (shared/markdown.ts makes its own
 * instance, module-private, and calls `sanitize` and `addHook` only): `setConfig`, `clearConfig`,
 * `isValidAttribute`, `removeHook`, `removeHooks`, `removeAllHooks` (and its `version`, which
 * nothing reads), each assigned to the instance
 * as it is made, so no bundler can drop them (about 0.15 kB gzip). The bundle leaves them out.
 * Fails the build if DOMPurify no longer assigns them that way, or if a source module calls one.
 */
function dompurifyWithoutUnusedMethods(): Plugin {
  const file = /\/node_modules\/dompurify\/dist\/purify\.es\.mjs$/;
  const unused = ['setConfig', 'clearConfig', 'isValidAttribute', 'removeHook', 'removeHooks', 'removeAllHooks', 'version'];
  type Node = { type: string; start: number; end: number; [key: string]: unknown };
  return {
    name: 'hitl:dompurify-without-unused-methods',
    transform(code, id) {
      if (/\/src\/.+\.ts$/.test(id) && new RegExp(`\\.(?:${unused.join('|')})\\b`).test(code) && code.includes('dompurify')) {
        return this.error(`${id} calls a DOMPurify method the bundle leaves out (dompurifyWithoutUnusedMethods in vite.config.ts)`);
      }
      if (!file.test(id)) return undefined;
      const fail = (why: string) => this.error(`DOMPurify's module changed shape (${why}): update dompurifyWithoutUnusedMethods in vite.config.ts`);
      const body = (parseAst(code) as unknown as { body: Node[] }).body;
      const factory = body.find((n) => n.type === 'FunctionDeclaration' && (n.id as { name: string }).name === 'createDOMPurify');
      if (!factory) return fail('no createDOMPurify function');
      const out = new MagicString(code);
      let cut = 0;
      for (const statement of (factory.body as { body: Node[] }).body) {
        const assigned = statement.type === 'ExpressionStatement' && (statement.expression as Node & { left?: Node & { object?: { name?: string }; property?: { name?: string } } });
        const left = assigned && assigned.type === 'AssignmentExpression' ? assigned.left : undefined;
        if (left?.type !== 'MemberExpression' || left.object?.name !== 'DOMPurify' || !unused.includes(left.property?.name ?? '')) continue;
        out.remove(statement.start, statement.end);
        cut++;
      }
      if (cut !== unused.length) return fail(`${cut} of ${unused.length} unused methods found`);
      return { code: out.toString(), map: out.generateMap({ hires: true, source: id }) };
    },
  };
}

/** Exact edits to dependencies' modules, by module: each pattern must match, or the build fails (the module changed). */
type ModuleEdits = [file: RegExp, edits: [pattern: RegExp, replacement: string][]][];

/** A plugin making `edits`; `plugin` names the function that lists them, for the failure's advice. */
function editModules(plugin: string, edits: ModuleEdits): Plugin {
  return {
    name: `hitl:${plugin}`,
    transform(code, id) {
      const list = edits.find(([file]) => file.test(id))?.[1];
      if (!list) return undefined;
      let out = code;
      for (const [pattern, replacement] of list) {
        if (!pattern.test(out)) return this.error(`${id.replace(/.*node_modules\//, '')} changed (${pattern.source.slice(0, 40)}…): update ${plugin} in vite.config.ts`);
        out = out.replace(pattern, replacement);
      }
      return { code: out, map: null };
    },
  };
}

/**
 * Errors only a developer's mistake can raise, whose messages carry a paragraph of advice, kept
 * with the advice cut to its gist (about 0.15 kB gzip together). Lit's `css` tag throws two, for
 * something other than a literal or a `css` result: the elements' styles are literals
 * (`minifyLitCss` reads them as such). DOMPurify's build carries Babel's array-destructuring
 * helper, which throws for a non-iterable: DOMPurify destructures its own arrays. Fails the build
 * if a message changes.
 */
function shortErrors(): Plugin {
  return editModules('shortErrors', [
    [
      /\/node_modules\/@lit\/reactive-element\/css-tag\.js$/,
      [
        [/"CSSResult is not constructable\. Use `unsafeCSS` or `css` instead\."/, '"Use css or unsafeCSS"'],
        [/"Value passed to 'css' function must be a 'css' function result: "\+(\w+)\+"\. Use 'unsafeCSS' to pass non-literal values, but take care to ensure page security\."/, '"Not a css result: "+$1'],
      ],
    ],
    [/\/node_modules\/dompurify\/dist\/purify\.es\.mjs$/, [[/"Invalid attempt to destructure non-iterable instance\.\\nIn order to be iterable, non-array objects must have a \[Symbol\.iterator\]\(\) method\."/, '"Not iterable"']]],
  ]);
}

/**
 * marked's lexer and parser classes carry static shortcuts the elements never call
 * (`Lexer.rules`, `Lexer.lexInline`, `Parser.parseInline`; shared/markdown.ts calls `Lexer.lex` and
 * `Parser.parse`), which no bundler drops from a class that is kept. The bundle leaves them out.
 */
function markedWithoutUnusedStatics(): Plugin {
  return editModules('markedWithoutUnusedStatics', [
    [
      /\/node_modules\/marked\/lib\/marked\.esm\.js$/,
      [
        [/static get rules\(\)\{return\{block:\w+,inline:\w+\}\}/, ''],
        [/static lexInline\((\w+),(\w+)\)\{return new \w+\(\2\)\.inlineTokens\(\1\)\}/, ''],
        [/static parseInline\((\w+),(\w+)\)\{return new \w+\(\2\)\.parseInline\(\1\)\}/, ''],
      ],
    ],
  ]);
}

/**
 * Lit's three modules each end by calling a hook a page may have put on `globalThis` (ShadyDOM's
 * polyfill support, for browsers without shadow DOM; Lit SSR's hydration support, for markup
 * rendered on a server) and by adding their version to a global list, read by Lit's development
 * build to warn of two copies on one page. The script-tag bundle runs in browsers with shadow DOM,
 * renders in the browser, and is a production build, so the bundle leaves them out (about 0.12 kB
 * gzip). The ESM package keeps them: it is Lit itself that a bundler or Next.js loads.
 */
function litWithoutGlobalHooks(): Plugin {
  const version = String.raw`\(\w+\.(?:reactiveElement|litHtml|litElement)Versions\?\?=\[\]\)\.push\("[\d.]+"\)`;
  return editModules('litWithoutGlobalHooks', [
    [/\/node_modules\/lit-html\/lit-html\.js$/, [[new RegExp(String.raw`,(\w+)=\w+\.litHtmlPolyfillSupport;\1\?\.\([\w$]+,[\w$]+\),${version};`), ';']]],
    [
      /\/node_modules\/@lit\/reactive-element\/reactive-element\.js$/,
      [
        [/,\w+=\w+\.reactiveElementPolyfillSupport(?=,)/, ''],
        [new RegExp(String.raw`,\w+\?\.\(\{ReactiveElement:\w+\}\),${version}`), ''],
      ],
    ],
    [
      /\/node_modules\/lit-element\/lit-element\.js$/,
      [
        [/,(\w+)\.litElementHydrateSupport\?\.\(\{LitElement:\w+\}\);const (\w+)=\1\.litElementPolyfillSupport;\2\?\.\(\{LitElement:\w+\}\);/, ';'],
        [new RegExp(`${version};`), ''],
      ],
    ],
  ]);
}

/**
 * Terser over the minified chunks, their source maps carried through: its compressor finds what
 * Oxc's leaves (about 300 B gzip over the bundle); Terser alone does worse than Oxc. Runs before
 * `classicEntry`'s own `generateBundle`, which prepends a line to the entry.
 */
function terserPass(): Plugin {
  return {
    name: 'hitl:terser-pass',
    async generateBundle(_, bundle) {
      for (const chunk of Object.values(bundle)) {
        if (chunk.type !== 'chunk') continue;
        const mapAsset = bundle[`${chunk.fileName}.map`];
        const url = /\n\/\/# sourceMappingURL=\S+\s*$/.exec(chunk.code)?.[0] ?? '';
        const out = await minify(chunk.code.slice(0, chunk.code.length - url.length), {
          // Both files hold ES module code (the entry is wrapped in a function, not made sloppy).
          module: true,
          ecma: 2022,
          // Function expressions and methods as arrows and shorthand (about 60 B gzip): nothing in
          // the bundle calls one with `new` or reads its `prototype` (the browser suites run it).
          // Property reads taken as free of side effects (`pure_getters`, about 55 B): nothing reads
          // a property for its getter's effect alone (a forced layout, say), which it would drop.
          // `[].slice` for `Array.prototype.slice` (`unsafe_proto`, 9 B): the same function.
          compress: { passes: 3, unsafe_arrows: true, unsafe_methods: true, keep_fargs: false, pure_getters: true, unsafe_proto: true },
          format: { comments: false },
          sourceMap: mapAsset?.type === 'asset' ? { content: String(mapAsset.source) } : false,
        });
        chunk.code = `${out.code!}${url}`;
        if (mapAsset?.type === 'asset' && typeof out.map === 'string') mapAsset.source = out.map;
      }
    },
  };
}

/** Emits `hitl-elements.<locale>.js` for each shipped locale (`src/elements/locales/*.ts`). */
function localeFiles(): Plugin {
  return {
    name: 'hitl:locale-files',
    async generateBundle() {
      for (const file of readdirSync(src('locales')).filter((f) => f.endsWith('.ts'))) {
        const { code } = await transformWithOxc(readFileSync(src(`locales/${file}`), 'utf8'), file);
        this.emitFile({ type: 'asset', fileName: `hitl-elements.${file.replace(/\.ts$/, '')}.js`, source: code });
      }
    },
  };
}

/**
 * Rolldown splits only ES modules, and a page's `<script src>` is a classic script. So the entry
 * chunk is turned into one: wrapped in a function, its dynamic imports resolved against the
 * script's own URL (`document.currentScript`, read while it runs), and what the chunks import from
 * it handed over in a registry on `globalThis` under a key unique to this build (two copies of one
 * build share the first one's; two builds never meet). The chunks read the registry in place of
 * their `import … from './hitl-elements.js'`.
 */
function classicEntry(): Plugin {
  let key = '';
  const registry = () => `globalThis[Symbol.for(${JSON.stringify(key)})]`;
  return {
    name: 'hitl:classic-entry',
    buildEnd() {
      // Deterministic: the same sources make the same bytes (the size gate counts them).
      const hash = createHash('sha256');
      for (const id of [...this.getModuleIds()].sort()) {
        if (id.startsWith('\0')) continue;
        hash.update(relative(process.cwd(), id)).update(readFileSync(id.split('?')[0]!));
      }
      // 48 bits of the digest tell builds apart; each character of the key costs bytes in two files.
      key = `hitl:${hash.digest('base64url').slice(0, 8)}`;
    },
    renderChunk(code, chunk) {
      const out = new MagicString(code);
      if (chunk.fileName === ENTRY) {
        if (chunk.imports.length) throw new Error(`${ENTRY} must import nothing statically, but imports ${chunk.imports.join(', ')}`);
        if (/\bimport\.meta\b/.test(code)) throw new Error(`${ENTRY} cannot use import.meta: it is a classic script`);
        for (const m of code.matchAll(/\bimport\((\s*(["'])\.\/[^"']+\2\s*)\)/g)) {
          out.overwrite(m.index + 7, m.index + 7 + m[1]!.length, `new URL(${m[1]}, __hitlBase).href`);
        }
        const exports = [...code.matchAll(/^export\s*\{([^}]*)\};?\s*$/gm)];
        if (exports.length > 1 || /^export\s+(?!\{)/m.test(code)) throw new Error(`${ENTRY}: unexpected export form`);
        const [statement] = exports;
        if (statement) {
          const entries = statement[1]!
            .split(',')
            .map((s) => s.trim())
            .filter(Boolean)
            .map((spec) => {
              const [local, name = local] = spec.split(/\s+as\s+/);
              return `${JSON.stringify(name)}: ${local}`;
            });
          out.overwrite(statement.index, statement.index + statement[0].length, `${registry()} ??= { ${entries.join(', ')} };\n`);
        }
        // Imported in Node (`hitl-elements/script` in a server build), the bundle does nothing: the
        // browser registers the tags.
        out.prepend(`(function () {\nif (typeof document === 'undefined') return;\nconst __hitlBase = document.currentScript?.src || document.baseURI;\n`);
        out.append('\n})();\n');
      } else {
        for (const m of code.matchAll(/^import\s*(\*\s*as\s*\w+|[\w$]+\s*,?)?\s*(?:\{([^}]*)\})?\s*from\s*(["'])\.\/(.+?)\3;?$/gm)) {
          if (m[4] !== ENTRY) continue;
          if (m[1]) throw new Error(`${chunk.fileName}: unexpected import form from ${ENTRY}: ${m[0]}`);
          const bindings = m[2]!.replace(/\s+as\s+/g, ': ');
          out.overwrite(m.index, m.index + m[0].length, `const {${bindings}} = ${registry()};`);
        }
      }
      return { code: out.toString(), map: out.generateMap({ hires: true }) };
    },
    generateBundle(_, bundle) {
      // The minifier drops a "use strict" inside the function (ES modules are strict anyway): the
      // classic script states it on a line of its own, which shifts the source map by one line.
      const entry = bundle[ENTRY];
      if (entry?.type !== 'chunk') return;
      entry.code = `"use strict";\n${entry.code}`;
      const map = bundle[`${ENTRY}.map`];
      if (map?.type === 'asset') {
        const json = JSON.parse(String(map.source)) as { mappings: string };
        map.source = JSON.stringify({ ...json, mappings: `;${json.mappings}` });
      }
    },
  };
}

export default defineConfig({
  define: {
    'process.env.NODE_ENV': JSON.stringify('production'),
    // The bundle runs in a browser (its classic wrapper checks once): the define modules' own Node
    // guards fold away.
    'typeof document': JSON.stringify('object'),
  },
  plugins: [minifyLitCss(), minifyLitHtml(), shortErrors(), litWithoutGlobalHooks(), markedWithoutDefaultInstance(), markedWithoutUnusedStatics(), dompurifyWithoutUnusedMethods(), localeFiles(), terserPass(), classicEntry()],
  resolve: {
    // Always the production builds of the dependencies (Lit's development build is 13 kB larger
    // and warns in the console): by default Vite picks them by the ambient NODE_ENV, which a
    // build started from a process running Vite's dev server inherits as `development`.
    conditions: ['module', 'browser', 'production'],
    // Locales are files beside the bundle, found from its URL, rather than chunks.
    alias: [
      { find: /^\.\/locale-loader\.js$/, replacement: src('shared/locale-loader.script.ts') },
      // One chunk for everything not in the bundle: files apart compress worse.
      { find: /^\.\.\/human-input-form\/parts\.js$/, replacement: src('script-parts.ts') },
    ],
  },
  build: {
    outDir: 'dist',
    emptyOutDir: false,
    target: 'es2022',
    minify: true,
    sourcemap: true,
    reportCompressedSize: false,
    lib: {
      entry: 'src/elements/script.ts',
      formats: ['es'],
      fileName: () => ENTRY,
    },
    rollupOptions: {
      // Lets what the entry shares with its chunks live in the entry (it is loaded first anyway),
      // rather than in chunks of their own, which a classic script could not import.
      preserveEntrySignatures: 'allow-extension',
      output: { chunkFileNames: ({ name }) => `hitl-elements.${name.replace('script-', '')}-[hash].js`, minify: true },
    },
  },
});
