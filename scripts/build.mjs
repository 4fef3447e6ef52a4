// `npm run build`: the ESM package with .d.ts (tsc), the script-tag bundle (Vite), the
// custom-elements manifest, and the bundle's size checked against its budget.
import { execFileSync } from 'node:child_process';
import { rmSync } from 'node:fs';
import { checkBundleSize } from './bundle-size.mjs';

const run = (cmd, args) => execFileSync(cmd, args, { stdio: 'inherit' });
const bin = (name) => `node_modules/.bin/${name}`;

rmSync('dist', { recursive: true, force: true });
run(bin('tsc'), ['-p', 'tsconfig.build.json']);
run(bin('vite'), ['build', '--logLevel', 'warn']);
run(bin('cem'), ['analyze']);
if (!checkBundleSize()) process.exit(1);
