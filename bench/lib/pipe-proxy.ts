/** The floor for any proxy: a bare `node:http` pipe to the upstream given as argv[2] (no checks, no rewriting); prints its URL. */
import { createServer, request } from 'node:http';
import type { AddressInfo } from 'node:net';
import './heap-probe.js';

const upstream = new URL(process.argv[2]!);
const server = createServer((req, res) => {
  const path = upstream.pathname.replace(/\/$/, '') + (req.url ?? '/').replace(/^\/proxy/, '');
  const out = request({ host: upstream.hostname, port: upstream.port, method: req.method, path, headers: { ...req.headers, host: upstream.host } }, (answer) => {
    res.writeHead(answer.statusCode ?? 502, answer.headers);
    answer.pipe(res);
  });
  out.on('error', () => res.destroy());
  // A client that leaves closes the upstream side too (held streams would pile up otherwise).
  res.on('close', () => res.writableFinished || out.destroy());
  req.pipe(out);
});
process.on('SIGINT', () => process.exit(0));
server.listen(0, '127.0.0.1', () => console.log(JSON.stringify({ url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/proxy` })));
