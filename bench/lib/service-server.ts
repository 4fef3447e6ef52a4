/**
 * The embedded service with the default fixture, upload limits raised to 1 GB for the upload row;
 * `no-delays` as argv[2] sets every stream delay to 0 (the proxy rows time the relay, not the
 * fixture's pacing). Prints its URL.
 */
import { readFileSync } from 'node:fs';
import { DEFAULT_FIXTURE_PATH, parseFixture, withoutStreamDelays } from '../../src/service/fixture.js';
import { startService } from '../../src/service/server.js';
import './heap-probe.js';

const raw: unknown = JSON.parse(readFileSync(DEFAULT_FIXTURE_PATH, 'utf8'));
const fixture = parseFixture(process.argv[2] === 'no-delays' ? withoutStreamDelays(raw) : raw);
for (const app of fixture.apps) {
  Object.assign(app.parameters.system_parameters, { file_size_limit: 1024, image_file_size_limit: 1024, audio_file_size_limit: 1024, video_file_size_limit: 1024 });
}
const running = await startService({ fixture, port: 0 });
process.on('SIGINT', () => process.exit(0));
console.log(JSON.stringify({ url: running.url }));
