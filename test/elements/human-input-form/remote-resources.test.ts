/**
 * Untrusted content never makes the browser request a host that is not allowed (issue 12.5): a
 * prompt-injected image URL would otherwise carry the user's data to an attacker. Every vector
 * points at a counting beacon of the test server under another origin (127.0.0.1 where the page
 * is on localhost), so a request that leaves is counted there.
 */
import { expect, fixture, html } from '@open-wc/testing';
import type { HumanInputForm } from '../../../src/elements/human-input-form/human-input-form.js';
import { renderMarkdown } from '../../../src/elements/shared/markdown.js';
import { $, $$, action, control, hasState, sessionUrl, statusText, type } from '../helpers/form.js';
import { until } from '../helpers/wait.js';

/** An origin other than the page's (and the relay's), served by the same test server. */
const FOREIGN = `http://127.0.0.1:${location.port}`;
const GIF = 'data:image/gif;base64,R0lGODlhAQABAAAAACwAAAAAAQABAAA=';

/** Every way content can ask for a remote resource, each URL under `/__beacon/<prefix>/`. */
function vectors(prefix: string): string {
  const b = `${FOREIGN}/__beacon/${prefix}`;
  const relative = `//127.0.0.1:${location.port}/__beacon/${prefix}`;
  return [
    `![a chart of your data](${b}/md-image.png?leak=secret)`,
    `![ref image][ref]\n\n[ref]: ${b}/md-reference.png`,
    `<img src="${b}/img" alt="plain">`,
    `<img src="${relative}/protocol-relative" alt="relative">`,
    `<img src="http:\\\\127.0.0.1:${location.port}\\__beacon\\${prefix}\\backslashes">`,
    `<img srcset="${b}/srcset-1 1x, ${b}/srcset-2 2x" alt="srcset">`,
    `<img src="${GIF}" srcset="${GIF} 1x, ${b}/srcset-mixed 2x">`,
    `<image src="${b}/image-tag">`,
    `<picture><source srcset="${b}/picture-source" media="(min-width: 1px)"><source srcset="${b}/picture-webp" type="image/webp"><img src="${GIF}" alt="picture"></picture>`,
    `<video poster="${b}/poster" src="${b}/video-src" autoplay muted><source src="${b}/video-source"><track src="${b}/track" default></video>`,
    `<audio src="${b}/audio" autoplay><source src="${b}/audio-source"></audio>`,
    `<table background="${b}/table-background"><tr><td background="${b}/td-background">cell</td></tr></table>`,
    `<img src="${GIF}" lowsrc="${b}/lowsrc" dynsrc="${b}/dynsrc" longdesc="${b}/longdesc">`,
    `<svg width="10" height="10"><image href="${b}/svg-image" width="5" height="5"/><image xlink:href="${b}/svg-xlink" width="5" height="5"/><use href="${b}/svg-use#a"/><filter id="f"><feImage href="${b}/fe-image"/></filter><rect fill="url(${b}/svg-fill#p)" filter="url('${b}/svg-filter#f')" mask="url(${b}/svg-mask#m)" width="5" height="5"/></svg>`,
    // CSS escapes spell `url(` (`u\\72l(`), and `image-set()` loads with no `url(` at all.
    `<svg width="10" height="10"><rect width="5" height="5" fill="u\\72l(${b}/svg-escaped-fill#p)" stroke="\\75rl(${b}/svg-escaped-stroke#p)" filter="u\\72l(${b}/svg-escaped-filter#f)" clip-path="u\\72l(${b}/svg-escaped-clip#c)" mask="image-set('${b}/svg-image-set.png' 1x)"/><rect width="5" height="5" mask="u\\72l(${b}/svg-escaped-mask#m)"/></svg>`,
    `<div style="background:url(${b}/style-attr)">styled</div><style>@import url(${b}/style-import); p { background: url(${b}/style-rule) }</style>`,
    `<link rel="stylesheet" href="${b}/link-stylesheet"><link rel="prefetch" href="${b}/link-prefetch"><link rel="icon" href="${b}/link-icon">`,
    `<meta http-equiv="refresh" content="0;url=${b}/meta-refresh"><base href="${b}/base/">`,
    `<object data="${b}/object"></object><embed src="${b}/embed"><iframe src="${b}/iframe"></iframe>`,
    `<input type="image" src="${b}/input-image">`,
    `<body background="${b}/body-background">`,
    `<a href="${b}/a-link" ping="${b}/a-ping">a link (followed only on a click)</a>`,
    `<math><mglyph src="${b}/mglyph"></mglyph></math>`,
    `<img src="${GIF}" alt="inline data is allowed">`,
  ].join('\n\n');
}

const hits = async (prefix: string): Promise<string[]> => (await (await fetch(`/__beacons?prefix=${prefix}`)).json()) as string[];

/** Waits until the beacon has counted `count` requests under `prefix`. */
async function untilHits(prefix: string, count: number): Promise<string[]> {
  for (let i = 0; i < 200; i++) {
    const seen = await hits(prefix);
    if (seen.length >= count) return seen;
    await new Promise((r) => setTimeout(r, 40));
  }
  throw new Error(`the beacon never got ${count} requests under ${prefix}`);
}

/** Puts nodes into the live document (where an image starts loading) and gives loads time to leave. */
async function attach(nodes: Node): Promise<HTMLElement> {
  const host = document.createElement('div');
  document.body.append(host);
  host.attachShadow({ mode: 'open' }).append(nodes);
  await new Promise((r) => setTimeout(r, 800));
  return host;
}

/** Resource timing entries for the foreign origin (requests that got an answer). */
const foreignEntries = () => performance.getEntriesByType('resource').filter((e) => e.name.startsWith(FOREIGN));

describe('remote resources in untrusted Markdown', () => {
  before(() => performance.setResourceTimingBufferSize(5000));

  it('sends no request for any vector to an origin not allowed, and drops the legacy URL attributes', async () => {
    const prefix = `none${Date.now()}`;
    const before = foreignEntries().length;
    const host = await attach(renderMarkdown(vectors(prefix), { allowedOrigins: [location.origin] }));
    try {
      expect(await hits(prefix)).to.deep.equal([]);
      expect(foreignEntries().length).to.equal(before);
      const all = [...host.shadowRoot!.querySelectorAll('*')];
      for (const name of ['background', 'poster', 'lowsrc', 'dynsrc', 'longdesc', 'ping', 'style']) {
        expect(all.filter((e) => e.hasAttribute(name)).map((e) => e.localName), name).to.deep.equal([]);
      }
      // The data: images stay.
      expect(all.filter((e) => e.localName === 'img' && e.getAttribute('src') === GIF)).to.have.length(4);
      // A link stays a link: it leaves only when the user clicks it.
      expect(host.shadowRoot!.querySelector(`a[href="${FOREIGN}/__beacon/${prefix}/a-link"]`)).to.exist;
    } finally {
      host.remove();
    }
  });

  it('reads a srcset of a long run of commas in linear time (answer text is anyone\'s to write)', () => {
    // 100,000 commas then a letter: trimming the URL's trailing commas with /,+$/ tried every
    // comma of the run (about 8 s in Chromium); the candidate URL is kept up to its last non-comma.
    const started = performance.now();
    const fragment = renderMarkdown(`<img srcset="${FOREIGN}/x${','.repeat(100_000)}a 1x" alt="commas">`);
    expect(performance.now() - started).to.be.below(1000);
    // The foreign srcset is dropped, and the image, left with nothing to show, becomes its link.
    expect(fragment.querySelector('img')).to.equal(null);
    expect(fragment.querySelector('a[part=blocked-image]')).to.not.equal(null);
  });

  it('keeps what SVG needs (an #id, colours, transforms), opens image-map areas beside the form, and gives content no part of the element', async () => {
    const svg = renderMarkdown(
      '<svg width="10" height="10"><defs><linearGradient id="g" gradientTransform="rotate(90)"><stop stop-color="rgb(1, 2, 3)"/></linearGradient></defs>' +
        '<rect width="5" height="5" fill="url(#g)" stroke="hsl(10, 50%, 50%)" transform="translate(1 2) scale(2)"/></svg>' +
        `<img src="${GIF}" usemap="#m" alt="map"><map name="m"><area shape="default" href="${FOREIGN}/elsewhere" alt="area"></map>` +
        '<a href="#x" part="error retry" focus tabindex="0">spoof</a>',
    );
    const rect = svg.querySelector('rect')!;
    expect([rect.getAttribute('fill'), rect.getAttribute('stroke'), rect.getAttribute('transform')]).to.deep.equal(['url(#g)', 'hsl(10, 50%, 50%)', 'translate(1 2) scale(2)']);
    expect(svg.querySelector('linearGradient')!.getAttribute('gradientTransform')).to.equal('rotate(90)');
    expect(svg.querySelector('stop')!.getAttribute('stop-color')).to.equal('rgb(1, 2, 3)');
    const area = svg.querySelector('area')!;
    expect([area.target, area.rel]).to.deep.equal(['_blank', 'noopener noreferrer']);
    // The host page's `::part()` styles and the element's focus marker stay the element's own.
    const spoof = svg.querySelector('a[href="#x"]')!;
    expect([spoof.hasAttribute('part'), spoof.hasAttribute('focus')]).to.deep.equal([false, false]);
  });

  it('shows a blocked image as its alt text and a link the user can open on purpose', async () => {
    const prefix = `alt${Date.now()}`;
    const host = await attach(renderMarkdown(`Look: ![a chart of your data](${FOREIGN}/__beacon/${prefix}/chart.png?d=1)`, { openImage: 'Open image ({0})' }));
    try {
      const link = host.shadowRoot!.querySelector<HTMLAnchorElement>('a[part=blocked-image]')!;
      expect(link.parentElement!.textContent).to.equal(`Look: a chart of your data Open image (127.0.0.1:${location.port})`);
      expect(link.href).to.equal(`${FOREIGN}/__beacon/${prefix}/chart.png?d=1`);
      expect(link.target).to.equal('_blank');
      expect(link.rel).to.equal('noopener noreferrer');
      expect(host.shadowRoot!.querySelector('img')).to.be.null;
      expect(await hits(prefix)).to.deep.equal([]);
      // A blocked URL that is not a web address (ftp:, a `javascript:` that got this far) gives no link at all.
      const other = renderMarkdown(`<p><img src="ftp://files.example/x.png" alt="ftp"></p>`);
      expect(other.textContent).to.equal('ftp');
      expect(other.querySelector('a')).to.be.null;
    } finally {
      host.remove();
    }
  });

  it('loads from an origin the page allows (the beacon counts what leaves)', async () => {
    const prefix = `allowed${Date.now()}`;
    const host = await attach(renderMarkdown(`![chart](${FOREIGN}/__beacon/${prefix}/chart.png)\n\n<img srcset="${FOREIGN}/__beacon/${prefix}/srcset 1x">`, { allowedOrigins: [`${FOREIGN}/any/path`] }));
    try {
      expect((await untilHits(prefix, 2)).sort()).to.deep.equal([`/__beacon/${prefix}/chart.png`, `/__beacon/${prefix}/srcset`]);
    } finally {
      host.remove();
    }
  });

  it('<human-input-form> allows only the relay origin and allowed-origins, in open and answered forms alike', async () => {
    const leak = (p: string) => `![your data](${FOREIGN}/__beacon/${p}/typed.png) <img src="${FOREIGN}/__beacon/${p}/img" alt="img">`;
    for (const allowed of [false, true]) {
      const prefix = `form${allowed}${Date.now()}`;
      const el = await fixture<HumanInputForm>(
        html`<human-input-form session-url=${sessionUrl('hitl-chain')} lang="en" allowed-origins=${allowed ? `https://cdn.example.com ${FOREIGN}` : ''}></human-input-form>`,
      );
      await until(() => hasState(el, 'ready'), `the first form (now: ${statusText(el)})`);
      // What the user typed comes back as content of the next form, and of the answered one.
      type(control(el, 'idea')!, leak(prefix));
      action(el, 'Next').click();
      await until(() => control(el, 'size'), 'the second form');
      await new Promise((r) => setTimeout(r, 800));
      const images = $$(el, '[part~=content] img');
      if (allowed) {
        expect(images).to.have.length(4);
        await untilHits(prefix, 2);
      } else {
        expect(images).to.deep.equal([]);
        expect(await hits(prefix)).to.deep.equal([]);
        // Both copies (the answered form, the open one) show the alt text and a link.
        const open = `Open image (127.0.0.1:${location.port})`;
        expect($$(el, '[part~=blocked-image]').map((b) => b.textContent)).to.deep.equal([open, open, open, open]);
        expect($(el, '[part~=filled] [part~=content]')!.textContent).to.contain(`your data ${open} img ${open}`);
        expect($(el, '[part~=blocked-image]')!.getAttribute('href')).to.equal(`${FOREIGN}/__beacon/${prefix}/typed.png`);
      }
      el.remove();
    }
  });
});
