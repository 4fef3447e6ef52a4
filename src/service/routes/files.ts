/**
 * `POST /files/upload` (multipart, dify-wire.md §6): one `file` part and a `user` field, size
 * limits per kind from the app's `system_parameters`, the real checks in the real order, and the
 * 201 answer. Also the signed `source_url` the answer carries.
 */
import Busboy from 'busboy';
import { Readable } from 'node:stream';
import { APP_OPERATIONS, type UploadedFile } from '../../protocol/index.js';
import type { ServiceContext } from '../context.js';
import { ApiError, badParam, notFound } from '../errors.js';
import type { FixtureApp } from '../fixture.js';
import { BLOCKED_EXTENSIONS, extensionOf, fileTypeOf, mimeTypeOf, storedFileName } from '../files/file-types.js';
import { PartHeaderWatcher, type PartHeaders } from '../files/part-headers.js';
import { json } from '../http.js';
import { nowSeconds, uuid } from '../ids.js';
import { laxBoolean } from '../params.js';
import { optionalUser } from '../params.js';
import type { Router } from '../router.js';
import { appRoute } from './app-route.js';

const MB = 1024 * 1024;
const INVALID_FILENAME = /[/\\:*?"<>|]/;

interface Part {
  filename: string | undefined;
  mimeType: string;
  bytes: Uint8Array;
  size: number;
  /** Set when the part grew past the largest limit and its bytes were dropped. */
  truncated: boolean;
}

export function fileRoutes(router: Router<ServiceContext>): void {
  // `user` comes in the multipart body, read after its parts.
  appRoute(router)(APP_OPERATIONS.uploadFile, {}, async ({ app, request, url, context: { fixture, uploads, endUsers } }) => {
    const limits = app.parameters.system_parameters;
    const ceiling = Math.max(limits.file_size_limit, limits.image_file_size_limit, limits.audio_file_size_limit, limits.video_file_size_limit) * MB;
    const { files, fields, headers } = await readMultipart(request, ceiling);
    const user = optionalUser(fields.user);
    if (files.length === 0 && fields.file === undefined) throw new ApiError(400, 'no_file_uploaded', 'Please upload your file.');
    if (files.length + (fields.file === undefined ? 0 : 1) > 1) throw new ApiError(400, 'too_many_files', 'Only one file is allowed.');
    const part = files[0];
    if (part && !headers.find((h) => h.name === 'file')?.hasContentType) throw new ApiError(415, 'unsupported_file_type', 'File type not allowed.');
    // A `file` part without a filename arrives as a plain field.
    if (!part || !part.filename) throw new ApiError(400, 'filename_not_exists_error', 'The specified filename does not exist.');
    if (INVALID_FILENAME.test(part.filename)) throw badParam('Filename contains invalid characters');
    const extension = extensionOf(part.filename);
    const mimeType = part.mimeType === 'application/octet-stream' || part.mimeType === 'text/plain' ? (mimeTypeOf(extension) ?? part.mimeType) : part.mimeType;
    const limit = sizeLimit(app, fileTypeOf(extension, mimeType));
    if (part.truncated || part.size > limit) {
      throw new ApiError(413, 'file_too_large', `File size exceeded. ${part.size} > ${limit}`);
    }
    if (BLOCKED_EXTENSIONS.has(extension)) throw badParam(`File extension '.${extension}' is not allowed for security reasons`);
    const id = uuid();
    const view: UploadedFile = {
      id,
      reference: null,
      name: storedFileName(part.filename),
      size: part.size,
      extension,
      mime_type: mimeType,
      created_by: endUsers.idOf(app.id, user),
      created_at: nowSeconds(),
      preview_url: null,
      source_url: `${url.origin}${uploads.signedPreviewPath(id)}`,
      original_url: null,
      user_id: null,
      tenant_id: fixture.tenant_id,
      conversation_id: null,
      file_key: null,
    };
    uploads.add({ view, appId: app.id, user, bytes: part.bytes });
    return json(view, 201);
  });
}

/**
 * `GET /files/{id}/file-preview?timestamp&nonce&sign[&as_attachment]`: the bytes behind a signed
 * link. `as_attachment` (a pydantic bool) makes it a download, as Dify's `FilePreviewApi` does:
 * `attachment` with the name quoted as Python's `quote` does, and a generic type.
 */
export function previewFile(context: ServiceContext, id: string, url: URL): Response {
  const file = context.uploads.verifyPreview(id, url.searchParams);
  if (!file) throw notFound('File not found or signature is invalid.');
  const attachment = laxBoolean(url.searchParams.get('as_attachment')) === true;
  return new Response(Uint8Array.from(file.bytes), {
    headers: {
      'Content-Type': attachment ? 'application/octet-stream' : file.mime_type,
      'Content-Length': String(file.bytes.byteLength),
      'Content-Disposition': attachment ? `attachment; filename*=UTF-8''${pythonQuote(file.name)}` : `inline; filename*=UTF-8''${encodeURIComponent(file.name)}`,
    },
  });
}

/** Python's `urllib.parse.quote`: also escapes the `!'()*` that `encodeURIComponent` leaves. */
function pythonQuote(text: string): string {
  return encodeURIComponent(text).replace(/[!'()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`);
}

function sizeLimit(app: FixtureApp, type: string): number {
  const limits = app.parameters.system_parameters;
  const mb = type === 'image' ? limits.image_file_size_limit : type === 'audio' ? limits.audio_file_size_limit : type === 'video' ? limits.video_file_size_limit : limits.file_size_limit;
  return mb * MB;
}

/** Parses the multipart body with busboy; a part larger than `ceiling` is counted, not kept. */
async function readMultipart(request: Request, ceiling: number): Promise<{ files: Part[]; fields: Record<string, string>; headers: PartHeaders[] }> {
  const contentType = request.headers.get('content-type') ?? '';
  if (!/^multipart\/form-data/i.test(contentType) || !request.body) throw new ApiError(400, 'no_file_uploaded', 'Please upload your file.');
  const declared = Number(request.headers.get('content-length') ?? 0);
  if (declared > ceiling + MB) throw new ApiError(413, 'file_too_large', `File size exceeded. ${declared} > ${ceiling}`);
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
