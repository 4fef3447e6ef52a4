/** Everything from the service is untrusted: content, titles, options, defaults and file names. */
import { expect } from '@open-wc/testing';
import { renderMarkdown, setTrustedTypesPolicy } from '../../../src/elements/shared/markdown.js';
import { $, $$, actions, control, inner, mount } from '../helpers/form.js';
import { until } from '../helpers/wait.js';

declare global {
  interface Window {
    __xss?: string;
  }
}

/** Every element under `root`, through the open shadow roots of the inputs. */
function allElements(root: ParentNode): Element[] {
  return [...root.querySelectorAll('*')].flatMap((e) => [e, ...(e.shadowRoot ? allElements(e.shadowRoot) : [])]);
}

describe('<human-input-form> with hostile content', () => {
  beforeEach(() => delete window.__xss);

  it('renders hostile content, node titles, action titles, options and defaults as inert text', async () => {
    const el = await mount({ app: 'hitl-xss' });
    // Give any injected handler the chance to run.
    await new Promise((r) => setTimeout(r, 300));
    expect(window.__xss).to.be.undefined;
    const everything = allElements(el.shadowRoot!);
    // Markup may stay (an image, an empty svg); anything that runs is gone.
    expect(everything.filter((e) => ['script', 'iframe', 'object', 'embed'].includes(e.localName))).to.deep.equal([]);
    expect(everything.filter((e) => [...e.attributes].some((a) => a.name.startsWith('on') || /javascript:/i.test(a.value)))).to.deep.equal([]);
    // No inline style (a fixed-position block would cover the host page), and a slot marker written
    // in the content is not one of ours: the input stays at its real slot, with its own label.
    expect(everything.filter((e) => e.hasAttribute('style') && $(el, '[part~=content]')!.contains(e))).to.deep.equal([]);
    expect($$(el, '[part~=content] hitl-slot').length).to.equal(0);
    expect($(el, '[part~=content]')!.querySelectorAll('hitl-paragraph').length).to.equal(1);
    // The content's own form and input are gone; only the element's form remains.
    expect($$(el, 'form').length).to.equal(1);
    expect($(el, '[part~=content]')!.querySelector('input, form')).to.be.null;
    // Titles are text.
    expect($(el, '#title')!.textContent).to.contain('<img src=x onerror=');
    expect(actions(el)[0]!.textContent).to.equal(`<img src=x onerror="window.__xss='action'">`);
    // The substituted run variable is sanitized like the rest of the content, which keeps its text.
    expect($(el, '[part~=content]')!.textContent).to.contain('From the run:');
    expect(inner(control(el, 'text')!, 'label')!.textContent).to.equal('Text');
    // Options and defaults are values, never markup.
    const options = [...inner<HTMLSelectElement>(control(el, 'pick')!, 'select')!.options].map((o) => o.textContent);
    expect(options).to.include(`<b onmouseover="window.__xss='option'">bold</b>`);
    expect(inner<HTMLTextAreaElement>(control(el, 'text')!, 'textarea')!.value).to.equal(`</textarea><img src=x onerror="window.__xss='default'">`);
    // Links never run script; the safe ones open beside the form.
    for (const link of $(el, '[part~=content]')!.querySelectorAll('a')) expect(link.getAttribute('href') ?? '').not.to.match(/^javascript:/i);
  });

  it('shows a hostile file name as text', async () => {
    const el = await mount({ app: 'hitl-files' });
    const notes = control(el, 'notes')!;
    const picker = inner<HTMLInputElement>(notes, '[type=file]')!;
    const transfer = new DataTransfer();
    const name = `<img src=x onerror="window.__xss='file'">.md`;
    transfer.items.add(new File(['# x'], name, { type: 'text/markdown' }));
    picker.files = transfer.files;
    picker.dispatchEvent(new Event('change'));
    await until(() => inner(notes, '[part~=file-name]'), 'the file row');
    expect(inner(notes, '[part~=file-name]')!.textContent).to.equal(name);
    await new Promise((r) => setTimeout(r, 300));
    expect(window.__xss).to.be.undefined;
    expect(allElements(notes.shadowRoot!).filter((e) => e.localName === 'img')).to.deep.equal([]);
    // And a hostile name as the link's last segment, refused as a type, is reported as text.
    const pictures = control(el, 'pictures')!;
    inner<HTMLInputElement>(pictures, '[part~=url-input]')!.value = `https://example.com/<svg onload=alert(1)>.exe`;
    inner<HTMLButtonElement>(pictures, '[part~=url-button]')!.click();
    await until(() => inner(pictures, '[part~=error]')!.textContent, 'the refusal');
    expect(inner(pictures, '[part~=error]')!.textContent).to.contain('this file type is not accepted');
    expect(allElements(pictures.shadowRoot!).filter((e) => e.localName === 'svg')).to.deep.equal([]);
    expect(inner(pictures, '[part~=error]')!.textContent).to.equal('%3Csvg%20onload=alert(1)%3E.exe: this file type is not accepted.');
  });

  it('sanitizes Markdown into nodes, through a Trusted Types policy of the page when given one', () => {
    const calls: string[] = [];
    const { trustedTypes } = window as unknown as { trustedTypes: { createPolicy(name: string, rules: object): Parameters<typeof setTrustedTypesPolicy>[0] } };
    const policy = trustedTypes.createPolicy('hitl-test', {
      createHTML: (html: string) => (calls.push(html), html),
      createScriptURL: (url: string) => url,
    });
    setTrustedTypesPolicy(policy);
    const fragment = renderMarkdown('**bold** <img src=x onerror="window.__xss=1"> <script>window.__xss=2</script> [x](javascript:alert(1)) [ok](https://example.com)');
    const holder = document.createElement('div');
    holder.append(fragment);
    expect(holder.querySelector('strong')!.textContent).to.equal('bold');
    expect(holder.innerHTML).not.to.match(/onerror|<script|javascript:/);
    expect(holder.querySelector('a[href="https://example.com"]')!.getAttribute('rel')).to.equal('noopener noreferrer');
    expect(calls.length).to.be.greaterThan(0);
  });
});
