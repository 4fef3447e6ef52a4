#!/usr/bin/env node
/** `npm run service -- [options]`: the embedded service alone (see `--help`). */
import { parseArgs } from 'node:util';
import { FixtureError, loadFixture } from '../service/fixture.js';
import { startService } from '../service/server.js';

const HELP = `Usage: hitl-service [options]

  --port N                   port to listen on (default 5001); the API is at http://HOST:N/v1
  --host H                   address to bind (default 127.0.0.1)
  --fixture FILE             apps and knowledge bases to serve (default demo/fixtures/default.json)

Memory (finished work the service remembers; running and paused runs are always kept):
  --keep-runs N              finished workflow runs (with their events and forms) kept, and as
                             many finished chat replies; the oldest go first (default 10000)
  --keep-conversations N     conversations (with their messages) kept; the least recently active
                             go first (default 10000)

QA controls (also changeable at run time through http://HOST:N/_qa, loopback callers only):
  --latency MS               delay every response and every run event by MS milliseconds
  --cut-stream-after N       close every event stream after N events, as a dropped connection would
  --fail-remote-fetch        make every remote_url file fetch fail (form submits naming one are rejected)
  --remote-fetch-timeout MS  how long a remote_url fetch may take (default 5000)
  --ping-interval MS         keep-alive interval of event streams (default 10000, as the real service)
  --stream-idle-timeout MS   close an event stream after MS without an event, pings not counted
                             (default 300000, as the real service)
  --transcript TEXT          what audio to text answers for audio without a transcript tag of
                             its own (default: "", as for audio without speech)
`;

const { values } = parseArgs({
  options: {
    port: { type: 'string', default: '5001' },
    host: { type: 'string', default: '127.0.0.1' },
    fixture: { type: 'string' },
    latency: { type: 'string' },
    'cut-stream-after': { type: 'string' },
    'fail-remote-fetch': { type: 'boolean', default: false },
    'remote-fetch-timeout': { type: 'string' },
    'ping-interval': { type: 'string' },
    'stream-idle-timeout': { type: 'string' },
    transcript: { type: 'string' },
    'keep-runs': { type: 'string' },
    'keep-conversations': { type: 'string' },
    help: { type: 'boolean', short: 'h' },
  },
});

if (values.help) {
  console.log(HELP);
  process.exit(0);
}

/** A non-negative integer option, or exit with a message naming it. */
function count(name: string, value: string | undefined, min = 0): number | undefined {
  if (value === undefined) return undefined;
  const n = Number(value);
  if (!Number.isInteger(n) || n < min) {
    console.error(`--${name} must be an integer of at least ${min} (got "${value}")`);
    process.exit(1);
  }
  return n;
}

try {
  const port = count('port', values.port)!;
  const latencyMs = count('latency', values.latency);
  const cutStreamAfter = count('cut-stream-after', values['cut-stream-after'], 1);
  const remoteFetchTimeoutMs = count('remote-fetch-timeout', values['remote-fetch-timeout'], 1);
  const pingIntervalMs = count('ping-interval', values['ping-interval'], 10);
  const streamIdleTimeoutMs = count('stream-idle-timeout', values['stream-idle-timeout'], 100);
  const finishedRuns = count('keep-runs', values['keep-runs'], 1);
  const conversations = count('keep-conversations', values['keep-conversations'], 1);
  const fixture = await loadFixture(values.fixture);
  const running = await startService({
    fixture,
    port,
    host: values.host,
    qa: {
      ...(latencyMs !== undefined ? { latencyMs } : {}),
      ...(cutStreamAfter !== undefined ? { cutStreamAfter } : {}),
      ...(remoteFetchTimeoutMs !== undefined ? { remoteFetchTimeoutMs } : {}),
      ...(pingIntervalMs !== undefined ? { pingIntervalMs } : {}),
      ...(streamIdleTimeoutMs !== undefined ? { streamIdleTimeoutMs } : {}),
      failRemoteFetch: values['fail-remote-fetch'] ?? false,
      ...(values.transcript !== undefined ? { transcript: values.transcript } : {}),
    },
    retention: {
      ...(finishedRuns !== undefined ? { finishedRuns } : {}),
      ...(conversations !== undefined ? { conversations } : {}),
    },
  });
  console.log(`Embedded service listening on ${running.url}`);
  console.log(`App keys: ${fixture.apps.map((a) => `${a.key} (${a.mode})`).join(', ')}`);
  const knowledgeKeys = fixture.knowledge?.keys.map((k) => k.key) ?? [];
  if (knowledgeKeys.length) console.log(`Knowledge keys: ${knowledgeKeys.join(', ')}`);
  console.log(`QA endpoint (loopback only): ${running.url.replace(/\/v1$/, '')}/_qa/state`);
  const stop = () => void running.close().then(() => process.exit(0));
  process.on('SIGINT', stop);
  process.on('SIGTERM', stop);
} catch (error) {
  console.error(error instanceof FixtureError ? error.message : `Cannot start the service: ${(error as Error).message}`);
  process.exit(1);
}
