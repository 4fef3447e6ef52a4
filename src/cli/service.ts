#!/usr/bin/env node
/** `npm run service -- [--port N] [--host H] [--fixture FILE]`: the embedded service alone. */
import { parseArgs } from 'node:util';
import { FixtureError, loadFixture } from '../service/fixture.js';
import { startService } from '../service/server.js';

const { values } = parseArgs({
  options: {
    port: { type: 'string', default: '5001' },
    host: { type: 'string', default: '127.0.0.1' },
    fixture: { type: 'string' },
    help: { type: 'boolean', short: 'h' },
  },
});

if (values.help) {
  console.log('Usage: hitl-service [--port 5001] [--host 127.0.0.1] [--fixture FILE]');
  process.exit(0);
}

try {
  const fixture = await loadFixture(values.fixture);
  const running = await startService({ fixture, port: Number(values.port), host: values.host });
  console.log(`Embedded service listening on ${running.url}`);
  console.log(`App keys: ${fixture.apps.map((a) => `${a.key} (${a.mode})`).join(', ')}`);
  const stop = () => void running.close().then(() => process.exit(0));
  process.on('SIGINT', stop);
  process.on('SIGTERM', stop);
} catch (error) {
  console.error(error instanceof FixtureError ? error.message : `Cannot start the service: ${(error as Error).message}`);
  process.exit(1);
}
