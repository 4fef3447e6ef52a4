/**
 * `POST /files/upload` through the relay with upload progress. fetch cannot report the progress
 * of a request body in browsers yet, so this uses XMLHttpRequest; the relay adds `user`.
 */
import type { Transport } from '../../client/transport.js';
import { networkError, ServiceError } from '../../client/errors.js';
import { isErrorBody, type UploadedFile } from '../../protocol/index.js';
import { UPLOAD_PATH } from '../../protocol/paths.js';

/** Uploads one file; `progress` gets the fraction sent (0–1); aborting `signal` cancels it. */
export async function uploadFile(transport: Transport, file: File, progress: (fraction: number) => void, signal: AbortSignal): Promise<UploadedFile> {
  const { url, init } = await transport.prepare('POST', UPLOAD_PATH);
  const body = new FormData();
  body.append('file', file);
  return new Promise((resolve, reject) => {
    const xhr = new XMLHttpRequest();
    xhr.open('POST', url);
    xhr.setRequestHeader('Authorization', init.headers.Authorization!);
    xhr.upload.onprogress = (e) => progress(e.loaded / (e.total || 1));
    xhr.onload = () => {
      let answer: unknown;
      try {
        answer = JSON.parse(xhr.responseText);
      } catch {
        // A proxy's HTML error page: reported by status below.
      }
      if (xhr.status < 300) resolve(answer as UploadedFile);
      else reject(new ServiceError(isErrorBody(answer) ? answer : { code: 'unknown', message: xhr.statusText, status: xhr.status }));
    };
    xhr.onerror = () => reject(networkError(new Error(xhr.statusText || 'network error')));
    xhr.onabort = () => reject(signal.reason);
    signal.addEventListener('abort', () => xhr.abort());
    xhr.send(body);
  });
}
