/**
 * The README's server-code examples run as printed: each block marked `<!-- readme-example: … -->`
 * is written to a file inside this clone, with `hitl-elements/…` pointing at the sources, type-checked,
 * and run with tsx against the embedded service.
 */
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { after, before, test } from 'node:test';
import { promisify } from 'node:util';
import { loadFixture, startService, type RunningService } from '../src/service/index.js';

const REPO = resolve(import.meta.dirname, '..');
const WORK = join(REPO, 'node_modules', '.cache', `readme-examples-${process.pid}`);
const run = promisify(execFile);
const EXPORTS = (JSON.parse(readFileSync(join(REPO, 'package.json'), 'utf8')) as { exports: Record<string, unknown> }).exports;

/** The README's example blocks by name, with the package's specifiers turned into source paths. */
function examples(): Map<string, string> {
  const readme = readFileSync(join(REPO, 'README.md'), 'utf8');
  const found = new Map<string, string>();
  for (const [, name, code] of readme.matchAll(/<!-- readme-example: ([\w-]+) -->\n```ts\n([\s\S]*?)\n```/g)) {
    // Through package.json "exports" to the module's source: dist/x.js → src/x.ts.
    const source = (entry: string) => join(REPO, (EXPORTS[`./${entry}`] as { import: string }).import.replace(/^\.\/dist\//, 'src/'));
    found.set(name!, code!.replace(/from 'hitl-elements\/([\w/-]+)'/g, (_, entry: string) => `from '${source(entry)}'`));
  }
  return found;
}

let service: RunningService;
before(async () => {
  service = await startService({ fixture: await loadFixture(), port: 0 });
  mkdirSync(WORK, { recursive: true });
});
after(async () => {
  await service?.close();
  rmSync(WORK, { recursive: true, force: true });
});

async function runExample(name: string): Promise<string> {
  const code = examples().get(name);
  assert.ok(code, `README has no example "${name}"`);
  const file = join(WORK, `${name}.mts`); // ESM: under node_modules no package.json says "module"
  writeFileSync(file, `${code}\nexport {};\n`);
  writeFileSync(
    join(WORK, `tsconfig.${name}.json`),
    JSON.stringify({ extends: join(REPO, 'tsconfig.node.json'), compilerOptions: { noEmit: true, rootDir: REPO }, include: [file], exclude: [] }),
  );
  await run(join(REPO, 'node_modules/.bin/tsc'), ['-p', join(WORK, `tsconfig.${name}.json`)]).catch((error: { stdout?: string }) => {
    assert.fail(`the README example "${name}" does not type-check:\n${error.stdout}`);
  });
  const { stdout } = await run(process.execPath, ['--import', 'tsx', file], { cwd: REPO, env: { ...process.env, SERVICE_URL: service.url } });
  return stdout;
}

test('the knowledge example creates a knowledge base, adds a document, waits for indexing and lists its chunks', async () => {
  const out = await runExample('knowledge');
  assert.match(out, /Items can be returned within 30 days\./);
  assert.match(out, /Refunds reach the card in 5 business days\./);
});

test('the form-answering example answers the run\'s form and the run finishes with that answer', async () => {
  const out = await runExample('answer-form');
  assert.match(out, /Answering “## Review the draft” with \[ 'approve', 'send_back' \]/);
  assert.match(out, /^succeeded \{/m);
  assert.match(out, /Approved by the release bot\./);
});
