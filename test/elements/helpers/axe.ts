/** Runs axe-core on an element (including its shadow root) and fails with a readable list. */
import 'axe-core/axe.min.js';
import { expect } from '@open-wc/testing';

interface AxeResults {
  violations: { id: string; help: string; nodes: { target: unknown[] }[] }[];
}
declare global {
  interface Window {
    axe: { run(context: Element, options?: object): Promise<AxeResults> };
  }
}

export async function expectNoAxeViolations(element: Element): Promise<void> {
  const results = await window.axe.run(element, { resultTypes: ['violations'] });
  const summary = results.violations.map((v) => `${v.id}: ${v.help} (${v.nodes.map((n) => JSON.stringify(n.target)).join(', ')})`);
  expect(summary, summary.join('\n')).to.deep.equal([]);
}
