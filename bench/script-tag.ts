/**
 * The script tag's critical path on a slow network (issue 15): navigation → usable
 * `<human-input-form>` on emulated Slow 4G, the chunked script-tag bundle against the same page
 * built as one bundle, in Chromium. Both are built from this checkout, served gzip-encoded as a
 * CDN would, against the sample host backend (the embedded service); the runs alternate (chunked,
 * one bundle, one bundle, chunked, …) and each gets a fresh browser context, so no cache helps.
 * "Usable" is the `form-shown` event, which the form fires once its content and inputs are in
 * place (timed by the page itself, from navigation start).
 *
 *   npx tsx bench/script-tag.ts [--repeats 7] [--json bench/script-tag.json]
 */
import { mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { gzipSync } from 'node:zlib';
import { build, type Plugin } from 'vite';
import { TERM_FILE } from '../scripts/bundle-size.mjs';
import { createHostBackend } from '../demo/host-backend.js';
import { launchChromium } from '../test/helpers/chromium.js';

const REPO = resolve(import.meta.dirname, '..');
const { values } = parseArgs({ options: { repeats: { type: 'string', default: '7' }, json: { type: 'string' } } });
const repeats = Number(values.repeats);

/** Chrome DevTools' "Slow 4G" preset (its network panel's numbers). */
const SLOW_4G = { offline: false, latency: 150 * 3.75, downloadThroughput: ((1.6 * 1000 * 1000) / 8) * 0.9, uploadThroughput: ((750 * 1000) / 8) * 0.9 };

const out = mkdtempSync(join(tmpdir(), 'bench-script-tag-'));
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

const variants = ['chunked', 'bundle'] as const;
const files = Object.fromEntries(
  variants.map((v) => [v, Object.fromEntries(readdirSync(join(out, v)).filter((f) => f.endsWith('.js')).map((f) => [f, gzipSync(readFileSync(join(out, v, f)), { level: 9 })]))]),
) as Record<(typeof variants)[number], Record<string, Buffer>>;

const backend = await createHostBackend({ servicePort: 0, fixturePath: join(REPO, 'test/e2e/fixtures/distribution.json') });
const page = (variant: string) =>
  `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>bench</title><link rel="icon" href="data:,">` +
  `<script src="/${variant}/hitl-elements.js"></script></head><body><human-input-form session-url="/api/session"></human-input-form></body></html>`;
const server = createServer((req, res) => {
  if (backend.handle(req, res)) return;
  const [, variant, name] = (req.url ?? '').split('?')[0]!.split('/') as [string, 'chunked' | 'bundle', string];
  if (!variants.includes(variant)) return void res.writeHead(404).end();
  if (!name) return void res.writeHead(200, { 'Content-Type': 'text/html; charset=utf-8' }).end(page(variant));
  const body = files[variant][name];
  if (!body) return void res.writeHead(404).end();
  res.writeHead(200, { 'Content-Type': 'text/javascript', 'Content-Encoding': 'gzip', 'Cache-Control': 'public, max-age=31536000, immutable' }).end(body);
});
await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
const origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;

const browser = await launchChromium();
async function once(variant: (typeof variants)[number]): Promise<number> {
  const context = await browser.newContext();
  const tab = await context.newPage();
  const cdp = await context.newCDPSession(tab);
  await cdp.send('Network.enable');
  await cdp.send('Network.setCacheDisabled', { cacheDisabled: true });
  await cdp.send('Network.emulateNetworkConditions', SLOW_4G);
  // Runs in the page: `globalThis` is its window.
  await tab.addInitScript(() => {
    const page = globalThis as unknown as { usable?: number; document: { addEventListener(type: string, listener: () => void, options: object): void } };
    page.document.addEventListener('form-shown', () => (page.usable ??= performance.now()), { capture: true });
  });
  await tab.goto(`${origin}/${variant}/`, { waitUntil: 'commit' });
  await tab.waitForFunction(() => (globalThis as { usable?: number }).usable !== undefined, undefined, { timeout: 60_000, polling: 50 });
  const ms = await tab.evaluate(() => (globalThis as unknown as { usable: number }).usable);
  await context.close();
  return ms;
}

const times: Record<string, number[]> = { chunked: [], bundle: [] };
await once('chunked'); // warm-up: the service's first run, Chromium's first compile
for (let i = 0; i < repeats; i++) {
  for (const v of i % 2 ? [...variants].reverse() : variants) times[v]!.push(await once(v));
}
await browser.close();
server.close();
await backend.close();
rmSync(out, { recursive: true, force: true });

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[xs.length >> 1]!;
// The code a page loads (the term files are English-free pages' only).
const bytes = (v: (typeof variants)[number]) =>
  Object.entries(files[v])
    .filter(([name]) => !TERM_FILE.test(name))
    .reduce((sum, [, b]) => sum + b.byteLength, 0);
const row = (v: (typeof variants)[number]) => ({
  variant: v,
  script_gzip_bytes: bytes(v),
  critical_gzip_bytes: files[v]['hitl-elements.js']!.byteLength,
  min_ms: Math.round(Math.min(...times[v]!)),
  median_ms: Math.round(median(times[v]!)),
  max_ms: Math.round(Math.max(...times[v]!)),
});
const rows = variants.map(row);
const ratio = median(times.chunked!) / median(times.bundle!);
console.log(`navigation → usable <human-input-form>, Slow 4G (${SLOW_4G.latency} ms, ${Math.round(SLOW_4G.downloadThroughput / 1000)} kB/s), ${repeats} interleaved runs each`);
console.table(rows);
console.log(`chunked / one bundle (medians): ${ratio.toFixed(2)}× (goal ≤ 0.8×)`);
if (values.json) writeFileSync(values.json, JSON.stringify({ conditions: SLOW_4G, repeats, rows, ratio }, null, 2) + '\n');
