/**
 * The package as a registry user receives it: `npm pack` of the build (with the README, LICENSE
 * and the other `files`), checked by publint and by @arethetypeswrong/cli (ESM-only profile),
 * with the IDE data, the framework typings and the script-tag bundle's files where package.json
 * and the README say they are.
 */
import assert from 'node:assert/strict';
import { execFile, spawn } from 'node:child_process';
import { cpSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { promisify } from 'node:util';
import { publint } from 'publint';
import { formatMessage } from 'publint/utils';
import { createHostBackend } from '../../demo/host-backend.js';
import { launchChromium } from '../helpers/chromium.js';
import { E2E_FIXTURE } from './helpers/examples.js';
import { builtPackage, REPO } from './helpers/package-build.js';
import { serveSite } from './helpers/site.js';

const run = promisify(execFile);
const pkg = JSON.parse(readFileSync(join(REPO, 'package.json'), 'utf8')) as { name: string; version: string; files: string[]; private?: boolean; scripts: Record<string, string> };
let work: string;
let tarball: string;
let packed: string[];

before(async () => {
  const root = await builtPackage();
  // What `npm pack` sees in a clone after `prepack` (npm run build): the build, and the repository's other `files`.
  work = mkdtempSync(join(root, '.pack-'));
  const stage = join(work, 'package');
  for (const entry of ['package.json', 'dist', 'custom-elements.json']) cpSync(join(root, entry), join(stage, entry), { recursive: true });
  for (const entry of ['README.md', 'LICENSE', ...pkg.files.filter((f) => !['dist', 'custom-elements.json'].includes(f))]) cpSync(join(REPO, entry), join(stage, entry), { recursive: true });
  // Scripts off: prepack would build again, and this copy is the build.
  const { stdout } = await run('npm', ['pack', '--ignore-scripts', '--json', '--pack-destination', work], { cwd: stage });
  const [result] = JSON.parse(stdout) as { filename: string; files: { path: string }[] }[];
  tarball = join(work, result!.filename);
  packed = result!.files.map((f) => f.path);
});

after(() => {
  if (work) rmSync(work, { recursive: true, force: true });
});

test('the package can be published: not private, prepack builds, MIT LICENSE shipped', () => {
  assert.equal(pkg.private, undefined);
  assert.match(pkg.scripts.prepack ?? '', /npm run build/);
  assert.ok(packed.includes('LICENSE'));
  assert.match(readFileSync(join(REPO, 'LICENSE'), 'utf8'), /^MIT License/);
});

test('the tarball holds exactly the build, the manifest, the docs (API reference, architecture) and the default fixture', () => {
  const outside = packed.filter((f) => !/^(dist\/|custom-elements\.json$|docs\/(api|architecture)\.md$|demo\/fixtures\/default\.json$|README\.md$|LICENSE$|package\.json$)/.test(f));
  assert.deepEqual(outside, []);
  for (const required of ['dist/hitl-elements.js', 'dist/web-types.json', 'dist/vscode.html-custom-data.json', 'dist/types/vue.d.ts', 'dist/types/react.d.ts', 'dist/cli/service.js', 'demo/fixtures/default.json', 'docs/api.md', 'docs/architecture.md']) {
    assert.ok(packed.includes(required), `${required} is not in the tarball`);
  }
  // A CDN serves the package's files as they are: the bundle loads its locale files from beside itself.
  for (const locale of ['ja', 'zh-Hans']) assert.ok(packed.includes(`dist/hitl-elements.${locale}.js`), `dist/hitl-elements.${locale}.js`);
  assert.ok(!packed.some((f) => /\.test\.|^src\/|^test\//.test(f)), 'no sources or tests');
});

test('publint finds nothing, strict', async () => {
  const { messages, pkg: linted } = await publint({ pack: { tarball: readFileSync(tarball).buffer as ArrayBuffer }, level: 'suggestion', strict: true });
  assert.deepEqual(messages.map((m) => formatMessage(m, linted, { color: false })), []);
});

test('@arethetypeswrong/cli finds no problem (ESM-only profile), every entry typed', async () => {
  const attw = join(REPO, 'node_modules/.bin/attw');
  // Its exit code follows the profile; the JSON lists the ignored resolutions' problems too.
  const { stdout } = await run(attw, [tarball, '--profile', 'esm-only', '--format', 'json'], { maxBuffer: 64 * 1024 * 1024 }).catch((error: { stdout: string }) => ({ stdout: error.stdout }));
  const report = JSON.parse(stdout) as { problems: Record<string, { kind: string; entrypoint: string; resolutionKind?: string }[]> };
  const ignored = ['node10', 'node16-cjs']; // the ESM-only profile: no CommonJS consumer
  const problems = Object.values(report.problems).flat().filter((p) => !ignored.includes(p.resolutionKind ?? ''));
  assert.deepEqual(problems.map((p) => `${p.entrypoint}: ${p.kind} (${p.resolutionKind})`), []);
});

let unpacked: Promise<string> | undefined;
/** The tarball unpacked as npm installs it (`<dir>/package`), its dependencies beside it. */
function installed(): Promise<string> {
  unpacked ??= (async () => {
    const dir = join(work, 'installed');
    mkdirSync(dir);
    await run('tar', ['-xzf', tarball, '-C', dir]);
    symlinkSync(join(REPO, 'node_modules'), join(dir, 'node_modules'), 'dir');
    return dir;
  })();
  return unpacked;
}

test('from a CDN path (…/hitl-elements@<version>/dist/hitl-elements.js) the bundle loads its locale files from beside itself', async () => {
  const dir = await installed();
  const backend = await createHostBackend({ servicePort: 0, fixturePath: E2E_FIXTURE });
  const cdn = `/npm/hitl-elements@${pkg.version}/`;
  const site = await serveSite(backend, {
    pages: {
      // No session-url: each element says so, in the page's language, from the locale files the bundle loads.
      '/ja.html': `<!doctype html><html lang="ja"><head><meta charset="utf-8"><title>t</title><link rel="icon" href="data:,"><script src="${cdn}dist/hitl-elements.js"></script></head><body><human-input-form></human-input-form><conversation-list></conversation-list></body></html>`,
    },
    folders: { [cdn]: join(dir, 'package') },
  });
  const browser = await launchChromium();
  try {
    const tab = await browser.newPage();
    const locales = [`${cdn}dist/hitl-elements.ja.js`, `${cdn}dist/hitl-elements.companions.ja.js`].map((path) =>
      tab.waitForResponse((r) => new URL(r.url()).pathname === path && r.status() === 200, { timeout: 10_000 }),
    );
    await tab.goto(`${site.url}/ja.html`);
    await Promise.all(locales);
    // Elements created once the terms are in say it in Japanese.
    await tab.locator('body').evaluate((body) => body.insertAdjacentHTML('beforeend', '<human-input-form id="later"></human-input-form><conversation-list id="later-list"></conversation-list>'));
    await tab.locator('#later').getByText('フォームを読み込めません：session-url 属性が指定されていません。').waitFor({ timeout: 10_000 });
    await tab.locator('#later-list').getByText('読み込めません：session-url 属性が指定されていません。').waitFor({ timeout: 10_000 });
  } finally {
    await browser.close();
    await site.close();
    await backend.close();
  }
});

test('`npx hitl-service` starts the embedded service from the installed package, with its default fixture', async () => {
  const dir = await installed();
  const bin = (JSON.parse(readFileSync(join(dir, 'package/package.json'), 'utf8')) as { bin: Record<string, string> }).bin['hitl-service']!;
  const child = spawn(process.execPath, [join(dir, 'package', bin), '--port', '0'], { stdio: ['ignore', 'pipe', 'pipe'] });
  try {
    const url = await new Promise<string>((resolve, reject) => {
      let out = '';
      child.stdout.on('data', (d) => {
        out += d;
        const m = /listening on (\S+)/.exec(out);
        if (m) resolve(m[1]!);
      });
      child.stderr.on('data', (d) => (out += d));
      child.once('exit', (code) => reject(new Error(`hitl-service exited (${code}): ${out}`)));
    });
    const info = await fetch(`${url}/info`, { headers: { authorization: 'Bearer app-demo-workflow' } });
    assert.equal(((await info.json()) as { mode: string }).mode, 'workflow');
  } finally {
    child.kill('SIGTERM');
  }
});

test('the generated React, Vue and JSX typings type-check as shipped (library checks on)', async () => {
  const dir = await installed();
  // Svelte's and Solid's typings need those frameworks' own types, which this project does not install.
  const files = ['react', 'vue', 'jsx'].map((name) => join(dir, 'package/dist/types', `${name}.d.ts`));
  const config = join(dir, 'tsconfig.typings.json');
  writeFileSync(config, JSON.stringify({ compilerOptions: { target: 'ES2022', lib: ['ES2022', 'DOM', 'DOM.Iterable'], module: 'ESNext', moduleResolution: 'bundler', strict: true, noEmit: true, skipLibCheck: false, types: [] }, files }));
  await run(join(REPO, 'node_modules/.bin/tsc'), ['-p', config]).catch((error: { stdout?: string }) => {
    assert.fail(`the typings do not type-check:\n${error.stdout}`);
  });
});
