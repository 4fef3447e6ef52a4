/** Driving a `<human-input-form>` on a page the way a user does. */
import type { Locator, Page } from 'playwright-core';

/** The form's first text box, once the form is on screen. */
export async function firstTextbox(form: Locator): Promise<Locator> {
  const box = form.getByRole('textbox').first();
  await box.waitFor({ timeout: 10_000 });
  return box;
}

/**
 * Resolves with the outputs of the `run-finished` event the element fires. The listener belongs
 * to the test, not to the page, so it also works on pages that have no script of their own.
 */
export function runFinished(page: Page, selector = 'human-input-form'): Promise<Record<string, unknown>> {
  return page.locator(selector).evaluate(
    (element) =>
      new Promise<Record<string, unknown>>((resolve) => {
        element.addEventListener('run-finished', (e: { result: { outputs: Record<string, unknown> } }) => resolve(e.result.outputs), { once: true });
      }),
  );
}

/** Collects the page's errors, to assert that none happened. */
export function collectProblems(page: Page): string[] {
  const problems: string[] = [];
  page.on('pageerror', (e) => problems.push(`pageerror: ${e.message}`));
  page.on('console', (m) => {
    if (m.type() === 'error') problems.push(`console: ${m.text()}`);
  });
  return problems;
}

/** Waits until `locator` matches exactly `count` nodes (lists re-render after each change). */
export async function expectCount(locator: Locator, count: number, timeoutMs = 5_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  let last = await locator.count();
  while (last !== count) {
    if (Date.now() > deadline) throw new Error(`expected ${count} of ${String(locator)}, found ${last}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
    last = await locator.count();
  }
}

/** Waits until the input `locator` holds `value` (an element may fill its inputs after showing them). */
export async function expectValue(locator: Locator, value: string, timeoutMs = 5_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  let last = await locator.inputValue();
  while (last !== value) {
    if (Date.now() > deadline) throw new Error(`expected ${String(locator)} to hold ${JSON.stringify(value)}, found ${JSON.stringify(last)}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
    last = await locator.inputValue();
  }
}
