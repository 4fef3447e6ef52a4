/** The bench's HTTP client: plain `node:http` (cheaper than fetch, so the servers' cost shows), keep-alive. */
import { Agent, request, type IncomingMessage } from 'node:http';

export interface Call {
  method?: string;
  headers?: Record<string, string>;
  body?: string;
  agent?: Agent;
}

export const keepAlive = new Agent({ keepAlive: true, maxSockets: 64 });

/** Sends one request and reads its answer; resolves with the status and the body's size. Rejects on a non-2xx status. */
export function call(url: string, { method = 'GET', headers = {}, body, agent = keepAlive }: Call = {}): Promise<number> {
  return new Promise((resolve, reject) => {
    const req = request(url, { method, headers: body === undefined ? headers : { ...headers, 'Content-Type': 'application/json', 'Content-Length': String(Buffer.byteLength(body)) }, agent }, (res) => {
      let bytes = 0;
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => {
        bytes += chunk.length;
        if (res.statusCode! >= 300) chunks.push(chunk);
      });
      res.on('end', () => (res.statusCode! < 300 ? resolve(bytes) : reject(new Error(`${method} ${url} answered ${res.statusCode}: ${Buffer.concat(chunks).toString().slice(0, 200)}`))));
      res.on('error', reject);
    });
    req.on('error', reject);
    req.end(body);
  });
}

/** Opens an event stream; `onEvent` gets each event's text and the monotonic time it arrived (ns). */
export function openStream(url: string, headers: Record<string, string>, onEvent: (event: string, at: bigint) => void, agent: Agent | false = keepAlive): Promise<{ response: IncomingMessage; ended: Promise<void> }> {
  return new Promise((resolve, reject) => {
    const req = request(url, { headers: { ...headers, Accept: 'text/event-stream' }, agent }, (res) => {
      if (res.statusCode !== 200) {
        res.resume();
        reject(new Error(`GET ${url} answered ${res.statusCode}`));
        return;
      }
      let pending = '';
      res.setEncoding('utf8');
      res.on('data', (text: string) => {
        const at = process.hrtime.bigint();
        pending += text;
        let end: number;
        while ((end = pending.indexOf('\n\n')) >= 0) {
          onEvent(pending.slice(0, end), at);
          pending = pending.slice(end + 2);
        }
      });
      const ended = new Promise<void>((done) => {
        res.on('end', done);
        res.on('close', done);
      });
      resolve({ response: res, ended });
    });
    req.on('error', reject);
    req.end();
  });
}
