// The manifest is generated from the elements' JSDoc, never from dist/.
export default {
  globs: ['src/elements/**/*.ts'],
  exclude: ['src/elements/**/*.styles.ts', 'src/elements/shared/**'],
  // A test writes to a temporary folder to check that the committed manifest is current.
  outdir: process.env.CEM_OUTDIR ?? '.',
  litelement: true,
  dependencies: false,
  packagejson: false,
};
