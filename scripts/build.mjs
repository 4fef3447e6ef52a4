// `npm run build`: the ESM package with .d.ts (tsc), the script-tag bundle (Vite), the
// custom-elements manifest with the IDE data and framework typings derived from it (the analyzer's
// plugins; React and Vue typings and the API reference from api-reference.mjs), and the bundle's
// sizes checked against their budgets (scripts/bundle-size.mjs).
//
// `--out-dir DIR` builds the package into DIR instead of dist/ and leaves the committed files
// (custom-elements.json, docs/api.md) alone: DIR gets its own manifest and api.md. Tests use it to
// build in isolation, with `--no-budget`: they test what the build makes, and the budget has its
// own check (`npm run build` in CI).
import { execFileSync } from 'node:child_process';
import { readFileSync, rmSync } from 'node:fs';
import { join, relative } from 'node:path';
import { parseArgs } from 'node:util';
import { API_REFERENCE, apiMarkdown, reactTypings, vueTypings, write } from './api-reference.mjs';
import { checkBundleSize } from './bundle-size.mjs';

const { values } = parseArgs({ options: { 'out-dir': { type: 'string' }, 'no-budget': { type: 'boolean' } } });
const outDir = values['out-dir'] ?? 'dist';
const isolated = values['out-dir'] !== undefined;

const run = (cmd, args, env) => execFileSync(cmd, args, { stdio: 'inherit', env: { ...process.env, ...env } });
const bin = (name) => `node_modules/.bin/${name}`;

rmSync(outDir, { recursive: true, force: true });
run(bin('tsc'), ['-p', 'tsconfig.build.json', '--outDir', outDir, '--declarationDir', join(outDir, 'types')]);
run(bin('vite'), ['build', '--logLevel', 'warn', '--outDir', outDir]);
// The analyzer resolves its outdir against the working directory.
run(bin('cem'), ['analyze'], isolated ? { CEM_OUTDIR: relative('.', outDir) } : {});

const manifest = JSON.parse(readFileSync(join(isolated ? outDir : '.', 'custom-elements.json'), 'utf8'));
write(isolated ? join(outDir, 'api.md') : API_REFERENCE, apiMarkdown(manifest));
write(join(outDir, 'types', 'react.d.ts'), reactTypings(manifest));
write(join(outDir, 'types', 'vue.d.ts'), vueTypings(manifest));
// `import 'hitl-elements/react'` (and the other framework typings, written by the analyzer's
// plugins) must also resolve at run time: those entries are types only.
for (const name of ['react', 'vue', 'svelte', 'solid', 'jsx']) write(join(outDir, `${name}.js`), `// Typings only: see types/${name}.d.ts.\nexport {};\n`);

if (!checkBundleSize(outDir) && !values['no-budget']) process.exit(1);
