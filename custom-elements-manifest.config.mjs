// The manifest is generated from the elements' JSDoc, never from dist/. The shared modules are
// analyzed too, so the elements that extend a base class there list the members they inherit,
// and then left out: the manifest describes the elements.
export default {
  globs: ['src/elements/**/*.ts'],
  exclude: ['src/elements/**/*.styles.ts'],
  // A test writes to a temporary folder to check that the committed manifest is current.
  outdir: process.env.CEM_OUTDIR ?? '.',
  litelement: true,
  dependencies: false,
  packagejson: false,
  plugins: [
    {
      name: 'elements-only-once',
      packageLinkPhase({ customElementsManifest }) {
        // Runs after the analyzer has copied inherited members into the elements.
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
            if (base) e.declaration = { name: base.name, module: base.module.replace(/^\//, '').replace(/\.js$/, '.ts') };
          }
        }
        // The analyzer reads files concurrently, so its module order varies from run to run; a
        // committed manifest that is checked to be current needs one order.
        customElementsManifest.modules.sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
      },
    },
  ],
};
