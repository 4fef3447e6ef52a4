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

async function list(service: RunningService, query: string): Promise<number> {
  return timed(async () => {
    const response = await fetch(`${service.url}/conversations?user=bench&limit=20${query}`, { headers: { Authorization: `Bearer ${KEY}` } });
    if (response.status !== 200) throw new Error(`GET /conversations answered ${response.status}`);
    await response.arrayBuffer();
  });
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
      // One request of each in turn, many times: on a busy machine a burst of load then hits
      // both sides alike, and the median of single requests shrugs it off.
      const repeats = quick ? 300 : 1500;
      const out: Measurement[] = [];
      for (const [label, query] of [
        ['first page', ''],
        ['page behind a cursor', 'cursor'],
      ] as const) {
        const q = (s: { cursor: string }) => (query === 'cursor' ? `&last_id=${s.cursor}` : '');
        const result = await interleaved(repeats, () => list(big.service, q(big)), () => list(small.service, q(small)));
        out.push({
          metric: `${label}: ms per request`,
          ...result,
          goal: '<= 1.2',
          met: result.ratio <= 1.2,
          note: `${repeats} requests each, alternating; ratio of medians ${round(result.ratio)}`,
        });
      }
      return out;
    } finally {
      await big.service.close();
      await small.service.close();
    }
  },
};
