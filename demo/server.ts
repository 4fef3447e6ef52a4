/**
 * `npm start`: the demo pages (served by Vite, but for the static script-tag page), the sample
 * host backend (session endpoint, relays, QA controls) and, unless `UPSTREAM_URL` is set, the
 * embedded service. Prints the demo URL.
 *
 * Pages: `/` the QA page; `/react/`, `/vue/` and `/esm/` the framework and plain-module examples;
 * `/script-tag/` the page that uses only the script-tag bundle (from `npm run build`), served with
 * the locale files built beside it. The examples' own Vite configs use the plugins exported here.
 */
import react from '@vitejs/plugin-react';
import vue from '@vitejs/plugin-vue';
import { existsSync, readFileSync } from 'node:fs';
import { createServer, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { createServer as createVite, type Plugin, type PreviewServer, type ViteDevServer } from 'vite';
import { createHostBackend, type HostBackend, type HostBackendOptions } from './host-backend.js';

export const REPO_ROOT = fileURLToPath(new URL('..', import.meta.url));
const PACKAGE_NAME = 'hitl-elements';

export interface DemoOptions extends HostBackendOptions {
  port?: number;
  host?: string;
  /** Where `npm run build` put the script-tag bundle and its locale files (default `dist/`). */
  bundleDir?: string;
}

/** The script-tag bundle, its locale files (`hitl-elements.ja.js`, `….companions.zh-Hans.js`…) and source map. */
const BUNDLE_FILE = /^\/(hitl-elements(?:\.[\w-]+)*\.js(?:\.map)?)$/;
const NEEDS_BUILD = 'Run `npm run build` first: the script-tag page loads dist/hitl-elements.js.';
const SCRIPT_TAG_PAGE = /^\/script-tag(\/|\/index\.html)?$/;

/**
 * The script-tag page, served as a static site would serve it (not through Vite, whose client
 * script would be a script of its own), with a notice on it while there is no bundle to load:
 * the page has no script that could notice.
 */
function scriptTagPage(res: ServerResponse, path: string, bundleDir: string): void {
  if (path === '/script-tag') {
    res.writeHead(301, { Location: '/script-tag/' });
    res.end();
    return;
  }
  let html = readFileSync(join(REPO_ROOT, 'demo', 'script-tag', 'index.html'), 'utf8');
  if (!existsSync(join(bundleDir, 'hitl-elements.js'))) {
    const notice = NEEDS_BUILD.replace(/`([^`]+)`/, '<code>$1</code>');
    html = html.replace('<main>', `<main>\n      <p role="alert" class="needs-build">${notice} Then reload this page.</p>`);
  }
  res.writeHead(200, { 'Content-Type': 'text/html; charset=utf-8', 'Cache-Control': 'no-store' });
  res.end(html);
}

export interface RunningDemo {
  url: string;
  backend: HostBackend;
  close(): Promise<void>;
}

export async function startDemo(options: DemoOptions = {}): Promise<RunningDemo> {
  const backend = await createHostBackend(options);
  const bundleDir = options.bundleDir ?? join(REPO_ROOT, 'dist');
  let vite: ViteDevServer | undefined;
  const server: Server = createServer((req, res) => {
    if (backend.handle(req, res)) return;
    const path = (req.url ?? '').split('?')[0]!;
    if (SCRIPT_TAG_PAGE.test(path)) {
      scriptTagPage(res, path, bundleDir);
      return;
    }
    const bundleFile = BUNDLE_FILE.exec(path)?.[1];
    if (bundleFile) {
      // The script-tag page uses the real bundle, so it needs `npm run build` first.
      const file = join(bundleDir, bundleFile);
      const built = existsSync(file);
      const type = bundleFile.endsWith('.map') ? 'application/json' : 'text/javascript';
      res.writeHead(built ? 200 : 404, { 'Content-Type': built ? type : 'text/plain', 'Cache-Control': 'no-store' });
      res.end(built ? readFileSync(file) : NEEDS_BUILD);
      return;
    }
    vite!.middlewares(req, res);
  });
  vite = await createVite({
    configFile: false,
    root: fileURLToPath(new URL('.', import.meta.url)),
    // Vite's client socket shares the demo's port, so demos (and tests) can run side by side.
    server: { middlewareMode: true, hmr: false, ws: { server } },
    appType: 'mpa',
    logLevel: 'warn',
    // The examples run from the sources here, so `npm start` needs no build.
    plugins: [hitlPackage({ source: true }), react(), vue(vueOptions())],
  });
  const host = options.host ?? '127.0.0.1';
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 5173, host, resolve);
  });
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://${host}:${port}/`,
    backend,
    close: async () => {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      await vite!.close();
      await backend.close();
    },
  };
}

/**
 * Resolves `hitl-elements` and its subpaths through the package's `exports`, as an installed copy
 * would: to the build output under `root` (default the repository, or `HITL_PACKAGE_ROOT`, which
 * the tests point at an isolated build), or with `source` to the TypeScript sources instead.
 */
export function hitlPackage(options: { root?: string; source?: boolean } = {}): Plugin {
  const root = options.root ?? process.env.HITL_PACKAGE_ROOT ?? REPO_ROOT;
  const exports = (JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as { exports: Record<string, string | { import: string }> }).exports;
  return {
    name: 'hitl-package',
    enforce: 'pre',
    resolveId(id) {
      if (id !== PACKAGE_NAME && !id.startsWith(`${PACKAGE_NAME}/`)) return null;
      const entry = exports[`.${id.slice(PACKAGE_NAME.length)}`];
      if (entry === undefined) return null; // Vite reports the unresolved import
      const target = typeof entry === 'string' ? entry : entry.import;
      if (!options.source || !target.startsWith('./dist/')) return join(root, target);
      if (target === './dist/hitl-elements.js') return join(REPO_ROOT, 'src/elements/define-all.ts');
      if (target === './dist/react.js') return '\0hitl-react-typings';
      return join(REPO_ROOT, target.replace(/^\.\/dist\//, 'src/').replace(/\.js$/, '.ts'));
    },
    load(id) {
      // `hitl-elements/react` holds JSX typings only.
      return id === '\0hitl-react-typings' ? 'export {};' : null;
    },
  };
}

/** The tag of every element in the package's custom-elements.json. */
export function customElementTags(root = process.env.HITL_PACKAGE_ROOT ?? REPO_ROOT): string[] {
  const manifest = JSON.parse(readFileSync(join(root, 'custom-elements.json'), 'utf8')) as {
    modules: { declarations?: { customElement?: boolean; tagName?: string }[] }[];
  };
  return manifest.modules.flatMap((m) => m.declarations ?? []).flatMap((d) => (d.customElement && d.tagName ? [d.tagName] : []));
}

/** `@vitejs/plugin-vue` options that leave the package's tags to the browser's custom elements. */
export function vueOptions(root?: string) {
  const tags = new Set(customElementTags(root));
  return { template: { compilerOptions: { isCustomElement: (tag: string) => tags.has(tag) } } };
}

/**
 * Mounts the sample host backend (`/api/…`) on Vite's dev and preview servers, so an example
 * works under `vite` and `vite preview` as it does behind a real backend. Created on first use
 * (a build never starts it) from `UPSTREAM_URL` / `APP_API_KEY` when set.
 */
export function hostBackendPlugin(make: () => Promise<HostBackend> = () => createHostBackend(optionsFromEnv())): Plugin {
  let backend: Promise<HostBackend> | undefined;
  const mount = (server: ViteDevServer | PreviewServer) => {
    backend ??= make();
    server.httpServer?.once('close', () => void backend?.then((b) => b.close()));
    server.middlewares.use((req, res, next) => {
      void backend!.then((b) => b.handle(req, res) || next(), next);
    });
  };
  return { name: 'hitl-host-backend', configureServer: mount, configurePreviewServer: mount };
}

/** Host backend options from the environment: `UPSTREAM_URL` + `APP_API_KEY`, `SERVICE_PORT`, `REDIS_URL`. */
export function optionsFromEnv(env = process.env): HostBackendOptions {
  const upstreamUrl = env.UPSTREAM_URL || undefined;
  if (upstreamUrl && !env.APP_API_KEY) throw new Error('UPSTREAM_URL needs APP_API_KEY (the app key of that deployment).');
  return { upstreamUrl, apiKey: env.APP_API_KEY || undefined, servicePort: Number(env.SERVICE_PORT ?? 5001), redisUrl: env.REDIS_URL || undefined };
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  try {
    const demo = await startDemo({ ...optionsFromEnv(), port: Number(process.env.PORT ?? 5173) });
    console.log(demo.backend.service ? `Embedded service: ${demo.backend.upstreamUrl}` : `Upstream: ${demo.backend.upstreamUrl}`);
    if (process.env.REDIS_URL) console.log('Relay state: Redis (REDIS_URL)');
    const fixture = demo.backend.service?.service.fixture;
    if (fixture) {
      // The embedded service's keys are fixture data, not secrets: QA uses them to script scenarios.
      console.log(`App keys: ${fixture.apps.map((a) => a.key).join(', ')}`);
      const knowledgeKeys = fixture.knowledge?.keys.map((k) => k.key) ?? [];
      if (knowledgeKeys.length) console.log(`Knowledge keys: ${knowledgeKeys.join(', ')}`);
    }
    console.log(`Demo: ${demo.url}  (examples: ${demo.url}react/  ${demo.url}vue/  ${demo.url}esm/  ${demo.url}script-tag/)`);
    const stop = () => void demo.close().then(() => process.exit(0));
    process.on('SIGINT', stop);
    process.on('SIGTERM', stop);
  } catch (error) {
    console.error(`Cannot start the demo: ${(error as Error).message}`);
    process.exit(1);
  }
}
