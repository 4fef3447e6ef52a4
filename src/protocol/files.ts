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
