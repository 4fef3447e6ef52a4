/**
 * The package as `npm run build` makes it, built once per content of its inputs into a cache
 * folder that every end-to-end test shares, so tests use the real build output without racing a
 * developer's own `dist/`. The folder is laid out like an installed copy: package.json, dist/,
 * custom-elements.json, and node_modules linked to the repository's.
 *
 * The cache lives inside this clone (`node_modules/.cache/`), never in the OS temp folder: a cache
 * shared between clones kept a link to the first clone's node_modules, and once that clone was
 * deleted every later clone (CI's fresh checkout included) reused it through a dangling link.
 * An entry is reused only when its node_modules link still resolves to this clone's.
 */
import { execFile } from 'node:child_process';
import { createHash } from 'node:crypto';
import { cpSync, existsSync, mkdirSync, readdirSync, readFileSync, realpathSync, renameSync, rmSync, statSync, symlinkSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';

export const REPO = resolve(import.meta.dirname, '../../..');
const INPUTS = ['src', 'scripts', 'package.json', 'vite.config.ts', 'tsconfig.build.json', 'tsconfig.node.json', 'custom-elements-manifest.config.mjs'];
export const CACHE = join(REPO, 'node_modules', '.cache', 'hitl-elements-build');
const STALE_MS = 60 * 60 * 1000;

function inputsHash(): string {
  const hash = createHash('sha256');
  const add = (path: string) => {
    const full = join(REPO, path);
    if (!existsSync(full)) return;
    if (statSync(full).isDirectory()) {
      for (const entry of readdirSync(full).sort()) add(join(path, entry));
    } else {
      hash.update(path).update('\0').update(readFileSync(full)).update('\0');
    }
  };
  for (const input of INPUTS) add(input);
  return hash.digest('hex').slice(0, 16);
}

let built: Promise<string> | undefined;

/** The root of a built copy of the package; builds it when its inputs changed since the last build. */
export function builtPackage(): Promise<string> {
  built ??= build();
  return built;
}

/** Whether a cached build can serve this clone: complete, and linked to this clone's node_modules. */
export function usableBuild(root: string, repo = REPO): boolean {
  if (!existsSync(join(root, 'package.json'))) return false;
  try {
    return realpathSync(join(root, 'node_modules')) === realpathSync(join(repo, 'node_modules'));
  } catch {
    return false; // a dangling link
  }
}

async function build(): Promise<string> {
  const hash = inputsHash();
  const root = join(CACHE, hash);
  if (usableBuild(root)) return root;
  rmSync(root, { recursive: true, force: true });
  mkdirSync(CACHE, { recursive: true });
  for (const old of readdirSync(CACHE)) {
    const path = join(CACHE, old);
    if (old !== hash && Date.now() - statSync(path).mtimeMs > STALE_MS) rmSync(path, { recursive: true, force: true });
  }
  const staging = join(CACHE, `${hash}.${process.pid}`);
  rmSync(staging, { recursive: true, force: true });
  await promisify(execFile)(process.execPath, ['scripts/build.mjs', '--out-dir', join(staging, 'dist'), '--no-budget'], { cwd: REPO }).catch((error: { stdout?: string; stderr?: string }) => {
    throw new Error(`npm run build failed:\n${`${error.stdout ?? ''}\n${error.stderr ?? ''}`.trim().split('\n').slice(-15).join('\n')}`);
  });
  cpSync(join(REPO, 'package.json'), join(staging, 'package.json'));
  cpSync(join(staging, 'dist', 'custom-elements.json'), join(staging, 'custom-elements.json'));
  symlinkSync(join(REPO, 'node_modules'), join(staging, 'node_modules'), 'dir');
  try {
    renameSync(staging, root);
  } catch {
    // Another test process finished the same build first; its copy is as good as ours.
    rmSync(staging, { recursive: true, force: true });
  }
  return root;
}
