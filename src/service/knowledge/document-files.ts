/**
 * Files sent to create or update a document (`multipart/form-data`: one `file` part and an
 * optional JSON `data` part), checked in the real service's order. The embedded service reads
 * text formats only (it has no PDF or Office parser): other types are refused as unsupported.
 */
import { MIME_TYPES } from '../../protocol/index.js';
import { ApiError, badParam } from '../errors.js';
import { storedFileName } from '../files/file-types.js';

const MB = 1024 * 1024;
/** The real service's default `UPLOAD_FILE_SIZE_LIMIT`. */
export const DOCUMENT_FILE_LIMIT_MB = 15;

/**
 * The formats the embedded service reads as text, with the MIME type a document records: the
 * file-type table's, and two it does not label (the table labels uploads, which never see these).
 */
const TEXT_TYPES: Record<string, string> = {
  ...Object.fromEntries(['txt', 'md', 'markdown', 'mdx', 'csv', 'html', 'htm'].map((extension) => [extension, MIME_TYPES[extension]!])),
  vtt: 'text/vtt',
  properties: 'text/plain',
};

/** What is read of an uploaded file part. */
export interface FilePart { name: string; size: number; arrayBuffer(): Promise<ArrayBuffer> }

export interface DocumentFile {
  name: string;
  text: string;
  size: number;
  extension: string;
  mime_type: string;
  /** The file as sent: the download routes give these bytes back, not the text read from them. */
  bytes: Uint8Array;
}


/** Reads the form; `fileRequired` for creation, optional for an update. */
export async function readDocumentUpload(request: Request, fileRequired: boolean): Promise<{ data: Record<string, unknown>; files: FilePart[]; fileFields: number }> {
  const declared = Number(request.headers.get('content-length') ?? 0);
  if (declared > (DOCUMENT_FILE_LIMIT_MB + 1) * MB) throw tooLarge(declared);
  const multipart = /^multipart\/form-data/i.test(request.headers.get('content-type') ?? '');
  if (!multipart) {
    if (fileRequired) throw new ApiError(400, 'no_file_uploaded', 'Please upload your file.');
    return { data: {}, files: [], fileFields: 0 };
  }
  // Counted as it arrives, not only as declared: a chunked body declares nothing, and `formData()`
  // alone would hold all of it (1.8 GB sent so took 5.7 GB) before its size could be refused.
  const ceiling = (DOCUMENT_FILE_LIMIT_MB + 1) * MB;
  let received = 0;
  const counted = request.body?.pipeThrough(
    new TransformStream<Uint8Array, Uint8Array>({
      transform(chunk, controller) {
        received += chunk.byteLength;
        if (received > ceiling) controller.error(tooLarge(received));
        else controller.enqueue(chunk);
      },
    }),
  );
  let form: FormData;
  try {
    form = await new Response(counted, { headers: { 'Content-Type': request.headers.get('content-type')! } }).formData();
  } catch (error) {
    if (received > ceiling) throw tooLarge(received);
    throw badParam(`Invalid multipart body: ${(error as Error).message}`);
  }
  const raw = form.get('data');
  let data: Record<string, unknown> = {};
  if (typeof raw === 'string' && raw.trim()) {
    let parsed: unknown;
    try {
      parsed = JSON.parse(raw);
    } catch (error) {
      throw badParam(`Invalid JSON in the data part: ${(error as Error).message}`);
    }
    if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) throw badParam('The data part must be a JSON object.');
    data = parsed as Record<string, unknown>;
  }
  const parts = form.getAll('file');
  // Every file part counts, whatever its name (Dify checks `len(request.files)`), once a `file` part came.
  let others = 0;
  for (const [name, value] of form) if (name !== 'file' && typeof value !== 'string') others++;
  return { data, files: parts.flatMap((p) => (typeof p === 'string' ? [] : [p as unknown as FilePart])), fileFields: parts.length && parts.length + others };
}

function tooLarge(size: number): ApiError {
  return new ApiError(413, 'file_too_large', `File size exceeded. ${size} > ${DOCUMENT_FILE_LIMIT_MB * MB}`);
}

/** The one file of the form, checked (count, name, size, type) and read as text. */
export async function documentFile(files: FilePart[], fileFields: number, required: boolean): Promise<DocumentFile | null> {
  if (!fileFields) {
    if (required) throw new ApiError(400, 'no_file_uploaded', 'Please upload your file.');
    return null;
  }
  if (fileFields > 1) throw new ApiError(400, 'too_many_files', 'Only one file is allowed.');
  const file = files[0];
  if (!file || !file.name) throw new ApiError(400, 'filename_not_exists_error', 'The specified filename does not exist.');
  if (file.size > DOCUMENT_FILE_LIMIT_MB * MB) throw tooLarge(file.size);
  const dot = file.name.lastIndexOf('.');
  const extension = dot >= 0 ? file.name.slice(dot + 1).toLowerCase() : '';
  const mime = TEXT_TYPES[extension];
  if (!mime) throw new ApiError(415, 'unsupported_file_type', 'File type not allowed.');
  const bytes = new Uint8Array(await file.arrayBuffer());
  let text = new TextDecoder().decode(bytes);
  if (extension === 'html' || extension === 'htm') text = htmlText(text);
  // The document takes the name its upload file is stored under (`upload_file.name`).
  return { name: storedFileName(file.name), text, size: file.size, extension, mime_type: mime, bytes };
}

/** The readable text of an HTML page: scripts and styles dropped, tags removed, entities of the common five decoded. */
function htmlText(html: string): string {
  return html
    .replace(/<(script|style)[^>]*>[\s\S]*?<\/\1>/gi, '')
    .replace(/<br\s*\/?>|<\/(p|div|li|h[1-6]|tr)>/gi, '\n')
    .replace(/<[^>]+>/g, '')
    .replace(/&lt;/g, '<')
    .replace(/&gt;/g, '>')
    .replace(/&quot;/g, '"')
    .replace(/&#39;/g, "'")
    .replace(/&amp;/g, '&');
}
