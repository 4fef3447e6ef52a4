/** The embedded service with the default fixture, upload limits raised to 1 GB for the upload row; prints its URL. */
import { loadFixture } from '../../src/service/fixture.js';
import { startService } from '../../src/service/server.js';

const fixture = await loadFixture();
for (const app of fixture.apps) {
  Object.assign(app.parameters.system_parameters, { file_size_limit: 1024, image_file_size_limit: 1024, audio_file_size_limit: 1024, video_file_size_limit: 1024 });
}
const running = await startService({ fixture, port: 0 });
process.on('SIGINT', () => process.exit(0));
console.log(JSON.stringify({ url: running.url }));
