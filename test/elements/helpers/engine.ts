/** What the engine running a test can do, found by feature detection rather than by its name. */

/**
 * Skips the running test and says why: the reason joins the test's title, which the test run
 * lists with the engine's name (web-test-runner.config.mjs), so no skip is silent.
 */
export function skipBecause(context: Mocha.Context, reason: string): never {
  context.test!.title += ` [skipped: ${reason}]`;
  context.skip();
}

/** Whether the engine's Media Source (ManagedMediaSource where there is one) takes `type`. */
export function mediaSourceTakes(type: string): boolean {
  const Source = (window as { ManagedMediaSource?: typeof MediaSource }).ManagedMediaSource ?? window.MediaSource;
  return !!Source?.isTypeSupported(type);
}
