/**
 * A run start with an `Idempotency-Key` starts at most one run, whatever the network does: the
 * browser's stream cut before the first event (before or after the answer's headers), a retry
 * while the first attempt is still waiting for its run id, retries through another relay
 * instance sharing Redis. Against the real embedded service, which counts the runs it started;
 * and against a controlled upstream for the answers that made no run (an error, no connection).
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { readRunEvents, type RunEvent } from '../../src/protocol/index.js';
import { createRelay, MemoryRelayStore, type RelayStore } from '../../src/relay/index.js';
import { loadFixture, startService, type RunningService } from '../../src/service/index.js';
import { bearer, readAll, SECRET, sleep, startUpstream, until, type ControlledUpstream, type MountedRelay, mountRelay } from './helpers.js';
import { startRedis, startRelayInstance, type RedisServer, type RelayInstance } from './redis-helpers.js';

const APP_KEY = 'app-demo-workflow';
const RUN_BODY = { inputs: {}, response_mode: 'streaming' };

let service: RunningService;
let mounted: MountedRelay;

before(async () => {
  service = await startService({ fixture: await loadFixture(), port: 0 });
  mounted = await mountRelay(service.url, { apiKey: APP_KEY, idempotency: { waitSeconds: 0.3 } });
});

after(async () => {
  await mounted?.close();
  await service?.close();
});

function setLatency(ms: number): void {
  service.service.context.qa.settings = { ...service.service.context.qa.settings, latencyMs: ms };
}

/** Runs the service has started for `user`. */
const runsOf = (user: string) => [...service.service.engine.runs.values()].filter((r) => r.user === user);

let keys = 0;
const newKey = () => `key-${Date.now()}-${++keys}`;

function startRun(relayUrl: string, token: string, key: string | undefined, body: unknown = RUN_BODY, signal?: AbortSignal): Promise<Response> {
  return fetch(`${relayUrl}/workflows/run`, {
    method: 'POST',
    headers: { ...bearer(token), 'Content-Type': 'application/json', ...(key === undefined ? {} : { 'Idempotency-Key': key }) },
    body: JSON.stringify(body),
    signal,
  });
}

/** The events of a stream up to and including the first that names the run. */
async function untilRunNamed(response: Response): Promise<RunEvent[]> {
  if (response.status !== 200) assert.fail(`${response.status}: ${await response.text()}`);
  const seen: RunEvent[] = [];
  for await (const event of readRunEvents(response.body!)) {
    seen.push(event);
    if ('workflow_run_id' in event && event.workflow_run_id) break;
  }
  return seen;
}

/** A run start whose browser side is cut before the first event: `when` 'sent' aborts right after sending, 'headers' once the answer's headers arrive. */
async function cutStart(relayUrl: string, token: string, key: string, when: 'sent' | 'headers'): Promise<void> {
  const aborter = new AbortController();
  const started = startRun(relayUrl, token, key, RUN_BODY, aborter.signal);
  if (when === 'sent') {
    await sleep(100);
    aborter.abort();
    await started.catch(() => undefined);
  } else {
    const response = await started;
    assert.equal(response.status, 200);
    aborter.abort();
  }
}

/** Retries `key` until the relay follows the run (a retry during the first attempt's wait answers 409 run_start_pending). */
async function retryUntilFollowed(relayUrl: string, token: string, key: string): Promise<RunEvent[]> {
  for (let attempt = 0; ; attempt++) {
    const response = await startRun(relayUrl, token, key);
    if (response.status === 409 && attempt < 50) {
      const body = (await response.json()) as { code: string };
      assert.equal(body.code, 'run_start_pending');
      assert.equal(response.headers.get('retry-after'), '1');
      continue;
    }
    return untilRunNamed(response);
  }
}

describe('one relay instance, the embedded service', () => {
  for (const when of ['sent', 'headers'] as const) {
    test(`a stream cut before its first event (${when === 'sent' ? 'right after sending' : 'after the headers'}): the retry follows the one run started`, async () => {
      const user = `cut-${when}`;
      const token = (await mounted.relay.createSession({ user })).token;
      const key = newKey();
      setLatency(400);
      try {
        await cutStart(mounted.url, token, key, when);
      } finally {
        setLatency(0);
      }
      await until(() => runsOf(user).length === 1, 'the service to start the run', 10_000);
      const events = await retryUntilFollowed(mounted.url, token, key);
      const [run] = runsOf(user);
      const named = events.at(-1)!;
      assert.equal(named.event, 'workflow_started');
      assert.equal((named as { data: { reason: string } }).data.reason, 'initial', 'a state snapshot of the run, not a new run');
      assert.equal((named as { workflow_run_id: string }).workflow_run_id, run!.id);
      // Once more, for good measure: still the same run.
      const again = await retryUntilFollowed(mounted.url, token, key);
      assert.equal((again.at(-1) as { workflow_run_id: string }).workflow_run_id, run!.id);
      assert.equal(runsOf(user).length, 1, 'the service started exactly one run');
    });
  }

  test('a retry while the first attempt waits for its run id gets 409 run_start_pending with Retry-After', async () => {
    const user = 'pending';
    const token = (await mounted.relay.createSession({ user })).token;
    const key = newKey();
    setLatency(1500);
    const first = startRun(mounted.url, token, key);
    try {
      await sleep(100);
      const started = Date.now();
      const second = await startRun(mounted.url, token, key);
      assert.equal(second.status, 409);
      assert.deepEqual(await second.json(), { code: 'run_start_pending', message: 'A run is being started with this Idempotency-Key; try again shortly.', status: 409 });
      assert.equal(second.headers.get('retry-after'), '1');
      assert.ok(Date.now() - started >= 250, 'it waited (waitSeconds) before answering');
    } finally {
      setLatency(0);
    }
    const events = await untilRunNamed(await first);
    const followed = await retryUntilFollowed(mounted.url, token, key);
    assert.equal((followed.at(-1) as { workflow_run_id: string }).workflow_run_id, (events.at(-1) as { workflow_run_id: string }).workflow_run_id);
    assert.equal(runsOf(user).length, 1);
  });

  test('refusals: a malformed key, the same key with another body, a blocking start; no key behaves as before', async () => {
    const user = 'refusals';
    const token = (await mounted.relay.createSession({ user })).token;
    for (const bad of ['has space', 'x'.repeat(129), 'semi;colon', 'ünï']) {
      const response = await fetch(`${mounted.url}/workflows/run`, {
        method: 'POST',
        headers: { ...bearer(token), 'Content-Type': 'application/json', 'Idempotency-Key': encodeURIComponent(bad) === bad ? bad : bad.replace(/[^\x20-\x7e]/g, '?') },
        body: JSON.stringify(RUN_BODY),
      });
      assert.equal(response.status, 400, bad);
      assert.equal(((await response.json()) as { code: string }).code, 'invalid_idempotency_key');
    }
    const empty = await fetch(`${mounted.url}/workflows/run`, { method: 'POST', headers: { ...bearer(token), 'Idempotency-Key': '' }, body: JSON.stringify(RUN_BODY) });
    assert.equal(empty.status, 400);
    await empty.arrayBuffer();
    const key = newKey();
    await untilRunNamed(await startRun(mounted.url, token, key));
    const reused = await startRun(mounted.url, token, key, { ...RUN_BODY, inputs: { scenario: 'other' } });
    assert.equal(reused.status, 422);
    assert.equal(((await reused.json()) as { code: string }).code, 'idempotency_key_reused');
    // Key order and a forged user do not make a body different.
    const reordered = await startRun(mounted.url, token, key, { response_mode: 'streaming', user: 'mallory', inputs: {} });
    assert.equal((await untilRunNamed(reordered)).at(-1)!.event, 'workflow_started');
    const blocking = await startRun(mounted.url, token, newKey(), { inputs: {}, response_mode: 'blocking' });
    assert.equal(blocking.status, 400);
    assert.equal(((await blocking.json()) as { code: string }).code, 'invalid_param');
    // Without the header, each start is a run of its own, as before.
    await untilRunNamed(await startRun(mounted.url, token, undefined));
    await untilRunNamed(await startRun(mounted.url, token, undefined));
    assert.equal(runsOf(user).length, 3);
  });

  test('the key belongs to one user: another user with the same key starts a run of their own', async () => {
    const key = newKey();
    const [a, b] = await Promise.all(['owner-a', 'owner-b'].map(async (user) => (await mounted.relay.createSession({ user })).token));
    const first = (await untilRunNamed(await startRun(mounted.url, a!, key))).at(-1) as { workflow_run_id: string };
    const second = (await untilRunNamed(await startRun(mounted.url, b!, key))).at(-1) as { workflow_run_id: string };
    assert.notEqual(first.workflow_run_id, second.workflow_run_id);
  });

  test('CORS preflights allow the Idempotency-Key header', async () => {
    const relay = createRelay({ upstreamUrl: service.url, apiKey: APP_KEY, secret: SECRET, cors: { origins: ['https://shop.example'] } });
    const answer = await relay.fetch(new Request('http://relay.test/workflows/run', { method: 'OPTIONS', headers: { Origin: 'https://shop.example', 'Access-Control-Request-Method': 'POST', 'Access-Control-Request-Headers': 'authorization, content-type, idempotency-key' } }));
    assert.equal(answer.status, 204);
    assert.match(answer.headers.get('access-control-allow-headers') ?? '', /\bIdempotency-Key\b/);
  });
});

describe('answers that made no run free the key; answers that may have made one keep it', () => {
  let upstream: ControlledUpstream;
  let relay: MountedRelay;
  let failNextFetch = false;
  let token: string;

  before(async () => {
    upstream = await startUpstream();
    relay = await mountRelay(upstream.url, {
      fetch: (input, init) => {
        if (failNextFetch) {
          failNextFetch = false;
          return Promise.reject(new TypeError('fetch failed', { cause: { code: 'ECONNREFUSED' } }));
        }
        return fetch(input, init);
      },
      log: () => undefined,
    });
    token = (await relay.relay.createSession({ user: 'alice' })).token;
  });
  after(async () => {
    await relay?.close();
    await upstream?.close();
  });

  const sse = (frames: string[]) => async (req: Parameters<ControlledUpstream['handler']>[0], res: Parameters<ControlledUpstream['handler']>[1], received: Parameters<ControlledUpstream['handler']>[2]) => {
    received.body = await readAll(req);
    res.writeHead(200, { 'Content-Type': 'text/event-stream' });
    for (const frame of frames) res.write(frame);
    res.end();
  };
  const STARTED = 'data: {"event":"workflow_started","task_id":"t-1","workflow_run_id":"run-1","data":{"id":"run-1"}}\n\n';

  test('an upstream error, a failed connection or an error event first: the same key starts again; the key never goes upstream', async () => {
    const key = newKey();
    upstream.handler = async (req, res, received) => {
      received.body = await readAll(req);
      res.writeHead(500, { 'Content-Type': 'application/json' });
      res.end('{"code":"internal_server_error","message":"boom","status":500}');
    };
    const failed = await startRun(relay.url, token, key);
    assert.equal(failed.status, 500);
    await failed.arrayBuffer();
    failNextFetch = true;
    const unreachable = await startRun(relay.url, token, key);
    assert.equal(unreachable.status, 502);
    await unreachable.arrayBuffer();
    upstream.handler = sse(['event: ping\n\n', 'data: {"event":"error","code":"completion_request_error","status":400,"message":"quota"}\n\n']);
    const errored = await startRun(relay.url, token, key);
    assert.equal(errored.status, 200);
    await errored.text();
    const before = upstream.requests.length;
    upstream.handler = sse([STARTED]);
    assert.equal((await untilRunNamed(await startRun(relay.url, token, key))).at(-1)!.event, 'workflow_started');
    assert.equal(upstream.requests.length, before + 1, 'the freed key started a run');
    for (const received of upstream.requests) assert.equal(received.headers['idempotency-key'], undefined);
    // Now it follows run-1 instead.
    const follow = await startRun(relay.url, token, key);
    await follow.arrayBuffer();
    const last = upstream.last();
    assert.equal(last.method, 'GET');
    assert.equal(last.url.pathname, '/v1/workflow/run-1/events');
    assert.deepEqual(Object.fromEntries(last.url.searchParams), { user: 'alice', include_state_snapshot: 'true', continue_on_pause: 'true' });
  });

  test('a 2xx stream that ends before naming a run keeps the key: 409 run_start_unknown, never a second start', async () => {
    const key = newKey();
    upstream.handler = sse(['event: ping\n\n']);
    const first = await startRun(relay.url, token, key);
    assert.equal(first.status, 200);
    await first.text();
    const before = upstream.requests.length;
    const retry = await startRun(relay.url, token, key);
    assert.equal(retry.status, 409);
    assert.equal(((await retry.json()) as { code: string }).code, 'run_start_unknown');
    assert.equal(upstream.requests.length, before);
  });

  test('a chat app without a workflow: the repeated key answers 409 run_already_started with the conversation', async () => {
    const key = newKey();
    upstream.handler = sse(['data: {"event":"message","task_id":"t-9","message_id":"m-9","conversation_id":"c-9","answer":"Hi"}\n\n', 'data: {"event":"message_end","task_id":"t-9","message_id":"m-9","conversation_id":"c-9"}\n\n']);
    const body = { query: 'Hello', inputs: {}, response_mode: 'streaming' };
    const send = () => fetch(`${relay.url}/chat-messages`, { method: 'POST', headers: { ...bearer(token), 'Content-Type': 'application/json', 'Idempotency-Key': key }, body: JSON.stringify(body) });
    const first = await send();
    await first.text();
    const retry = await send();
    assert.equal(retry.status, 409);
    assert.deepEqual(await retry.json(), { conversation_id: 'c-9', message_id: 'm-9', code: 'run_already_started', message: 'A message was already sent with this Idempotency-Key; its answer is in the conversation.', status: 409 });
  });
});

test('a store that fails or hangs on run-start records: the start is refused at once, never sent upstream', async () => {
  const upstream = await startUpstream();
  const failing: RelayStore = new (class extends MemoryRelayStore {
    override claimRunStart = () => Promise.reject(new Error('store down'));
  })();
  const hanging: RelayStore = new (class extends MemoryRelayStore {
    override claimRunStart = () => new Promise<never>(() => undefined);
  })();
  const logs: string[] = [];
  const relays = await Promise.all([failing, hanging].map((store) => mountRelay(upstream.url, { store, storeTimeoutMs: 200, log: (e) => void logs.push(e.code) })));
  try {
    for (const relay of relays) {
      const token = (await relay.relay.createSession({ user: 'alice' })).token;
      const started = Date.now();
      const answer = await startRun(relay.url, token, newKey());
      assert.equal(answer.status, 503);
      assert.deepEqual(await answer.json(), { code: 'relay_store_unavailable', message: 'The run cannot be started safely just now; try again shortly.', status: 503 });
      assert.ok(Date.now() - started < 2_000, `answered after ${Date.now() - started} ms`);
      // Without a key the same relay still starts runs.
      const plain = await startRun(relay.url, token, undefined);
      assert.equal(plain.status, 200);
      await plain.arrayBuffer();
    }
    assert.equal(upstream.requests.filter((r) => r.headers['idempotency-key'] !== undefined).length, 0);
    assert.equal(upstream.requests.length, 2, 'only the starts without a key went upstream');
    assert.deepEqual(logs, ['relay_store_failed', 'relay_store_failed']);
  } finally {
    await Promise.all(relays.map((r) => r.close()));
    await upstream.close();
  }
});

describe('two relay instances sharing Redis', () => {
  let redis: RedisServer;
  let instances: RelayInstance[] = [];
  before(async () => {
    redis = await startRedis();
    instances = await Promise.all([0, 1].map(() => startRelayInstance(service.url, redis.url, { apiKey: APP_KEY })));
  });
  after(async () => {
    await Promise.all(instances.map((i) => i.kill()));
    await redis?.stop();
  });

  test('a start cut on one instance is followed, not repeated, by a retry through the other', async () => {
    const user = 'across';
    const token = (await mounted.relay.createSession({ user })).token;
    const key = newKey();
    setLatency(400);
    try {
      await cutStart(instances[0]!.url, token, key, 'sent');
    } finally {
      setLatency(0);
    }
    const events = await retryUntilFollowed(instances[1]!.url, token, key);
    await until(() => runsOf(user).length >= 1, 'the run');
    assert.equal((events.at(-1) as { workflow_run_id: string }).workflow_run_id, runsOf(user)[0]!.id);
    assert.equal(runsOf(user).length, 1, 'the service started exactly one run');
  });
});
