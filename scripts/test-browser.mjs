// `npm run test:browser [-- --engine firefox] [web-test-runner options]`: the element tests in the
// engines named by `--engine` (repeatable or comma-separated: chromium, firefox, webkit; all three
// when none is named, or those in HITL_ENGINES). web-test-runner would take a bare `firefox` for a
// test file, so the engine travels to web-test-runner.config.mjs in HITL_ENGINES.
import { spawn } from 'node:child_process';

const args = [];
const engines = [];
const argv = process.argv.slice(2);
for (let i = 0; i < argv.length; i++) {
  if (argv[i] === '--engine') engines.push(argv[++i] ?? '');
  else if (argv[i].startsWith('--engine=')) engines.push(argv[i].slice('--engine='.length));
  else args.push(argv[i]);
}
const env = { ...process.env };
if (engines.length) env.HITL_ENGINES = engines.join(',');
const child = spawn(process.execPath, ['--import', 'tsx', 'node_modules/@web/test-runner/dist/bin.js', ...args], { stdio: 'inherit', env });
for (const signal of ['SIGINT', 'SIGTERM']) process.on(signal, () => child.kill(signal));
child.on('exit', (code, signal) => process.exit(code ?? (signal ? 1 : 0)));
