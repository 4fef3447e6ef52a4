/** Serves the embedded service over HTTP on loopback. */
import { getRequestListener } from '@hono/node-server';
import { createServer } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
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
  const listener = getRequestListener(
    (request, env: { incoming?: { socket?: { remoteAddress?: string } } }) => service.fetch(request, { remoteAddress: env.incoming?.socket?.remoteAddress }),
    { hostname: host, errorHandler: adapterError },
  );
  const server = createServer(listener);
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 5001, host, () => resolve());
  });
  server.on('clientError', answerClientError);
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

/**
 * A request the adapter cannot make a web `Request` of (`GET *`, a backslash in the path, a Host
 * header that is no host), or a handler that threw: in the API's shape too, not a bare 400.
 */
function adapterError(error: unknown): Response {
  const malformed = error instanceof Error && error.name === 'RequestError';
  if (!malformed) console.error('[service]', error);
  const body = malformed ? { code: 'bad_request', message: 'The request line or its Host header is malformed.', status: 400 } : { code: 'internal_server_error', message: 'The server encountered an internal error.', status: 500 };
  return new Response(JSON.stringify(body), { status: body.status, headers: { 'Content-Type': 'application/json' } });
}

/**
 * A request Node's HTTP parser refuses (a raw non-ASCII path, a bad chunk size, headers too
 * large) never reaches the service; Node's own answer is a bare status line. This one keeps the
 * API's `{code, message, status}` shape, so every client error reads the same.
 */
function answerClientError(error: Error & { code?: string }, socket: Socket): void {
  if (!socket.writable || error.code === 'ECONNRESET') return void socket.destroy();
  const [status, code, message] =
    error.code === 'HPE_HEADER_OVERFLOW'
      ? [431, 'request_header_fields_too_large', 'The request headers are too large.']
      : error.code === 'ERR_HTTP_REQUEST_TIMEOUT'
        ? [408, 'request_timeout', 'The request took too long to arrive.']
        : [400, 'bad_request', 'The request is not valid HTTP.'];
  const body = JSON.stringify({ code, message, status });
  socket.end(`HTTP/1.1 ${status} ${status === 431 ? 'Request Header Fields Too Large' : status === 408 ? 'Request Timeout' : 'Bad Request'}\r\nContent-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`);
}
