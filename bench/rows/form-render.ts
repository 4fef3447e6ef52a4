/**
 * `<human-input-form>` with 20 inputs: the run's `human_input_required` event → a usable form
 * (issue 15: ≤ 1.5×), against the floor: the same event's Markdown through bare marked and
 * DOMPurify into `innerHTML`, its 20 slots replaced by `<textarea>`s. In Chromium, each run in a
 * fresh browser context; both pages load their script first (the script-tag bundle as it ships,
 * and marked + DOMPurify as one file), and both stop the clock once their inputs are in the DOM,
 * rendered, and laid out. The element is driven by a real run through the sample host backend
 * (relay + embedded service) on loopback; the floor gets the event's data as the element did.
 */
import { mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { build } from 'vite';
import { createHostBackend } from '../../demo/host-backend.js';
import type { HumanInputRequest } from '../../src/protocol/index.js';
import { launchChromium } from '../../test/helpers/chromium.js';
import { closeServer, listen } from '../../test/relay/helpers.js';
import { interleaved, type BenchRow } from '../harness.js';

const REPO = resolve(import.meta.dirname, '../..');
const INPUTS = 20;

/** The demo's workflow app with its review form grown to 20 paragraph inputs, each with a label and a default. */
function fixture(): unknown {
  const base = JSON.parse(readFileSync(join(REPO, 'test/e2e/fixtures/distribution.json'), 'utf8')) as { apps: { key: string; workflow?: { nodes: Record<string, unknown>[] } }[] };
  const app = base.apps.find((a) => a.key === 'app-demo-workflow')!;
  const names = ['comments', ...Array.from({ length: INPUTS - 1 }, (_, i) => `field_${i + 1}`)];
  const review = app.workflow!.nodes.find((n) => n.type === 'human-input')!;
  review.form_content = `## Review the draft\n\n> {{#draft.text#}}\n\n${names.map((n, i) => `**Question ${i + 1}**: what do you think of part ${i + 1}?\n\n{{#$output.${n}#}}\n\n`).join('')}Approve to publish.`;
  review.inputs = names.map((n, i) => ({ type: 'paragraph', output_variable_name: n, default: { type: 'constant', selector: [], value: i % 2 ? `A first answer for part ${i + 1}.` : '' } }));
  return { ...base, apps: [app] };
}

type Page = 'element' | 'floor';

async function buildScripts(out: string): Promise<Record<Page, Record<string, Buffer>>> {
  const quiet = { logLevel: 'warn' as const, root: REPO };
  await build({ ...quiet, configFile: join(REPO, 'vite.config.ts'), build: { outDir: join(out, 'element') } });
  await build({
    ...quiet,
    configFile: false,
    define: { 'process.env.NODE_ENV': JSON.stringify('production') },
    build: { outDir: join(out, 'floor'), emptyOutDir: true, target: 'es2022', minify: true, lib: { entry: join(REPO, 'bench/lib/floor-entry.ts'), formats: ['iife'], name: 'floor', fileName: () => 'floor.js' } },
  });
  const read = (p: Page) => Object.fromEntries(readdirSync(join(out, p)).filter((f) => f.endsWith('.js')).map((f) => [f, readFileSync(join(out, p, f))]));
  return { element: read('element'), floor: read('floor') };
}

/**
 * In the floor page (a function's text: it runs there): the event's Markdown → HTML → sanitized →
 * `innerHTML`, slots → labelled textareas, laid out; returns the milliseconds it took.
 */
const RENDER_FLOOR = `(request) => {
  const { marked, DOMPurify } = globalThis.floor;
  const start = performance.now();
  const box = document.createElement('div');
  const html = marked.parse(request.form_content.replace(/\\{\\{#\\$output\\.(\\w+)#\\}\\}/g, '<hitl-slot data-name="$1"></hitl-slot>'));
  box.innerHTML = DOMPurify.sanitize(html, { ADD_TAGS: ['hitl-slot'] });
  for (const slot of box.querySelectorAll('hitl-slot')) {
    const name = slot.getAttribute('data-name');
    const label = document.createElement('label');
    const area = document.createElement('textarea');
    area.name = name;
    area.value = request.resolved_default_values[name] ?? '';
    label.append(name, area);
    slot.replaceWith(label);
  }
  document.body.append(box);
  void document.body.offsetHeight;
  return performance.now() - start;
}`;

/**
 * In the element's page, before its scripts: the clock starts at the run event that carries the
 * form and stops once the form and every input in it have rendered and the page is laid out.
 */
const TIME_ELEMENT = `
  document.addEventListener('run-event', ({ event }) => {
    if (event.event === 'human_input_required') (globalThis.start = performance.now()), (globalThis.request = event.data);
  }, { capture: true });
  document.addEventListener('form-shown', async ({ target: form }) => {
    await form.updateComplete;
    await Promise.all([...form.shadowRoot.querySelectorAll('*')].map((c) => c.updateComplete));
    void document.body.offsetHeight;
    globalThis.took = performance.now() - globalThis.start;
  }, { capture: true });
`;

export const row: BenchRow = {
  id: 'form-render',
  title: `<human-input-form>, ${INPUTS} inputs: run event → usable, vs bare marked + DOMPurify + innerHTML`,
  baseline: 'bare marked + DOMPurify + innerHTML of the same event',
  async run({ quick, log }) {
    const repeats = quick ? 7 : 21;
    const out = mkdtempSync(join(tmpdir(), 'bench-form-'));
    const fixturePath = join(out, 'fixture.json');
    writeFileSync(fixturePath, JSON.stringify(fixture()));
    const scripts = await buildScripts(out);
    const backend = await createHostBackend({ servicePort: 0, fixturePath });
    const pages: Record<Page, string> = {
      element: '<script src="/element/hitl-elements.js"></script><human-input-form session-url="/api/session"></human-input-form>',
      floor: '<script src="/floor/floor.js"></script>',
    };
    const server = createServer((req, res) => {
      if (backend.handle(req, res)) return;
      const [, page, name] = (req.url ?? '').split('?')[0]!.split('/') as [string, Page, string];
      if (!(page in pages)) return void res.writeHead(404).end();
      if (!name) return void res.writeHead(200, { 'Content-Type': 'text/html; charset=utf-8' }).end(`<!doctype html><html lang="en"><head><meta charset="utf-8"><title>bench</title><link rel="icon" href="data:,"></head><body>${pages[page]}</body></html>`);
      const body = scripts[page][name];
      res.writeHead(body ? 200 : 404, { 'Content-Type': 'text/javascript' }).end(body);
    });
    const origin = await listen(server);
    const browser = await launchChromium();
    let request: HumanInputRequest | undefined;

    /** The element's run event → inputs rendered and laid out, ms (and the event, for the floor). */
    async function element(): Promise<number> {
      const context = await browser.newContext();
      try {
        const tab = await context.newPage();
        await tab.addInitScript(TIME_ELEMENT);
        await tab.goto(`${origin}/element/`);
        await tab.waitForFunction('globalThis.took !== undefined', undefined, { timeout: 30_000, polling: 20 });
        const [took, event, inputs] = (await tab.evaluate(`[globalThis.took, globalThis.request, document.querySelector('human-input-form').shadowRoot.querySelectorAll('hitl-paragraph').length]`)) as [number, HumanInputRequest, number];
        if (inputs !== INPUTS) throw new Error(`the form showed ${inputs} inputs, not ${INPUTS}`);
        request = event;
        return took;
      } finally {
        await context.close();
      }
    }

    async function floor(): Promise<number> {
      const context = await browser.newContext();
      try {
        const tab = await context.newPage();
        await tab.goto(`${origin}/floor/`);
        return (await tab.evaluate(`(${RENDER_FLOOR})(${JSON.stringify(request)})`)) as number;
      } finally {
        await context.close();
      }
    }

    try {
      const result = await interleaved(repeats, element, floor);
      log(`element ${result.candidate.median.toFixed(1)} ms, floor ${result.baseline.median.toFixed(1)} ms`);
      return [{ metric: 'run event → usable form, ms', ...result, goal: '<= 1.5', met: result.ratio <= 1.5, note: `${INPUTS} paragraph inputs, ${repeats} interleaved runs each after a warm-up, a fresh browser context per run` }];
    } finally {
      await browser.close();
      await closeServer(server);
      await backend.close();
      rmSync(out, { recursive: true, force: true });
    }
  },
};
