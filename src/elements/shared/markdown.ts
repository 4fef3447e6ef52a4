/**
 * Untrusted Markdown from the service → sanitized DOM. marked parses, DOMPurify removes anything
 * executable and hands back nodes (no HTML string ever reaches an `innerHTML` sink of ours).
 */
import { Lexer, Parser, getDefaults } from 'marked';
import DOMPurify, { type Config } from 'dompurify';

// Our own options and DOMPurify instance, so a host page's global marked options or DOMPurify hooks
// cannot change our output, and our hook cannot change theirs. The lexer and the parser are called
// directly: that is all `marked.parse` does with no hooks, extensions or `walkTokens`, and the
// script-tag bundle then leaves out marked's instance machinery (vite.config.ts).
let purify: ReturnType<typeof DOMPurify> | undefined;
let policy: Config['TRUSTED_TYPES_POLICY'];

/** Where the call being sanitized may load from, and the images it blocked (shown as links instead). */
let loadable: (url: string) => boolean;
let blocked: [Element, string][] = [];

/** Made at first use, not at import: server rendering imports this module in Node, with no `window`. */
function sanitizer(): ReturnType<typeof DOMPurify> {
  if (purify) return purify;
  purify = DOMPurify(window);
  // A resource loads on its own (no click) from `src`, `srcset`, the `href` of anything but a link
  // (SVG `image`, `use`, `feImage`) and CSS in SVG attributes (`fill`, `filter`, `mask`): each
  // goes unless its origin is allowed. In SVG only plain values pass: no CSS escape (`u\72l(`
  // is `url(`), no function but colours and `url()` of the document's own `#id` (`image-set()`
  // loads without any `url(`); transforms, which load nothing, are left alone.
  purify.addHook('afterSanitizeAttributes', (node) => {
    const name = node.localName;
    const link = name === 'a' || name === 'area';
    // Links in a form open beside it, so a click never navigates away from a half-filled form.
    if (link) node.setAttribute('target', '_blank'), node.setAttribute('rel', 'noopener noreferrer');
    let refused = '';
    for (const { name: attr, localName, value } of [...node.attributes]) {
      const urls = localName === 'src' || (localName === 'href' && !link) ? [value] : localName === 'srcset' ? srcsetUrls(value) : [];
      if (urls.every(loadable) && !(node instanceof SVGElement && !/transform$/i.test(attr) && /\\|(?<!rgba?|hsla?|url)\(|url\(['"]?[^#'"]/i.test(value))) continue;
      refused ||= urls[0] ?? '';
      node.removeAttribute(attr);
    }
    // An image left with nothing to show becomes its alt text and a link, once sanitized.
    if (refused && name === 'img' && !node.hasAttribute('src') && !node.hasAttribute('srcset')) blocked.push([node, refused]);
  });
  return purify;
}

/** The URLs of a `srcset`, split as the HTML parser does (a URL may hold commas, as `data:` ones do). */
function srcsetUrls(srcset: string): string[] {
  const urls: string[] = [];
  for (let rest = srcset; (rest = rest.replace(/^[\s,]+/, '')); ) {
    const url = /^\S+/.exec(rest)![0];
    // A URL ending in commas ends its candidate; otherwise descriptors follow, up to a comma.
    rest = /,$/.test(url) ? rest.slice(url.length) : rest.slice(url.length).replace(/^[^,]*/, '');
    // Up to its last character that is no comma (`/,+$/` would try every comma of a long run: quadratic).
    urls.push(/^.*[^,]/.exec(url)![0]);
  }
  return urls;
}

/**
 * Under a Trusted Types CSP, hand DOMPurify a policy of yours (with pass-through `createHTML` and
 * `createScriptURL`); without one, DOMPurify creates a policy named `dompurify`.
 */
export function setTrustedTypesPolicy(value: NonNullable<Config['TRUSTED_TYPES_POLICY']>): void {
  policy = value;
}

/** The marker that stands in for a form input while the Markdown is rendered. */
export const SLOT_TAG = 'hitl-slot';

/** What a rendering may load, and how a blocked image reads. */
export interface RenderOptions {
  /**
   * Origins (`https://cdn.example.com`) images and media may load from; `data:` and `blob:` URLs
   * always may. Anything else is never requested: untrusted content (LLM output among it) must
   * not make the browser call a host of its choosing with the user's data in the URL.
   */
  allowedOrigins?: Iterable<string>;
  /** The text of the link that stands in for a blocked image; `{0}` is its host. */
  openImage?: string;
}

/**
 * Sanitized nodes of a Markdown string (`hitl-slot` markers kept, form controls removed). No
 * inline styles either: a `position: fixed` block would escape the shadow root and cover the page.
 * Nothing in it loads from an origin not allowed (see `RenderOptions`); a blocked image shows its
 * alt text and a link to open it on purpose (`part="blocked-image"`).
 */
export function renderMarkdown(markdown: string, options: RenderOptions = {}): DocumentFragment {
  // Only absolute origins: a bare `cdn.example.com` would otherwise resolve to the page's own.
  const origins = [...(options.allowedOrigins ?? [])].filter((o) => /^https?:\/\//.test(o)).map((o) => webUrl(o)?.origin ?? 'none');
  loadable = (url) => /^\s*(data|blob):/i.test(url) || origins.includes(webUrl(url)?.origin ?? '');
  blocked = [];
  // The nodes stay in DOMPurify's inert document until the caller adopts them, so nothing has
  // been fetched before a blocked image is replaced.
  const fragment = sanitizer().sanitize(markdownToHtml(markdown), {
    RETURN_DOM_FRAGMENT: true,
    ADD_TAGS: [SLOT_TAG],
    FORBID_TAGS: ['style', 'form', 'input', 'button', 'textarea', 'select'],
    // Legacy URL attributes DOMPurify allows, dropped whatever their value: each is a beacon nobody
    // needs in a form (`lowsrc`, `dynsrc`, `longdesc`, `ping` and the like it drops already).
    // `part` would take the element's own styles (a spoofed button or error).
    FORBID_ATTR: ['style', 'background', 'poster', 'cite', 'action', 'data', 'part'],
    TRUSTED_TYPES_POLICY: policy,
  });
  for (const [img, url] of blocked) {
    const target = webUrl(url);
    const link = document.createElement('a');
    link.setAttribute('part', 'blocked-image');
    Object.assign(link, { href: target?.href, target: '_blank', rel: 'noopener noreferrer', textContent: (options.openImage ?? 'Open image ({0})').replace('{0}', target?.host ?? '') });
    img.replaceWith(img.getAttribute('alt') ?? '', ...(target ? [' ', link] : []));
  }
  return fragment;
}

/**
 * HTML for Markdown, as `new Marked({ gfm: true, breaks: true }).parse` makes it. Fresh options each
 * time: the lexer and parser keep their tokenizer and renderer in the options object they are given.
 */
function markdownToHtml(markdown: string): string {
  const options = { ...getDefaults(), gfm: true, breaks: true };
  return Parser.parse(Lexer.lex(markdown, options), options);
}

/** An http(s) URL (relative ones against the page), or undefined. */
function webUrl(url: string): URL | undefined {
  try {
    const parsed = new URL(url.trim(), document.baseURI);
    return /^https?:$/.test(parsed.protocol) ? parsed : undefined;
  } catch {
    return undefined;
  }
}
