/** axe-core (the devDependency) run in a page the tests drive, for the states they reach. */
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import type { Page } from 'playwright-core';

const AXE = readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');

/** The page's accessibility violations as readable lines (`rule: targets`), none when clean. */
export async function axeViolations(page: Page): Promise<string[]> {
  // Strings, not functions: this side is compiled without the DOM library.
  if (!(await page.evaluate('typeof axe === "object"'))) await page.addScriptTag({ content: AXE });
  return (await page.evaluate(
    `axe.run(document, { resultTypes: ['violations'] }).then((r) => r.violations.map((v) => v.id + ': ' + v.nodes.map((n) => JSON.stringify(n.target)).join(', ')))`,
  )) as string[];
}
