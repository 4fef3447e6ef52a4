/**
 * The Next.js example (demo/next) built with `next build` against the package's build output,
 * once per content of its inputs (the example's files, the package build, Next's version), and
 * started with `next start`. It is built where a user builds it, in its own folder (`.next`, with
 * `hitl-elements` linked into its node_modules as if installed): inside this clone, never in the
 * OS temp folder, and not under node_modules/.cache either, where Next compiles no app code
 * (its loaders leave node_modules alone; Turbopack panics).
 *
 * The build runs without RELAY_SECRET or APP_API_KEY: the example creates its relay at the first
 * request, and a build must not need the secrets.
 *
 * Next is installed into the example's own node_modules (`npm install` there, from its
 * package.json), not into the repository's lock: the registry mirror CI installs from lacks
 * Next's macOS and Windows compiler packages, which a lock written here cannot record, and
 * `npm ci` then refuses the whole lock. React and the types resolve from the repository's
 * node_modules (peers are not installed a second time, so there is one React).
 */
import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readdirSync, readFileSync, realpathSync, rmSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { basename, join } from 'node:path';
import { promisify } from 'node:util';
import { builtPackage, REPO } from './package-build.js';

const SOURCE = join(REPO, 'demo/next');
const NEXT_PACKAGE = join(SOURCE, 'node_modules/next/package.json');
const NEXT_BIN = join(SOURCE, 'node_modules/next/dist/bin/next');
/** Written into `.next` after a build: the hash of the inputs it was built from. */
const STAMP = join(SOURCE, '.next', 'hitl-inputs');
/** What Next writes into the example's folder: not inputs. */
const OUTPUTS = new Set(['.next', 'node_modules', 'next-env.d.ts']);

function inputsHash(packageRoot: string): string {
  const hash = createHash('sha256').update(basename(packageRoot)).update(readFileSync(NEXT_PACKAGE));
  const add = (path: string) => {
    for (const entry of readdirSync(join(SOURCE, path)).sort()) {
      if (path === '.' && OUTPUTS.has(entry)) continue;
      const rel = join(path, entry);
      if (statSync(join(SOURCE, rel)).isDirectory()) add(rel);
      else hash.update(rel).update('\0').update(readFileSync(join(SOURCE, rel))).update('\0');
    }
  };
  add('.');
  return hash.digest('hex').slice(0, 16);
}

/** Environment without the example's secrets, as on a build machine. */
function buildEnv(): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { ...process.env, NEXT_TELEMETRY_DISABLED: '1' };
  for (const name of ['RELAY_SECRET', 'APP_API_KEY', 'UPSTREAM_URL', 'NODE_OPTIONS']) delete env[name];
  return env;
}

let built: Promise<{ dir: string; buildMs: number }> | undefined;

/** The folder of the built example (`.next` inside); `buildMs` is 0 when a cached build served. */
export function builtNextExample(): Promise<{ dir: string; buildMs: number }> {
  built ??= build();
  return built;
}

/** Installs the example's own dependencies (Next) when they are missing or not the version it names. */
async function installNext(): Promise<void> {
  const wanted = (JSON.parse(readFileSync(join(SOURCE, 'package.json'), 'utf8')) as { dependencies: { next: string } }).dependencies.next;
  if (existsSync(NEXT_PACKAGE) && (JSON.parse(readFileSync(NEXT_PACKAGE, 'utf8')) as { version: string }).version === wanted) return;
  const npm = process.platform === 'win32' ? 'npm.cmd' : 'npm';
  await promisify(execFile)(npm, ['install', '--no-save', '--no-package-lock', '--legacy-peer-deps', '--no-audit', '--no-fund', '--loglevel=error'], { cwd: SOURCE, maxBuffer: 16 * 1024 * 1024 }).catch((error: { stdout?: string; stderr?: string }) => {
    throw new Error(`npm install in demo/next failed:\n${`${error.stdout ?? ''}\n${error.stderr ?? ''}`.trim().split('\n').slice(-20).join('\n')}`);
  });
}

async function build(): Promise<{ dir: string; buildMs: number }> {
  const [packageRoot] = await Promise.all([builtPackage(), installNext()]);
  const hash = inputsHash(packageRoot);
  const link = join(SOURCE, 'node_modules/hitl-elements');
  const linked = existsSync(join(link, 'package.json')) && realpathSync(link) === realpathSync(packageRoot);
  if (linked && existsSync(STAMP) && readFileSync(STAMP, 'utf8') === hash) return { dir: SOURCE, buildMs: 0 };
  rmSync(join(SOURCE, '.next'), { recursive: true, force: true });
  rmSync(link, { recursive: true, force: true });
  mkdirSync(join(SOURCE, 'node_modules'), { recursive: true });
  // `hitl-elements` as an installed dependency; next, react and the rest resolve from the clone's node_modules.
  symlinkSync(packageRoot, link, 'dir');
  const started = Date.now();
  await promisify(execFile)(process.execPath, [NEXT_BIN, 'build'], { cwd: SOURCE, env: buildEnv(), maxBuffer: 16 * 1024 * 1024 }).catch((error: { stdout?: string; stderr?: string }) => {
    throw new Error(`next build failed:\n${`${error.stdout ?? ''}\n${error.stderr ?? ''}`.trim().split('\n').slice(-30).join('\n')}`);
  });
  writeFileSync(STAMP, hash);
  return { dir: SOURCE, buildMs: Date.now() - started };
}

async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise((resolve) => server.close(resolve));
  return port;
}

export interface StartedNext {
  url: string;
  close(): Promise<void>;
}

/** `next start` on the built example, with the secrets it needs at run time. */
export async function startNextExample(dir: string, env: Record<string, string>): Promise<StartedNext> {
  const port = await freePort();
  const child: ChildProcess = spawn(process.execPath, [NEXT_BIN, 'start', '-p', String(port), '-H', '127.0.0.1'], { cwd: dir, env: { ...buildEnv(), ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  await new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`next start did not get ready:\n${output}`)), 60_000);
    const onData = (chunk: Buffer) => {
      output += chunk;
      if (/Ready in|✓ Ready/.test(output)) {
        clearTimeout(timer);
        resolve();
      }
    };
    child.stdout!.on('data', onData);
    child.stderr!.on('data', onData);
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`next start exited (${code}):\n${output}`));
    });
  });
  return {
    url: `http://127.0.0.1:${port}`,
    close: async () => {
      if (child.exitCode !== null) return;
      const exited = new Promise((resolve) => child.once('exit', resolve));
      child.kill('SIGTERM');
      await exited;
    },
  };
}
