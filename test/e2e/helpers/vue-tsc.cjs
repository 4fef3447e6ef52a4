// `vue-tsc` on TypeScript 5.9: vue-tsc needs TypeScript's compiler API, which TypeScript 7 (the
// project's own compiler) no longer has. Arguments are vue-tsc's (`-b`).
require('vue-tsc').run(require.resolve('typescript5/lib/tsc'));
