/** A relay in front of the upstream given as argv[2], mounted in Node's http server; prints its URL and a session token. */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createRelay } from '../../src/relay/index.js';
import { toNodeListener } from '../../src/relay/node.js';

const upstreamUrl = process.argv[2]!;
const apiKey = process.argv[3] ?? 'app-bench-key';
const relay = createRelay({
  upstreamUrl,
  apiKey,
  secret: 'bench-secret-0123456789-abcdefghijklmnop',
  basePath: '/relay',
  maxUploadBytes: 1024 * 1024 * 1024,
  rateLimit: false,
  maxStreamsPerUser: false,
});
const { token } = await relay.createSession({ user: 'bench' });
const server = createServer(toNodeListener(relay));
process.on('SIGINT', () => process.exit(0));
server.listen(0, '127.0.0.1', () => console.log(JSON.stringify({ url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/relay`, token })));
