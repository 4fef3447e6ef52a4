/** Serves the embedded service over HTTP on loopback. */
import { serve } from '@hono/node-server';
import type { AddressInfo } from 'node:net';
import { createService, type EmbeddedService, type ServiceOptions } from './service.js';

export interface RunningService {
  /** Base URL of the API, e.g. `http://127.0.0.1:5001/v1`. */
  readonly url: string;
  readonly port: number;
  readonly service: EmbeddedService;
  close(): Promise<void>;
}

export async function startService(options: ServiceOptions & { port?: number; host?: string }): Promise<RunningService> {
  const service = createService(options);
  const host = options.host ?? '127.0.0.1';
  const server = await new Promise<ReturnType<typeof serve>>((resolve, reject) => {
    const s = serve(
      {
        fetch: (request, env: { incoming?: { socket?: { remoteAddress?: string } } }) =>
          service.fetch(request, { remoteAddress: env.incoming?.socket?.remoteAddress }),
        port: options.port ?? 5001,
        hostname: host,
      },
      () => resolve(s),
    );
    s.once('error', reject);
  });
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://${host}:${port}${options.basePath ?? '/v1'}`,
    port,
    service,
    close: () =>
      new Promise<void>((resolve) => {
        service.close();
        server.close(() => resolve());
        (server as unknown as { closeAllConnections?: () => void }).closeAllConnections?.();
      }),
  };
}
