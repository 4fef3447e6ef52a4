/**
 * `POST /files/upload` (multipart, dify-wire.md §6): one `file` part and a `user` field, size
 * limits per kind from the app's `system_parameters`, the real checks in the real order, and the
 * 201 answer. Also the signed `source_url` the answer carries.
 */
import { APP_OPERATIONS, type UploadedFile } from '../../protocol/index.js';
import type { ServiceContext } from '../context.js';
import { ApiError, badParam, notFound } from '../errors.js';
import type { FixtureApp } from '../fixture.js';
import { BLOCKED_EXTENSIONS, extensionOf, fileTypeOf, mimeTypeOf, storedFileName } from '../files/file-types.js';
import { readMultipart } from '../files/multipart.js';
import { json } from '../http.js';
import { nowSeconds, uuid } from '../ids.js';
import { laxBoolean } from '../params.js';
import { optionalUser } from '../params.js';
import type { Router } from '../router.js';
import { appRoute } from './app-route.js';

const MB = 1024 * 1024;
const INVALID_FILENAME = /[/\\:*?"<>|]/;


export function fileRoutes(router: Router<ServiceContext>): void {
  // `user` comes in the multipart body, read after its parts.
  appRoute(router)(APP_OPERATIONS.uploadFile, {}, async ({ app, request, url, context: { fixture, uploads, endUsers } }) => {
    const limits = app.parameters.system_parameters;
    const ceiling = Math.max(limits.file_size_limit, limits.image_file_size_limit, limits.audio_file_size_limit, limits.video_file_size_limit) * MB;
    const { files, fields, headers } = await readMultipart(request, ceiling, {
      notMultipart: () => new ApiError(400, 'no_file_uploaded', 'Please upload your file.'),
      tooLarge: (declared) => new ApiError(413, 'file_too_large', `File size exceeded. ${declared} > ${ceiling}`),
    });
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
