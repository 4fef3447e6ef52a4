/**
 * Uploaded files. A file belongs to the end user who uploaded it: a form submission or a run
 * naming someone else's upload is refused as an invalid upload file.
 */
import { createHmac, randomBytes } from 'node:crypto';
import { APP_OPERATIONS, pathOf, type UploadedFile } from '../../protocol/index.js';

export interface UploadRecord {
  readonly view: UploadedFile;
  readonly appId: string;
  readonly user: string;
  readonly bytes: Uint8Array;
}

/** How long a signed preview link stays valid, like the real service's files access timeout. */
const PREVIEW_TTL_SECONDS = 300;

export class UploadStore {
  readonly #files = new Map<string, UploadRecord>();
  readonly #secret = randomBytes(32);

  add(record: UploadRecord): void {
    this.#files.set(record.view.id, record);
  }

  /** The file if this user of this app uploaded it. */
  owned(appId: string, user: string, id: string): UploadRecord | undefined {
    const record = this.#files.get(id);
    return record && record.appId === appId && record.user === user ? record : undefined;
  }

  /** A signed, expiring `source_url` path for `GET /files/{id}/file-preview`. */
  signedPreviewPath(id: string): string {
    const timestamp = String(Math.floor(Date.now() / 1000));
    const nonce = randomBytes(16).toString('hex');
    return `${pathOf(APP_OPERATIONS.filePreview.path, id)}?timestamp=${timestamp}&nonce=${nonce}&sign=${this.#sign(id, timestamp, nonce)}`;
  }

  /** The file a signed preview link names, or `undefined` when the link is forged or stale. */
  verifyPreview(id: string, params: URLSearchParams): UploadRecord | undefined {
    const timestamp = params.get('timestamp') ?? '';
    const nonce = params.get('nonce') ?? '';
    const sign = params.get('sign') ?? '';
    if (!/^\d+$/.test(timestamp) || sign !== this.#sign(id, timestamp, nonce)) return undefined;
    if (Math.floor(Date.now() / 1000) - Number(timestamp) > PREVIEW_TTL_SECONDS) return undefined;
    return this.#files.get(id);
  }

  /** How many files are stored (QA's state shows it: an abandoned upload must leave none behind). */
  get size(): number {
    return this.#files.size;
  }

  clear(): void {
    this.#files.clear();
  }

  #sign(id: string, timestamp: string, nonce: string): string {
    return createHmac('sha256', this.#secret).update(`file-preview|${id}|${timestamp}|${nonce}`).digest('base64url');
  }
}
