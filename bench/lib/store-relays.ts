/**
 * The `relay-store` row's servers: a small upstream and the same relay mounted twice in front of
 * it, once with the in-memory store and once with Redis (the URL in argv[2]). Prints both relays'
 * URLs and a session token for each.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createRelay, MemoryRelayStore, type RelayStore } from '../../src/relay/index.js';
import { toNodeListener } from '../../src/relay/node.js';
import { createRedisStore } from '../../src/relay/redis.js';

const SECRET = 'bench-secret-0123456789-abcdefghijklmnop';

function listen(server: Server): Promise<string> {
  return new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve(`http://127.0.0.1:${(server.address() as AddressInfo).port}`)));
}

const upstream = createServer((req, res) => {
  req.resume();
  req.on('end', () => {
    if (req.url?.includes('/events')) {
      res.writeHead(200, { 'Content-Type': 'text/event-stream' });
      res.end('data: {"event":"workflow_finished","workflow_run_id":"r","task_id":"r","data":{}}\n\n');
      return;
    }
    res.writeHead(200, { 'Content-Type': 'application/json' });
    res.end('{"title":"Bench","chat_color_theme":null,"default_language":"en-US"}');
  });
});
const upstreamUrl = `${await listen(upstream)}/v1`;

async function mount(store: RelayStore): Promise<{ url: string; token: string }> {
  // Limits high enough never to refuse: the row times the store calls, not refusals.
  const relay = createRelay({ upstreamUrl, apiKey: 'app-bench', secret: SECRET, store, rateLimit: { requests: 1e9 }, maxStreamsPerUser: 1000 });
  const url = await listen(createServer(toNodeListener(relay)));
  return { url, token: (await relay.createSession({ user: 'bench' })).token };
}

const memory = await mount(new MemoryRelayStore());
const redis = await mount(createRedisStore({ url: process.argv[2]! }));
process.on('SIGINT', () => process.exit(0));
console.log(JSON.stringify({ memory, redis }));
