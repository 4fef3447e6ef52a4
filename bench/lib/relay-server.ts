/**
 * A relay in front of the upstream given as argv[2] (API key argv[3]), mounted in Node's http
 * server; argv[4], when given, is JSON merged into the relay's options (the streams row turns the
 * per-user stream cap back on). Prints its URL and a session token.
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createRelay, type RelayOptions } from '../../src/relay/index.js';
import { toNodeListener } from '../../src/relay/node.js';
import './heap-probe.js';

const upstreamUrl = process.argv[2]!;
const apiKey = process.argv[3] ?? 'app-bench-key';
const extra = JSON.parse(process.argv[4] ?? '{}') as Partial<RelayOptions>;
const relay = createRelay({
  upstreamUrl,
  apiKey,
  secret: 'bench-secret-0123456789-abcdefghijklmnop',
  basePath: '/relay',
  maxUploadBytes: 1024 * 1024 * 1024,
  rateLimit: false,
  maxStreamsPerUser: false,
  ...extra,
});
const { token } = await relay.createSession({ user: 'bench' });
const server = createServer(toNodeListener(relay));
process.on('SIGINT', () => process.exit(0));
server.listen(0, '127.0.0.1', () => console.log(JSON.stringify({ url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/relay`, token })));
