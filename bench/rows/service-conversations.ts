/**
 * `GET /conversations` (first page, 20, newest first, and a page deep behind a cursor) for a user
 * with 10,000 conversations, against the same request for a user with 100: listing must not
 * grow with how many conversations the service holds.
 */
import { loadFixture } from '../../src/service/fixture.js';
import { startService, type RunningService } from '../../src/service/server.js';
import { interleaved, round, timed, type BenchRow, type Measurement } from '../harness.js';

const KEY = 'app-demo-chatbot';

async function seeded(count: number): Promise<{ service: RunningService; cursor: string }> {
  const fixture = await loadFixture();
  const service = await startService({ fixture, port: 0 });
  const app = fixture.apps.find((a) => a.key === KEY)!;
  const store = service.service.context.conversations;
  let cursor = '';
  // Other users of the app hold as many again, as a busy service would.
  for (let i = 0; i < count; i++) {
    const mine = store.create(app, 'bench', {}, `question ${i}`, true);
    store.create(app, `other-${i % 50}`, {}, `question ${i}`, true);
    if (i === Math.floor(count / 2)) cursor = mine.id;
  }
  return { service, cursor };
}

async function list(service: RunningService, query: string, requests: number): Promise<number> {
  const ms = await timed(async () => {
    for (let i = 0; i < requests; i++) {
      const response = await fetch(`${service.url}/conversations?user=bench&limit=20${query}`, { headers: { Authorization: `Bearer ${KEY}` } });
      if (response.status !== 200) throw new Error(`GET /conversations answered ${response.status}`);
      await response.arrayBuffer();
    }
  });
  return ms / requests;
}

export const row: BenchRow = {
  id: 'service-conversations',
  title: 'GET /conversations at 10,000 conversations vs 100',
  baseline: 'the same request for a user with 100 conversations',
  async run({ quick, log }) {
    const big = await seeded(10_000);
    const small = await seeded(100);
    log('seeded 10,000 + 10,000 and 100 + 100 conversations');
    try {
      const repeats = quick ? 7 : 21;
      const requests = quick ? 20 : 50;
      const out: Measurement[] = [];
      for (const [label, query] of [
        ['first page', ''],
        ['page behind a cursor', 'cursor'],
      ] as const) {
        const q = (s: { cursor: string }) => (query === 'cursor' ? `&last_id=${s.cursor}` : '');
        const result = await interleaved(repeats, () => list(big.service, q(big), requests), () => list(small.service, q(small), requests));
        out.push({
          metric: `${label}: mean ms per request`,
          ...result,
          goal: '<= 1.2',
          met: result.ratio <= 1.2,
          note: `${requests} sequential requests per sample, ${repeats} samples each; ratio ${round(result.ratio)}`,
        });
      }
      return out;
    } finally {
      await big.service.close();
      await small.service.close();
    }
  },
};
