/** `REDIS_URL` puts the demo backend's relay state in that Redis (what `npm start` runs). */
import assert from 'node:assert/strict';
import { createServer } from 'node:http';
import { test } from 'node:test';
import { Redis } from 'ioredis';
import { createHostBackend, RELAY_PATH, SESSION_PATH } from '../../demo/host-backend.js';
import { optionsFromEnv } from '../../demo/server.js';
import { bearer, closeServer, listen } from './helpers.js';
import { startRedis } from './redis-helpers.js';

test('REDIS_URL makes the demo backend keep its rate limits and stream slots in Redis', async () => {
  const redis = await startRedis();
  const options = optionsFromEnv({ REDIS_URL: redis.url, SERVICE_PORT: '0' });
  assert.equal(options.redisUrl, redis.url);
  const backend = await createHostBackend(options);
  const server = createServer((req, res) => void backend.handle(req, res));
  const client = new Redis(redis.url);
  try {
    const origin = await listen(server);
    const grant = (await (await fetch(origin + SESSION_PATH, { method: 'POST', body: '{}' })).json()) as { token: string; relay_url: string };
    const site = await fetch(new URL(`${grant.relay_url}/site`, origin), { headers: bearer(grant.token) });
    assert.equal(site.status, 200);
    await site.arrayBuffer();
    assert.ok(grant.relay_url.startsWith(RELAY_PATH));
    const keys = (await client.keys('hitl:*')).sort();
    assert.ok(keys.some((k) => k.startsWith('hitl:session:')), keys.join(', '));
    assert.ok(keys.some((k) => k.startsWith('hitl:relay:')), keys.join(', '));
  } finally {
    client.disconnect();
    await closeServer(server);
    await backend.close();
    await redis.stop();
  }
});
