/** Waits for a condition that depends on real network traffic. */
export async function until<T>(probe: () => T | undefined | null | false, what: string, timeoutMs = 8000): Promise<T> {
  const deadline = performance.now() + timeoutMs;
  for (;;) {
    const value = probe();
    if (value) return value;
    if (performance.now() > deadline) throw new Error(`Timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}
