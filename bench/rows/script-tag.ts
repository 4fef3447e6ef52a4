/**
 * The script tag's critical path on a slow network (issue 15: ≤ 0.8×): navigation → usable
 * `<human-input-form>` on emulated Slow 4G with Lighthouse's 4× CPU slowdown, the chunked script-tag bundle against the same page
 * built as one bundle, in Chromium. Both are built from this checkout, served gzip-encoded as a
 * CDN would, against the sample host backend (the embedded service); each run gets a fresh
 * browser context, so no cache helps. "Usable" is the `form-shown` event, which the form fires
 * once its content and inputs are in place (timed by the page itself, from navigation start).
 * Both pages are timed again with the README's inline session snippet (the session asked with the
 * page, beside the script), for information.
 */
import { mkdtempSync, readFileSync, readdirSync, rmSync } from 'node:fs';
import { createServer } from 'node:http';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { gzipSync } from 'node:zlib';
import { build, type Plugin } from 'vite';
import { TERM_FILE } from '../../scripts/bundle-size.mjs';
import { createHostBackend } from '../../demo/host-backend.js';
import { sessionSnippet } from '../../src/relay/session-snippet.js';
import { launchChromium } from '../../test/helpers/chromium.js';
import { closeServer, listen } from '../../test/relay/helpers.js';
import { interleaved, round, stats, type BenchRow } from '../harness.js';

const REPO = resolve(import.meta.dirname, '../..');

/** Chrome DevTools' "Slow 4G" preset (its network panel's numbers), as Lighthouse's mobile throttling uses it. */
const SLOW_4G = { offline: false, latency: 150 * 3.75, downloadThroughput: ((1.6 * 1000 * 1000) / 8) * 0.9, uploadThroughput: ((750 * 1000) / 8) * 0.9 };
/** Lighthouse's mobile CPU slowdown, which goes with Slow 4G. */
const CPU_SLOWDOWN = 4;

const VARIANTS = ['chunked', 'bundle'] as const;
type Variant = (typeof VARIANTS)[number];

/** Builds both variants into `out` and returns each one's script files, gzip -9. */
async function buildVariants(out: string): Promise<Record<Variant, Record<string, Buffer>>> {
  const quiet = { logLevel: 'warn' as const, configFile: join(REPO, 'vite.config.ts'), root: REPO };
  // The script-tag build as it ships: hitl-elements.js and the chunk beside it.
  await build({ ...quiet, build: { outDir: join(out, 'chunked') } });
  // The same entry as one file: an IIFE cannot split, so the chunk is inlined. (Set in a config
  // hook: an inline config's `formats` would be appended to the config file's, not replace them.)
  const oneFile: Plugin = {
    name: 'bench:one-file',
    config(config) {
      config.build!.lib = { entry: join(REPO, 'src/elements/script.ts'), formats: ['iife'], name: 'HitlElements', fileName: () => 'hitl-elements.js' };
    },
  };
  await build({ ...quiet, plugins: [oneFile], build: { outDir: join(out, 'bundle') } });
  return Object.fromEntries(
    VARIANTS.map((v) => [v, Object.fromEntries(readdirSync(join(out, v)).filter((f) => f.endsWith('.js')).map((f) => [f, gzipSync(readFileSync(join(out, v, f)), { level: 9 })]))]),
  ) as Record<Variant, Record<string, Buffer>>;
}

export const row: BenchRow = {
  id: 'script-tag',
  title: 'script tag: navigation → usable form on Slow 4G, chunked vs one bundle',
  baseline: 'the same page built as one bundle',
  async run({ quick, log }) {
    const repeats = quick ? 3 : 7;
    const out = mkdtempSync(join(tmpdir(), 'bench-script-tag-'));
    const files = await buildVariants(out).finally(() => rmSync(out, { recursive: true, force: true }));
    // The code a page loads (the term files are English-free pages' only).
    const bytes = (v: Variant) =>
      Object.entries(files[v])
        .filter(([name]) => !TERM_FILE.test(name))
        .reduce((sum, [, b]) => sum + b.byteLength, 0);
    const critical = (v: Variant) => files[v]['hitl-elements.js']!.byteLength;
    log(`built: chunked ${bytes('chunked')} B (${critical('chunked')} B before the session request), one bundle ${bytes('bundle')} B`);

    const backend = await createHostBackend({ servicePort: 0, fixturePath: join(REPO, 'test/e2e/fixtures/distribution.json') });
    // `early`: the page asks for the session with the README's inline snippet, before the script tag.
    const page = (variant: string, early: boolean) =>
      `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>bench</title><link rel="icon" href="data:,">` +
      `${early ? sessionSnippet('/api/session') : ''}<script src="/${variant}/hitl-elements.js"></script></head><body><human-input-form session-url="/api/session"></human-input-form></body></html>`;
    const server = createServer((req, res) => {
      if (backend.handle(req, res)) return;
      const [, variant, name] = (req.url ?? '').split('?')[0]!.split('/') as [string, Variant, string];
      if (!VARIANTS.includes(variant)) return void res.writeHead(404).end();
      if (!name || name === 'early') return void res.writeHead(200, { 'Content-Type': 'text/html; charset=utf-8' }).end(page(variant, name === 'early'));
      const body = files[variant][name];
      if (!body) return void res.writeHead(404).end();
      res.writeHead(200, { 'Content-Type': 'text/javascript', 'Content-Encoding': 'gzip', 'Cache-Control': 'public, max-age=31536000, immutable' }).end(body);
    });
    const origin = await listen(server);
    const browser = await launchChromium();

    /**
     * For each chunked run, what the same page would take if its script cost nothing but the one
     * network latency no script can avoid: its session request leaving as soon as the script's
     * request was answered, with no transfer and no execution before it. No split of the script
     * gets below this; the session, the run and the rendering are the same work either way.
     */
    const floors: number[] = [];

    /** Milliseconds from navigation start to the form's `form-shown`, in a fresh context. */
    async function once(variant: Variant, early = false): Promise<number> {
      const context = await browser.newContext();
      try {
        const tab = await context.newPage();
        const cdp = await context.newCDPSession(tab);
        await cdp.send('Network.enable');
        await cdp.send('Network.setCacheDisabled', { cacheDisabled: true });
        await cdp.send('Network.emulateNetworkConditions', SLOW_4G);
        await cdp.send('Emulation.setCPUThrottlingRate', { rate: CPU_SLOWDOWN });
        // Runs in the page: `globalThis` is its window.
        await tab.addInitScript(() => {
          const page = globalThis as unknown as { usable?: number; document: { addEventListener(type: string, listener: () => void, options: object): void } };
          page.document.addEventListener('form-shown', () => (page.usable ??= performance.now()), { capture: true });
        });
        await tab.goto(`${origin}/${variant}/${early ? 'early' : ''}`, { waitUntil: 'commit' });
        await tab.waitForFunction(() => (globalThis as { usable?: number }).usable !== undefined, undefined, { timeout: 60_000, polling: 50 });
        // A string, not a function: tsx would name the function's inner arrows with a helper the page lacks.
        const [usable, script, session] = (await tab.evaluate(`[globalThis.usable, ...['/hitl-elements.js', '/api/session'].map((path) =>
          performance.getEntriesByType('resource').find((e) => new URL(e.name).pathname.endsWith(path))?.startTime ?? NaN)]`)) as [number, number, number];
        if (variant === 'chunked' && !early) floors.push(usable - (session - script - SLOW_4G.latency));
        return usable;
      } finally {
        await context.close();
      }
    }

    try {
      // The warm-up runs take the service's first run and Chromium's first compile.
      const result = await interleaved(repeats, () => once('chunked'), () => once('bundle'));
      // The warm-up run is not a sample.
      const floor = stats(floors.slice(1));
      // Both pages again with the inline snippet: the session leaves with the page, beside the script.
      const early = await interleaved(repeats, () => once('chunked', true), () => once('bundle', true));
      return [
        {
          metric: 'navigation → usable form, ms',
          ...result,
          goal: '<= 0.8',
          met: result.ratio <= 0.8,
          note:
            `Slow 4G (${SLOW_4G.latency} ms, ${Math.round(SLOW_4G.downloadThroughput / 1000)} kB/s) and ${CPU_SLOWDOWN}× CPU slowdown, ${repeats} interleaved runs each after a warm-up; ` +
            `script gzip: chunked ${bytes('chunked')} B (${critical('chunked')} B before the session request), one bundle ${bytes('bundle')} B`,
        },
        {
          metric: 'floor: a script that costs one latency, ms',
          candidate: floor,
          baseline: result.baseline,
          ratio: round(floor.median / result.baseline.median, 2),
          goal: '(information)',
          met: true,
          note: "each chunked run less the time its session request waited on its script beyond the one latency any script costs (no transfer, no execution): the best any split of the script can do, against the one bundle",
        },
        {
          metric: 'with the session snippet: chunked vs one bundle, ms',
          ...early,
          goal: '(information)',
          met: true,
          note: "both pages with the README's inline snippet before the script tag (the session asked with the page); the same page without it is the row above",
        },
        {
          metric: 'with the session snippet: chunked page vs the one bundle without it, ms',
          candidate: early.candidate,
          baseline: result.baseline,
          ratio: round(early.candidate.median / result.baseline.median, 2),
          goal: '(information)',
          met: true,
          note: 'what the snippet and the split save together against a plain one-bundle page (runs of separate interleaved passes)',
        },
      ];
    } finally {
      await browser.close();
      await closeServer(server);
      await backend.close();
    }
  },
};
