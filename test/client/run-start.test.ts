/** The typed client's run starts carry the caller's idempotency key (issue 12.4), over real HTTP. */
import assert from 'node:assert/strict';
import { createServer, type IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, test } from 'node:test';
import { AppClient } from '../../src/client/index.js';

const seen: IncomingHttpHeaders[] = [];
const server = createServer((req, res) => {
  seen.push(req.headers);
  req.resume().on('end', () => {
    if (req.headers.accept === 'text/event-stream') {
      res.writeHead(200, { 'Content-Type': 'text/event-stream' }).end('data: {"event":"workflow_started","workflow_run_id":"r1","task_id":"t1","data":{"id":"r1"}}\n\n');
    } else res.writeHead(200, { 'Content-Type': 'application/json' }).end('{"workflow_run_id":"r1","task_id":"t1","data":{"id":"r1","status":"succeeded"}}');
  });
});
let client: AppClient;

before(async () => {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  client = new AppClient({ baseUrl: `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`, credential: 'app-key' });
});
after(() => server.close());

test('streamWorkflow, runWorkflow and prepareStreamWorkflow send Idempotency-Key when given one, and none otherwise', async () => {
  seen.length = 0;
  const key = crypto.randomUUID();
  for await (const _ of client.streamWorkflow({ inputs: {}, user: 'u' }, undefined, undefined, { idempotencyKey: key }));
  await client.runWorkflow({ inputs: {}, user: 'u' }, undefined, 'wf-1', { idempotencyKey: key });
  for await (const _ of client.streamWorkflow({ inputs: {}, user: 'u' }));
  assert.deepEqual(seen.map((h) => h['idempotency-key']), [key, key, undefined]);
  const prepared = await client.prepareStreamWorkflow({ inputs: {}, user: 'u' }, { idempotencyKey: key });
  assert.equal(prepared.init.headers['Idempotency-Key'], key);
  assert.equal(prepared.init.headers.Accept, 'text/event-stream');
  assert.equal((await client.prepareStreamWorkflow({ inputs: {}, user: 'u' })).init.headers['Idempotency-Key'], undefined);
});
