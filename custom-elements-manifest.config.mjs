// The manifest is generated from the elements' JSDoc, never from dist/.
export default {
  globs: ['src/elements/**/*.ts'],
  exclude: ['src/elements/**/*.styles.ts', 'src/elements/shared/**'],
  // A test writes to a temporary folder to check that the committed manifest is current.
  outdir: process.env.CEM_OUTDIR ?? '.',
  litelement: true,
  dependencies: false,
  packagejson: false,
  plugins: [
    {
      // The analyzer reads files concurrently, so its module order varies from run to run; a
      // committed manifest that is checked to be current needs one order.
      name: 'modules-in-path-order',
      packageLinkPhase({ customElementsManifest }) {
        customElementsManifest.modules.sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
      },
    },
  ],
};
