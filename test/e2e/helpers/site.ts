/**
 * A static site on loopback, as a customer's web server would serve built pages, with the sample
 * host backend mounted on /api: inline pages by path, and folders by URL prefix.
 */
import { existsSync, readFileSync, statSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { extname, join, normalize } from 'node:path';
import type { HostBackend } from '../../../demo/host-backend.js';

const TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript',
  '.mjs': 'text/javascript',
  '.css': 'text/css',
  '.json': 'application/json',
  '.map': 'application/json',
  '.svg': 'image/svg+xml',
};

export interface Site {
  url: string;
  close(): Promise<void>;
}

export async function serveSite(backend: HostBackend, options: { pages?: Record<string, string>; folders?: Record<string, string> }): Promise<Site> {
  const server = createServer((req, res) => {
    if (backend.handle(req, res)) return;
    const path = decodeURIComponent((req.url ?? '/').split('?')[0]!);
    const page = options.pages?.[path];
    if (page !== undefined) {
      res.writeHead(200, { 'Content-Type': TYPES['.html']! });
      res.end(page);
      return;
    }
    for (const [prefix, folder] of Object.entries(options.folders ?? {})) {
      if (!path.startsWith(prefix)) continue;
      let file = normalize(join(folder, path.slice(prefix.length)));
      if (!file.startsWith(normalize(folder))) break;
      if (existsSync(file) && statSync(file).isDirectory()) file = join(file, 'index.html');
      if (!existsSync(file)) break;
      res.writeHead(200, { 'Content-Type': TYPES[extname(file)] ?? 'application/octet-stream' });
      res.end(readFileSync(file));
      return;
    }
    res.writeHead(404, { 'Content-Type': 'text/plain' });
    res.end('Not found');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    close: async () => {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
