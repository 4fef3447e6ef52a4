// The manifest is generated from the elements' JSDoc, never from dist/. The shared modules are
// analyzed too, so the elements that extend a base class there list the members they inherit,
// and then left out: the manifest describes the elements. The IDE data and the Svelte, Solid and
// JSX (Preact, Stencil) typings are generated from it by the wc-toolkit generators (plugins below),
// into the package's dist/. React's and Vue's come from scripts/api-reference.mjs instead: their
// generators type every event as `CustomEvent<detail>` (ours are classes of their own, such as
// `RunFinishedEvent`), and custom-element-vuejs-integration 1.4 keys props by attribute name
// (`session-url`, `onform-shown`) where vue-tsc looks them up camelized (`sessionUrl`,
// `onFormShown`), so under `strictTemplates` every attribute failed.
import { posix } from 'node:path';
import { customElementJetBrainsPlugin } from 'custom-element-jet-brains-integration';
import { customElementJsxPlugin } from 'custom-element-jsx-integration';
import { customElementSolidJsPlugin } from 'custom-element-solidjs-integration';
import { customElementSveltePlugin } from 'custom-element-svelte-integration';
import { customElementVsCodePlugin } from 'custom-element-vs-code-integration';

// A test writes to a temporary folder to check that the committed manifest is current; the build
// into another folder (`scripts/build.mjs --out-dir`) puts the manifest and its derivatives there.
const manifestDir = process.env.CEM_OUTDIR ?? '.';
const distDir = process.env.CEM_OUTDIR ?? 'dist';
const typesDir = `${distDir}/types`;

/** `src/elements/x/x.ts` → `dist/elements/x/x.js`: tools read the manifest from the installed package, which ships dist/. */
const shipped = (path) => path.replace(/^\/?src\/(.*)\.[jt]s$/, 'dist/$1.js');

function shippedPaths(node) {
  if (Array.isArray(node)) return node.forEach(shippedPaths);
  if (!node || typeof node !== 'object') return;
  for (const [key, value] of Object.entries(node)) {
    if ((key === 'path' || key === 'module') && typeof value === 'string') node[key] = shipped(value);
    else shippedPaths(value);
  }
}

/**
 * Each event class's `detail` type (`ConversationSelectedEvent` → `Conversation`, the error
 * events' → `ErrorBody`), read while the manifest still holds the shared modules, where some of
 * them live.
 */
const eventDetails = new Map();

/**
 * The generators wrap an event's type in `CustomEvent<…>` (they read it as the detail's type): they
 * get a view of the manifest where an event says its class's `detail` type, and an event whose
 * class has no `detail` (its data are fields, as the form's) says nothing. The manifest itself
 * keeps the event class. The detail's named types are written as `import('./index.js').T` (the
 * DOM's own, such as `DOMException`, stay global): the generators import each plain type name
 * once per element, so a type two elements share (`ErrorBody`) was imported twice.
 */
function generatorView(plugin) {
  return {
    ...plugin,
    packageLinkPhase({ customElementsManifest, context }) {
      const view = structuredClone(customElementsManifest);
      for (const declaration of view.modules.flatMap((m) => m.declarations ?? [])) {
        for (const event of declaration.events ?? []) {
          const detail = eventDetails.get(event.type?.text);
          if (detail && detail !== 'unknown') event.type = { text: detail.replace(/\b[A-Z]\w*/g, (name) => (name in globalThis ? name : `import('./index.js').${name}`)) };
          else delete event.type;
        }
      }
      return plugin.packageLinkPhase({ customElementsManifest: view, context });
    },
  };
}

const generated = { outdir: typesDir, globalTypePath: './index.js', hideLogs: true };

export default {
  globs: ['src/elements/**/*.ts'],
  exclude: ['src/elements/**/*.styles.ts'],
  outdir: manifestDir,
  litelement: true,
  dependencies: false,
  packagejson: false,
  plugins: [
    {
      name: 'elements-only-once',
      packageLinkPhase({ customElementsManifest }) {
        // Runs after the analyzer has copied inherited members into the elements.
        for (const d of customElementsManifest.modules.flatMap((m) => m.declarations ?? [])) {
          const detail = d.kind === 'class' && d.members?.find((m) => m.name === 'detail' && !m.static)?.type?.text;
          if (detail) eventDetails.set(d.name, detail);
        }
        customElementsManifest.modules = customElementsManifest.modules.filter((m) => !/^src\/elements\/(shared|locales)\//.test(m.path));
        for (const module of customElementsManifest.modules) {
          // A define module's `define(tag, class extends X {})` is not an element of its own; the
          // analyzer lists it under a made-up name (and the first tag it saw), so the tag's
          // definition is pointed at X instead.
          const anonymous = new Map();
          module.declarations = (module.declarations ?? []).filter((d) => {
            const made = d.kind === 'class' && /^anonymous_\d+$/.test(d.name);
            if (made) anonymous.set(d.name, d.superclass);
            return !made;
          });
          for (const e of module.exports ?? []) {
            const base = anonymous.get(e.declaration?.name);
            if (base) e.declaration = { name: base.name, module: base.module };
          }
          // The analyzer also lists events it infers from `dispatchEvent(new X(a, b))`, named after
          // X's first argument (`actionId`, `type`, `undefined`): the documented (`@fires`) ones are
          // the element's events.
          for (const d of module.declarations) if (d.events) d.events = d.events.filter((e) => e.name && e.description);
        }
        // The analyzer says a re-export (`export { X }` in a define module) is declared where it is
        // re-exported, and misses the tags a define function registers: both point at the class.
        const declaredIn = new Map();
        for (const m of customElementsManifest.modules) for (const d of m.declarations ?? []) declaredIn.set(d.name, m.path);
        for (const module of customElementsManifest.modules) {
          for (const e of module.exports ?? []) {
            // A re-export from a module the manifest leaves out (`shared/`) keeps the analyzer's
            // specifier (`../shared/markdown.js`): made the source path it names.
            if (e.declaration?.module?.startsWith('.')) e.declaration.module = posix.join(posix.dirname(module.path), e.declaration.module).replace(/\.js$/, '.ts');
            const home = declaredIn.get(e.declaration?.name);
            if (home && e.declaration.module.replace(/^\//, '') === module.path && home !== module.path) e.declaration.module = home;
          }
          if (!module.path.endsWith('/define.ts') || module.exports.some((e) => e.kind === 'custom-element-definition')) continue;
          const folder = module.path.replace(/define\.ts$/, '');
          for (const m of customElementsManifest.modules.filter((x) => x.path.startsWith(folder))) {
            for (const d of m.declarations ?? []) {
              if (d.customElement && d.tagName) module.exports.push({ kind: 'custom-element-definition', name: d.tagName, declaration: { name: d.name, module: m.path } });
            }
          }
        }
        shippedPaths(customElementsManifest.modules);
        // The analyzer reads files concurrently, so its module order varies from run to run; a
        // committed manifest that is checked to be current needs one order.
        customElementsManifest.modules.sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
      },
    },
    customElementVsCodePlugin({ outdir: distDir, htmlFileName: 'vscode.html-custom-data.json', cssFileName: 'vscode.css-custom-data.json', hideLogs: true }),
    customElementJetBrainsPlugin({ outdir: distDir, packageJson: false, hideLogs: true }),
    generatorView(customElementSveltePlugin({ ...generated, fileName: 'svelte.d.ts' })),
    generatorView(customElementSolidJsPlugin({ ...generated, fileName: 'solid.d.ts' })),
    generatorView(customElementJsxPlugin({ ...generated, fileName: 'jsx.d.ts' })),
  ],
};
