// `npm run build`: the ESM package with .d.ts (tsc), the script-tag bundle (Vite), the
// custom-elements manifest, the API reference and React JSX typings derived from it, and the
// bundle's sizes checked against their budgets (scripts/bundle-size.mjs).
//
// `--out-dir DIR` builds the package into DIR instead of dist/ and leaves the committed files
// (custom-elements.json, docs/api.md) alone: DIR gets its own manifest and api.md. Tests use it to
// build in isolation, with `--no-budget`: they test what the build makes, and the budget has its
// own check (`npm run build` in CI).
import { execFileSync } from 'node:child_process';
import { readFileSync, rmSync } from 'node:fs';
import { join, relative } from 'node:path';
import { parseArgs } from 'node:util';
import { API_REFERENCE, apiMarkdown, reactTypings, write } from './api-reference.mjs';
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
// `import 'hitl-elements/react'` must also resolve at run time: the entry is types only.
write(join(outDir, 'react.js'), '// JSX typings only: see types/react.d.ts.\nexport {};\n');

if (!checkBundleSize(outDir) && !values['no-budget']) process.exit(1);
