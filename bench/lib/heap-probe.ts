/**
 * Lets the bench process ask a server child for its heap over IPC (`{heap: true}` → `{heapUsed}`
 * after a full collection), so a row can measure what a server holds per connection. The child
 * must run with `--expose-gc`; without an IPC channel this does nothing.
 */
const gc = (globalThis as { gc?: () => void }).gc;

process.on('message', (message: { heap?: boolean }) => {
  if (!message?.heap) return;
  gc?.();
  gc?.();
  process.send?.({ heapUsed: process.memoryUsage().heapUsed, collected: Boolean(gc) });
});
// An open IPC channel would keep the child alive after SIGTERM's default handler is replaced.
process.channel?.unref();
