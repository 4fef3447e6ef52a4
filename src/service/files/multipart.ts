/**
 * Multipart bodies of the routes that take a file (`/files/upload`, `/audio-to-text`): the parts
 * named `file` (bytes kept up to a ceiling, then only counted), the plain fields, and each part's
 * raw headers (whether it declared a Content-Type at all).
 */
import Busboy from 'busboy';
import { Readable } from 'node:stream';
import { badParam, type ApiError } from '../errors.js';
import { PartHeaderWatcher, type PartHeaders } from './part-headers.js';

const MB = 1024 * 1024;

export interface Part {
  filename: string | undefined;
  mimeType: string;
  bytes: Uint8Array;
  size: number;
  /** Set when the part grew past the largest limit and its bytes were dropped. */
  truncated: boolean;
}

/** The route's own answers to a body that is no multipart form, or declares more than the ceiling (and a MiB of slack). */
export interface MultipartRefusals {
  notMultipart(): ApiError;
  tooLarge(declared: number): ApiError;
}

/** Parses the multipart body with busboy; a part larger than `ceiling` is counted, not kept. */
export async function readMultipart(request: Request, ceiling: number, refuse: MultipartRefusals): Promise<{ files: Part[]; fields: Record<string, string>; headers: PartHeaders[] }> {
  const contentType = request.headers.get('content-type') ?? '';
  if (!/^multipart\/form-data/i.test(contentType) || !request.body) throw refuse.notMultipart();
  const declared = Number(request.headers.get('content-length') ?? 0);
  if (declared > ceiling + MB) throw refuse.tooLarge(declared);
  const files: Part[] = [];
  const fields: Record<string, string> = {};
  const boundary = /;\s*boundary=(?:"([^"]+)"|([^;\s]+))/i.exec(contentType);
  const watcher = new PartHeaderWatcher(boundary?.[1] ?? boundary?.[2] ?? '');
  const source = Readable.fromWeb(request.body as import('node:stream/web').ReadableStream);
  await new Promise<void>((resolve, reject) => {
    let parser: Busboy.Busboy;
    try {
      // Werkzeug decodes a part's headers as UTF-8, so `filename="報告.pdf"` (as browsers and
      // undici send it) is that name; busboy's default reads the parameter as Latin-1.
      parser = Busboy({ headers: { 'content-type': contentType }, preservePath: true, defParamCharset: 'utf8', limits: { fileSize: ceiling, files: 5, fields: 20, fieldSize: 64 * 1024 } });
    } catch (error) {
      return reject(badParam(`Invalid multipart body: ${(error as Error).message}`));
    }
    // Every stream here gets an error listener: busboy errors a part's stream when the body ends
    // inside it, and an `error` event nobody listens to ends the process.
    const fail = (error: Error) => {
      source.destroy();
      parser.destroy();
      reject(error);
    };
    parser.on('file', (name, stream, info) => {
      stream.on('error', () => {}); // the parser reports the same fault once, below
      if (name !== 'file') return stream.resume();
      const part: Part = { filename: info.filename, mimeType: info.mimeType, bytes: new Uint8Array(), size: 0, truncated: false };
      const chunks: Buffer[] = [];
      stream.on('data', (chunk: Buffer) => {
        part.size += chunk.length;
        // Past the ceiling busboy stops passing bytes; the part is refused whole, so keep none.
        if (!part.truncated) chunks.push(chunk);
      });
      stream.on('limit', () => ((part.truncated = true), (chunks.length = 0)));
      stream.on('end', () => (part.bytes = Buffer.concat(chunks)));
      files.push(part);
    });
    parser.on('field', (name, value) => (fields[name] = value));
    parser.on('close', resolve);
    parser.on('error', (error: Error) => fail(badParam(`Invalid multipart body: ${error.message}`)));
    watcher.on('error', (error: Error) => fail(badParam(`Invalid multipart body: ${error.message}`)));
    // A client that goes away mid-body: nobody reads the answer, but the handler ends cleanly
    // and keeps nothing of the upload.
    source.on('error', () => fail(badParam('Invalid multipart body: the upload ended before it was complete.')));
    source.pipe(watcher).pipe(parser);
  });
  return { files, fields, headers: watcher.parts };
}
