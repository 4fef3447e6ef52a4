/**
 * Builds the files of a form submission from their mappings, like the real service's file
 * factory: an upload must be the submitting user's own, a remote URL is probed, and a declared
 * `type` must match the kind detected.
 */
import { UUID_PATTERN, type FileType } from '../../protocol/index.js';
import { FileRejection, type FileResolver, type SubmittedFile } from '../forms.js';
import { extensionOf, fileTypeOf } from './file-types.js';
import { probeRemoteFile, RemoteFetchError, type RemoteFetchOptions } from './remote.js';
import type { UploadStore } from './uploads.js';
import type { QaControls } from '../qa/controls.js';

/** The resolver of an app's file mappings under the service's current QA settings (remote fetch timeout, failures). */
export function appFileResolver({ uploads, qa }: { uploads: UploadStore; qa: QaControls }, appId: string): FileResolver {
  return createFileResolver(appId, uploads, { timeoutMs: qa.settings.remoteFetchTimeoutMs, failAll: () => qa.settings.failRemoteFetch });
}

const FILE_TYPES: readonly string[] = ['image', 'document', 'audio', 'video', 'custom'];

export function createFileResolver(appId: string, uploads: UploadStore, remote: RemoteFetchOptions): FileResolver {
  return async (mapping, user) => {
    const declared = mapping.type;
    if (declared !== undefined && (typeof declared !== 'string' || !FILE_TYPES.includes(declared))) {
      throw new FileRejection(`Invalid file type: ${String(declared)}`);
    }
    let file: SubmittedFile;
    switch (mapping.transfer_method) {
      case 'local_file': {
        const id = mapping.upload_file_id;
        if (typeof id !== 'string' || !UUID_PATTERN.test(id)) throw new FileRejection('Invalid upload file id format');
        const upload = uploads.owned(appId, user, id);
        if (!upload) throw new FileRejection('Invalid upload file');
        const { view } = upload;
        file = {
          type: fileTypeOf(view.extension, view.mime_type),
          transfer_method: 'local_file',
          upload_file_id: id,
          filename: view.name,
          extension: view.extension,
          mime_type: view.mime_type,
          size: view.size,
        };
        break;
      }
      case 'remote_url': {
        const url = mapping.url ?? mapping.remote_url;
        if (typeof url !== 'string' || !/^https?:\/\/[^\s/]+/i.test(url)) throw new FileRejection('Invalid file url');
        try {
          const info = await probeRemoteFile(url, remote);
          file = {
            type: fileTypeOf(info.extension, info.mimeType),
            transfer_method: 'remote_url',
            url,
            filename: info.filename,
            extension: info.extension || extensionOf(new URL(url).pathname),
            mime_type: info.mimeType,
            size: info.size,
          };
        } catch (error) {
          if (error instanceof RemoteFetchError) throw new FileRejection(error.message);
          throw error;
        }
        break;
      }
      default:
        // Only local files and URLs reach a form (§2.4); any other method, or none, is refused alike.
        throw new FileRejection('unsupported transfer method');
    }
    if (declared !== undefined && declared !== 'custom' && declared !== file.type) {
      throw new FileRejection('Detected file type does not match the specified type. Please verify the file.');
    }
    if (declared === 'custom') file.type = 'custom' as FileType;
    return file;
  };
}
