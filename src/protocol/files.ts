/** File kinds, transfer methods and file references, shared by uploads, runs and forms. */

export type FileType = 'image' | 'document' | 'audio' | 'video' | 'custom';
export type TransferMethod = 'local_file' | 'remote_url';

/** A file already uploaded through `POST /files/upload`. */
export interface LocalFileReference {
  transfer_method: 'local_file';
  upload_file_id: string;
  type?: FileType;
}

/** A file the service fetches itself at submit time (`remote_url` is accepted in place of `url`). */
export interface RemoteFileReference {
  transfer_method: 'remote_url';
  url: string;
  type?: FileType;
}

export type FileReference = LocalFileReference | RemoteFileReference;

/** `201` answer of `POST /files/upload`. */
export interface UploadedFile {
  id: string;
  reference: string | null;
  name: string;
  size: number;
  extension: string;
  mime_type: string;
  created_by: string;
  created_at: number;
  preview_url: string | null;
  source_url: string | null;
  original_url: string | null;
  user_id: string | null;
  tenant_id: string;
  conversation_id: string | null;
  file_key: string | null;
}

/** Short shape answered by the knowledge pipeline upload. */
export type PipelineUploadedFile = Pick<UploadedFile, 'id' | 'name' | 'size' | 'extension' | 'mime_type' | 'created_by' | 'created_at'>;

/**
 * The one file-type table: the extensions of each file kind, as the real service classifies them;
 * an extension no kind lists is `custom`. Space-delimited, with a space at each end, so that
 * `.includes(` ${extension} `)` looks one up (as `<hitl-file>` does).
 */
export const FILE_EXTENSIONS: Readonly<Record<Exclude<FileType, 'custom'>, string>> = {
  image: ' jpg jpeg png webp gif svg ',
  document: ' txt markdown md mdx pdf html htm xlsx xls vtt properties doc docx csv eml msg pptx xml epub ppt ',
  audio: ' mp3 m4a wav amr mpga ',
  video: ' mp4 mov mpeg webm ',
};

/** The kind of a file by its extension alone (lower case, no dot): `custom` when no kind lists it. */
export function fileKindOf(extension: string): FileType {
  const kinds = Object.keys(FILE_EXTENSIONS) as (keyof typeof FILE_EXTENSIONS)[];
  return (extension && kinds.find((kind) => FILE_EXTENSIONS[kind].split(' ').includes(extension))) || 'custom';
}

/** The MIME type of each extension the service labels itself (an upload sent as `application/octet-stream`, say). */
export const MIME_TYPES: Readonly<Record<string, string>> = {
  jpg: 'image/jpeg', jpeg: 'image/jpeg', png: 'image/png', webp: 'image/webp', gif: 'image/gif', svg: 'image/svg+xml',
  mp4: 'video/mp4', mov: 'video/quicktime', mpeg: 'video/mpeg', webm: 'video/webm',
  mp3: 'audio/mpeg', m4a: 'audio/mp4', wav: 'audio/wav', amr: 'audio/amr', mpga: 'audio/mpeg',
  txt: 'text/plain', markdown: 'text/markdown', md: 'text/markdown', mdx: 'text/markdown', pdf: 'application/pdf',
  html: 'text/html', htm: 'text/html', csv: 'text/csv', xml: 'text/xml', json: 'application/json',
  docx: 'application/vnd.openxmlformats-officedocument.wordprocessingml.document', doc: 'application/msword',
  xlsx: 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet', xls: 'application/vnd.ms-excel',
  pptx: 'application/vnd.openxmlformats-officedocument.presentationml.presentation', ppt: 'application/vnd.ms-powerpoint',
  epub: 'application/epub+zip', eml: 'message/rfc822',
};
