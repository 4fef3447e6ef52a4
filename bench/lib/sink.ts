/** An upstream that reads every request body, keeps none of it, and answers 201 with the byte count. */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';

const server = createServer((req, res) => {
  let bytes = 0;
  req.on('data', (chunk: Buffer) => (bytes += chunk.length));
  req.on('end', () => {
    res.writeHead(201, { 'Content-Type': 'application/json' });
    res.end(JSON.stringify({ id: 'sink', size: bytes }));
  });
});
process.on('SIGINT', () => process.exit(0));
server.listen(0, '127.0.0.1', () => console.log(JSON.stringify({ url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1` })));
