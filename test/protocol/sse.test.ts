/**
 * SSE framing (dify-wire.md §4.1): `data: <json>` frames, bare `event: ping` keep-alives.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { formatSseFrame, readRunEvents, toRunEvent, type RunEvent } from '../../src/protocol/index.js';

const encoder = new TextEncoder();

/** A body that delivers the given chunks (strings or raw bytes), then ends. */
function bodyOf(chunks: (string | Uint8Array)[]): ReadableStream<Uint8Array> {
  return new ReadableStream<Uint8Array>({
    start(controller) {
      for (const chunk of chunks) controller.enqueue(typeof chunk === 'string' ? encoder.encode(chunk) : chunk);
      controller.close();
    },
  });
}

async function collect(body: ReadableStream<Uint8Array>): Promise<RunEvent[]> {
  const events: RunEvent[] = [];
  for await (const event of readRunEvents(body)) events.push(event);
  return events;
}

const started: RunEvent = {
  event: 'workflow_started',
  task_id: 't1',
  workflow_run_id: 'r1',
  data: { id: 'r1', workflow_id: 'w1', inputs: {}, created_at: 1, reason: 'initial' },
};
const chunk = (text: string): RunEvent => ({
  event: 'text_chunk',
  task_id: 't1',
  workflow_run_id: 'r1',
  data: { text, from_variable_selector: ['draft', 'text'] },
});

describe('toRunEvent', () => {
  test('parses a data frame carrying an event object', () => {
    assert.deepEqual(toRunEvent({ data: JSON.stringify(started) }), started);
  });

  test('a bare ping frame becomes { event: "ping" }', () => {
    assert.deepEqual(toRunEvent({ event: 'ping', data: '' }), { event: 'ping' });
  });

  test('frames that are not run events give undefined', () => {
    for (const data of ['', 'not json', '{"event":', 'null', '42', '"text"', '[1,2]', '{"no_event":true}', '{"event":5}']) {
      assert.equal(toRunEvent({ data }), undefined, data);
    }
  });

  test('Python-style spacing (json.dumps) parses like compact orjson', () => {
    const event = toRunEvent({ data: '{"event": "text_chunk", "task_id": "t", "workflow_run_id": "r", "data": {"text": "hi", "from_variable_selector": null}}' });
    assert.equal(event?.event, 'text_chunk');
    assert.equal(event?.event === 'text_chunk' ? event.data.text : undefined, 'hi');
  });
});

describe('formatSseFrame', () => {
  test('an event is one data line then a blank line', () => {
    assert.equal(formatSseFrame(started), `data: ${JSON.stringify(started)}\n\n`);
  });

  test('a ping is a bare event line without data', () => {
    assert.equal(formatSseFrame({ event: 'ping' }), 'event: ping\n\n');
  });

  test('text with newlines stays on one data line (JSON-escaped)', () => {
    const frame = formatSseFrame(chunk('line 1\nline 2\r\n'));
    assert.equal(frame.split('\n').length, 3); // "data: …", "", ""
    assert.ok(frame.endsWith('\n\n'));
  });

  test('round-trips through readRunEvents', async () => {
    const events = [started, chunk('a'), chunk('line\nbreak'), chunk('ünïcødé ✓')];
    const text = [...events, { event: 'ping' } as const].map(formatSseFrame).join('');
    assert.deepEqual(await collect(bodyOf([text])), [...events, { event: 'ping' }]);
  });
});

describe('readRunEvents', () => {
  test('reads frames split anywhere across chunks', async () => {
    const text = formatSseFrame(started) + formatSseFrame(chunk('hello')) + formatSseFrame(chunk('world'));
    const expected = [started, chunk('hello'), chunk('world')];
    // Every split point, and one byte per chunk.
    for (let cut = 1; cut < text.length; cut += 7) {
      assert.deepEqual(await collect(bodyOf([text.slice(0, cut), text.slice(cut)])), expected, `cut at ${cut}`);
    }
    assert.deepEqual(await collect(bodyOf([...encoder.encode(text)].map((b) => new Uint8Array([b])))), expected);
  });

  test('a multi-byte character split between chunks is decoded intact', async () => {
    const bytes = encoder.encode(formatSseFrame(chunk('→ é ✓ 🎉')));
    const split = bytes.indexOf(0xf0) + 2; // inside the 4-byte emoji
    assert.deepEqual(await collect(bodyOf([bytes.slice(0, split), bytes.slice(split)])), [chunk('→ é ✓ 🎉')]);
  });

  test('yields ping keep-alives; drops comments and non-JSON data frames', async () => {
    const body = bodyOf([
      'event: ping\n\n',
      ': a comment\n\n',
      formatSseFrame(started),
      'data: not json\n\n',
      'data: {"no_event": 1}\n\n',
      'event: ping\n\n',
      formatSseFrame(chunk('x')),
    ]);
    assert.deepEqual(await collect(body), [{ event: 'ping' }, started, { event: 'ping' }, chunk('x')]);
  });

  test('accepts CRLF and CR line endings', async () => {
    const crlf = `data: ${JSON.stringify(started)}\r\n\r\nevent: ping\r\n\r\ndata: ${JSON.stringify(chunk('y'))}\r\n\r\n`;
    const expected = [started, { event: 'ping' }, chunk('y')];
    assert.deepEqual(await collect(bodyOf([crlf])), expected);
    // A CRLF pair split across chunks is one line end, not a blank line.
    const cut = crlf.indexOf('\r\n') + 1;
    assert.deepEqual(await collect(bodyOf([crlf.slice(0, cut), crlf.slice(cut)])), expected);
    const cr = `data: ${JSON.stringify(started)}\r\r`;
    assert.deepEqual(await collect(bodyOf([cr])), [started]);
  });

  test('accepts "data:" without a space', async () => {
    assert.deepEqual(await collect(bodyOf([`data:${JSON.stringify(started)}\n\n`])), [started]);
  });

  test('a last frame without its blank line is still delivered', async () => {
    assert.deepEqual(await collect(bodyOf([formatSseFrame(started), `data: ${JSON.stringify(chunk('tail'))}`])), [started, chunk('tail')]);
    assert.deepEqual(await collect(bodyOf([`data: ${JSON.stringify(chunk('tail'))}\n`])), [chunk('tail')]);
  });

  test('an empty body yields nothing', async () => {
    assert.deepEqual(await collect(bodyOf([])), []);
  });

  test('yields each event as soon as its frame arrives', async () => {
    let controller!: ReadableStreamDefaultController<Uint8Array>;
    const body = new ReadableStream<Uint8Array>({ start: (c) => void (controller = c) });
    const events = readRunEvents(body);
    controller.enqueue(encoder.encode(formatSseFrame(started)));
    // The stream is still open: the first event must not wait for it to end.
    const first = await events.next();
    assert.deepEqual(first, { done: false, value: started });
    controller.enqueue(encoder.encode(formatSseFrame(chunk('later'))));
    controller.close();
    assert.deepEqual(await events.next(), { done: false, value: chunk('later') });
    assert.deepEqual(await events.next(), { done: true, value: undefined });
  });

  test('leaving early cancels the body', async () => {
    let cancelled = false;
    const body = new ReadableStream<Uint8Array>({
      start(controller) {
        controller.enqueue(encoder.encode(formatSseFrame(started) + formatSseFrame(chunk('more'))));
      },
      cancel() {
        cancelled = true;
      },
    });
    for await (const event of readRunEvents(body)) {
      assert.deepEqual(event, started);
      break;
    }
    assert.equal(cancelled, true);
  });
});
