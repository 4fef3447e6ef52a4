// The manifest is generated from the elements' JSDoc, never from dist/.
export default {
  globs: ['src/elements/**/*.ts'],
  exclude: ['src/elements/**/*.styles.ts', 'src/elements/shared/**'],
  outdir: '.',
  litelement: true,
  dependencies: false,
  packagejson: false,
};
