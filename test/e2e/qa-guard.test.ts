/**
 * The demo host backend keeps its QA controls to the QA page: loopback callers only (whatever
 * the path's spelling), and never a request sent by another site open in the same browser.
 */
import assert from 'node:assert/strict';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { connect } from 'node:net';
import { after, before, test } from 'node:test';
import { createHostBackend, type HostBackend } from '../../demo/host-backend.js';

let backend: HostBackend;
let remote: { port: number; close(): void };
let local: { port: number; close(): void };

/** A server on loopback whose callers look like `address`, as a demo bound to a public address would see them. */
async function serve(address: string | undefined): Promise<{ port: number; close(): void }> {
  const server = createServer((req, res) => {
    if (address) Object.defineProperty(req.socket, 'remoteAddress', { value: address, configurable: true });
    if (!backend.handle(req, res)) res.writeHead(404).end();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { port: (server.address() as AddressInfo).port, close: () => (server.closeAllConnections(), server.close()) };
}

/** The status line of a raw request: the path goes out exactly as written (no client normalises it). */
function rawStatus(port: number, method: string, path: string, headers: Record<string, string> = {}, body = ''): Promise<number> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, '127.0.0.1');
    let answer = '';
    socket.on('data', (chunk) => (answer += chunk));
    socket.on('end', () => resolve(Number(/^HTTP\/1\.1 (\d{3})/.exec(answer)?.[1])));
    socket.on('error', reject);
    const lines = Object.entries({ Host: 'demo.example', 'Content-Length': String(Buffer.byteLength(body)), Connection: 'close', ...headers }).map(([k, v]) => `${k}: ${v}`);
    // write, not end: a half-closed socket makes Node drop an answer that is still on its way.
    socket.write(`${method} ${path} HTTP/1.1\r\n${lines.join('\r\n')}\r\n\r\n${body}`);
  });
}

before(async () => {
  backend = await createHostBackend({ servicePort: 0 });
  remote = await serve('203.0.113.7');
  local = await serve(undefined);
});
after(async () => {
  remote.close();
  local.close();
  await backend.close();
});

test('a remote caller is refused however the path is spelled', async () => {
  for (const path of ['/api/qa', '/api/x/../qa', '/api/qa/../qa', '/api/%2e%2e/api/qa', '/api/x/%2e%2e/qa/reset']) {
    assert.equal(await rawStatus(remote.port, 'GET', path), 403, path);
  }
  assert.equal(await rawStatus(remote.port, 'POST', '/api/x/../qa/reset'), 403);
  assert.equal(await rawStatus(local.port, 'GET', '/api/x/../qa'), 200, 'loopback callers pass, whatever the spelling');
});

test('a request another site makes from the QA person’s browser is refused', async () => {
  const json = { 'Content-Type': 'application/json' };
  assert.equal(await rawStatus(local.port, 'POST', '/api/qa/cut-next-stream', { ...json, 'Sec-Fetch-Site': 'cross-site' }, '{"after":1}'), 403);
  assert.equal(await rawStatus(local.port, 'POST', '/api/qa/reset', { 'Content-Type': 'text/plain', Origin: 'http://127.0.0.2:8080' }), 403);
  const settings = async () => (await (await fetch(`http://127.0.0.1:${local.port}/api/qa`)).json()) as { cutStreamAfter: number | null };
  assert.equal((await settings()).cutStreamAfter, null, 'nothing changed');
  // The QA page itself (same origin) still works.
  assert.equal(await rawStatus(local.port, 'PATCH', '/api/qa/settings', { ...json, 'Sec-Fetch-Site': 'same-origin', Origin: 'http://demo.example' }, '{"latencyMs":0}'), 200);
});
