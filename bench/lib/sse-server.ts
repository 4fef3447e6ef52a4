/**
 * An upstream for the stream rows: `GET …/workflow/{id}/events?events=N&interval=MS` writes N
 * events `interval` ms apart, each stamped with the monotonic clock when written (`t`, in ns; the
 * same clock in every process on the machine) and padded to the size of a real node event, then
 * ends; `?hold=1` writes one event and holds the stream open until the client leaves. Prints its URL.
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import './heap-probe.js';

const PADDING = 'x'.repeat(300);

const server = createServer((req, res) => {
  req.resume();
  const url = new URL(req.url ?? '/', 'http://upstream');
  if (!url.pathname.endsWith('/events')) {
    res.writeHead(404, { 'Content-Type': 'application/json' });
    res.end('{"code":"not_found","message":"no","status":404}');
    return;
  }
  res.writeHead(200, { 'Content-Type': 'text/event-stream', 'Cache-Control': 'no-cache' });
  const event = (i: number) =>
    `data: {"event":"node_finished","workflow_run_id":"r","task_id":"r","data":{"i":${i},"t":"${process.hrtime.bigint()}","padding":"${PADDING}"}}\n\n`;
  if (url.searchParams.get('hold')) {
    res.write(event(0));
    return;
  }
  const total = Number(url.searchParams.get('events') ?? 100);
  const interval = Number(url.searchParams.get('interval') ?? 5);
  let i = 0;
  const timer = setInterval(() => {
    res.write(event(i));
    if (++i >= total) {
      clearInterval(timer);
      res.end();
    }
  }, interval);
  res.on('close', () => clearInterval(timer));
});
server.keepAliveTimeout = 60_000;
process.on('SIGINT', () => process.exit(0));
server.listen(0, '127.0.0.1', () => console.log(JSON.stringify({ url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1` })));
