/**
 * `npm start`: the demo page (served by Vite), the sample host backend (session endpoint and
 * relay) and, unless `UPSTREAM_URL` is set, the embedded service. Prints the demo URL.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { fileURLToPath } from 'node:url';
import { createServer as createVite, type ViteDevServer } from 'vite';
import { createHostBackend, type HostBackend, type HostBackendOptions } from './host-backend.js';

export interface DemoOptions extends HostBackendOptions {
  port?: number;
  host?: string;
}

export interface RunningDemo {
  url: string;
  backend: HostBackend;
  close(): Promise<void>;
}

export async function startDemo(options: DemoOptions = {}): Promise<RunningDemo> {
  const backend = await createHostBackend(options);
  const vite: ViteDevServer = await createVite({
    configFile: false,
    root: fileURLToPath(new URL('.', import.meta.url)),
    server: { middlewareMode: true, hmr: false },
    appType: 'mpa',
    logLevel: 'warn',
  });
  const server: Server = createServer((req, res) => {
    if (!backend.handle(req, res)) vite.middlewares(req, res);
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
      await vite.close();
      await backend.close();
    },
  };
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const upstreamUrl = process.env.UPSTREAM_URL;
  if (upstreamUrl && !process.env.APP_API_KEY) {
    console.error('UPSTREAM_URL needs APP_API_KEY (the app key of that deployment).');
    process.exit(1);
  }
  try {
    const demo = await startDemo({
      upstreamUrl,
      apiKey: process.env.APP_API_KEY,
      port: Number(process.env.PORT ?? 5173),
      servicePort: Number(process.env.SERVICE_PORT ?? 5001),
    });
    console.log(demo.backend.service ? `Embedded service: ${demo.backend.upstreamUrl}` : `Upstream: ${demo.backend.upstreamUrl}`);
    console.log(`Demo: ${demo.url}`);
    const stop = () => void demo.close().then(() => process.exit(0));
    process.on('SIGINT', stop);
    process.on('SIGTERM', stop);
  } catch (error) {
    console.error(`Cannot start the demo: ${(error as Error).message}`);
    process.exit(1);
  }
}
