/**
 * Layout and engine features, in every engine the element tests run in: the form and the player
 * fit a 300 px column, and what leans on a feature not every browser has works without it.
 */
import { expect, fixture, html } from '@open-wc/testing';
import '../../../src/elements/tts-player/define.js';
import type { HumanInputForm } from '../../../src/elements/human-input-form/human-input-form.js';
import { $, hasState, inner, mount, sessionUrl, statusText } from '../helpers/form.js';
import { until } from '../helpers/wait.js';
import { typeKeys } from '../helpers/input.js';

/** Every element under `root`, through shadow roots, whose box reaches past `right`. */
function pastEdge(root: Element, right: number): string[] {
  const found: string[] = [];
  const walk = (node: Element | ShadowRoot) => {
    for (const child of node.children) {
      const box = child.getBoundingClientRect();
      if (box.width > 0 && box.right > right + 0.5) found.push(`${child.localName}${child.getAttribute('part') ? `[part=${child.getAttribute('part')}]` : ''} ends at ${box.right.toFixed(1)}`);
      if (child.shadowRoot) walk(child.shadowRoot);
      walk(child);
    }
  };
  walk(root);
  return found;
}

async function inColumn<T extends HTMLElement>(el: T): Promise<HTMLElement> {
  const column = await fixture<HTMLElement>(html`<div style="width: 300px"></div>`);
  column.append(el);
  return column;
}

describe('layout in every engine', function () {
  this.timeout(20_000);

  it('<human-input-form> with every input type fits a 300 px column', async () => {
    for (const app of [undefined, 'hitl-styles']) {
      const el = await mount({ app });
      const column = await inColumn(el);
      await el.updateComplete;
      const edge = column.getBoundingClientRect().right;
      expect(column.scrollWidth, `${app ?? 'default'}: the column's scroll width`).to.be.at.most(300);
      expect(pastEdge(column, edge), `${app ?? 'default'}: boxes past the column`).to.deep.equal([]);
      column.remove();
    }
  });

  it('<tts-player> fits a 300 px column', async () => {
    const player = document.createElement('tts-player');
    player.setAttribute('session-url', sessionUrl());
    player.setAttribute('text', 'Hello.');
    const column = await inColumn(player);
    await (player as HTMLElement & { updateComplete: Promise<unknown> }).updateComplete;
    expect(pastEdge(column, column.getBoundingClientRect().right)).to.deep.equal([]);
    column.remove();
  });

  it('a paragraph grows with what is typed, without field-sizing (which WebKit lacks)', async () => {
    const el = await mount();
    const paragraph = el.shadowRoot!.querySelector<HTMLElement>('hitl-paragraph')!;
    const area = inner<HTMLTextAreaElement>(paragraph, 'textarea')!;
    const before = area.getBoundingClientRect().height;
    area.focus();
    await typeKeys('one');
    for (let i = 0; i < 10; i++) {
      area.value += '\nmore';
      area.dispatchEvent(new Event('input', { bubbles: true, composed: true }));
    }
    await (paragraph as HTMLElement & { updateComplete: Promise<unknown> }).updateComplete;
    expect(area.getBoundingClientRect().height).to.be.greaterThan(before + 40);
    expect(area.scrollHeight).to.be.at.most(area.clientHeight + 2);
  });

  it('works without custom states (:state() styling hooks only): the status line and aria-invalid still tell', async () => {
    const states = Object.getOwnPropertyDescriptor(ElementInternals.prototype, 'states');
    Object.defineProperty(ElementInternals.prototype, 'states', { configurable: true, get: () => undefined });
    try {
      const el = document.createElement('human-input-form') as HumanInputForm;
      Object.assign(el, { sessionUrl: sessionUrl('hitl-simple') });
      el.setAttribute('lang', 'en');
      const column = await inColumn(el);
      await until(() => $(el, 'form button[part~=action]'), `the form (now: ${statusText(el)})`);
      expect(hasState(el, 'ready')).to.equal(false);
      expect(statusText(el)).not.to.equal('');
      column.remove();
    } finally {
      Object.defineProperty(ElementInternals.prototype, 'states', states!);
    }
  });
});
