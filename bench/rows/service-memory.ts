/**
 * The embedded service's heap over many finished runs (100,000; 20,000 in a quick pass): a mix of
 * Chatflow runs (each a new conversation), Chatbot replies (likewise) and Workflow runs that
 * pause at a form and are stopped. With the default retention (10,000 finished runs, 10,000
 * conversations) the heap must level off once the limits fill (by 30% of the runs: replies are a
 * third of them): the goal is a flat heap from 30% to 100% of the runs. Requests go to the service's fetch handler in-process (no sockets),
 * so the only memory that grows is what the service keeps.
 */
import { DEFAULT_FIXTURE_PATH, parseFixture, withoutStreamDelays } from '../../src/service/fixture.js';
import { createService } from '../../src/service/service.js';
import { readFileSync } from 'node:fs';
import { collectGarbage, MB, round, stats, type BenchRow } from '../harness.js';

const CONCURRENCY = 16;

export const row: BenchRow = {
  id: 'service-memory',
  title: 'service heap over 100,000 finished runs (default retention)',
  baseline: 'the heap at 30% of the runs',
  async run({ quick, log }) {
    const total = quick ? 8_000 : 100_000;
    // A quick pass cannot fill the default limits, so it shows the levelling with smaller ones.
    const retention = quick ? { finishedRuns: 800, conversations: 800 } : undefined;
    const service = createService({ fixture: parseFixture(withoutStreamDelays(JSON.parse(readFileSync(DEFAULT_FIXTURE_PATH, 'utf8')))), retention });
    const call = async (method: string, path: string, key: string, json: unknown) => {
      const response = await service.fetch(
        new Request(`http://127.0.0.1/v1${path}`, { method, headers: { Authorization: `Bearer ${key}`, 'Content-Type': 'application/json' }, body: JSON.stringify(json) }),
        { remoteAddress: '127.0.0.1' },
      );
      const body = (await response.json()) as Record<string, unknown>;
      if (response.status !== 200) throw new Error(`${method} ${path}: ${response.status} ${JSON.stringify(body)}`);
      return body;
    };
    const one = async (i: number) => {
      const user = `user-${i % 200}`;
      switch (i % 3) {
        case 0:
          await call('POST', '/chat-messages', 'app-demo-chatflow', { inputs: { scenario: 'chat' }, query: `q${i}`, user, response_mode: 'blocking' });
          break;
        case 1:
          await call('POST', '/chat-messages', 'app-demo-chatbot', { inputs: {}, query: `q${i}`, user, response_mode: 'blocking' });
          break;
        default: {
          const paused = await call('POST', '/workflows/run', 'app-demo-workflow', { inputs: {}, user, response_mode: 'blocking' });
          await call('POST', `/workflows/tasks/${paused.task_id as string}/stop`, 'app-demo-workflow', { user });
        }
      }
    };
    const heap = () => {
      collectGarbage();
      return process.memoryUsage().heapUsed / MB;
    };
    const start = heap();
    const checkpoints: { runs: number; heapMb: number }[] = [];
    let next = 0;
    const started = Date.now();
    for (let step = 1; step <= 10; step++) {
      const until = (total * step) / 10;
      await Promise.all(
        Array.from({ length: CONCURRENCY }, async () => {
          while (next < until) await one(next++);
        }),
      );
      // Stopped runs finish on the next turn; let them land before measuring.
      await new Promise((resolve) => setTimeout(resolve, 50));
      checkpoints.push({ runs: until, heapMb: round(heap(), 1) });
      log(`${until} runs: heap ${round(checkpoints.at(-1)!.heapMb, 1)} MB (${round((Date.now() - started) / 1000, 1)} s)`);
    }
    service.close();
    const from = checkpoints[2]!;
    const to = checkpoints.at(-1)!;
    const plateau = stats(checkpoints.slice(2).map((c) => c.heapMb));
    const growth = to.heapMb - from.heapMb;
    const perRunKb = ((checkpoints[0]!.heapMb - start) * 1024) / checkpoints[0]!.runs;
    return [
      {
        metric: `heap MB, ${from.runs}–${to.runs} runs`,
        candidate: plateau,
        ratio: to.heapMb / from.heapMb,
        goal: 'flat: growth < 10% of the heap at 30%',
        met: growth < from.heapMb * 0.1,
        note: `retention ${retention ? `${retention.finishedRuns} runs / ${retention.conversations} conversations (quick)` : 'default (10,000 / 10,000)'}; heap at start ${round(start, 1)} MB, growth ${round(growth, 1)} MB from ${from.runs} to ${to.runs} runs; ${round(perRunKb, 2)} KB per run while the limits fill; checkpoints ${checkpoints.map((c) => `${c.runs}:${c.heapMb}`).join(' ')}`,
      },
    ];
  },
};
