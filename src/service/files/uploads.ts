/**
 * Uploaded files. A file belongs to the end user who uploaded it: a form submission or a run
 * naming someone else's upload is refused as an invalid upload file. Signed preview links also
 * serve files kept elsewhere (the knowledge side's document files): Dify keeps every upload in one
 * table, so one signer and one preview route serve them all.
 */
import { createHmac, randomBytes } from 'node:crypto';
import { APP_OPERATIONS, pathOf, type UploadedFile } from '../../protocol/index.js';

export interface UploadRecord {
  readonly view: UploadedFile;
  readonly appId: string;
  readonly user: string;
  readonly bytes: Uint8Array;
}

/** What a signed preview link serves. */
export interface PreviewFile {
  readonly name: string;
  readonly mime_type: string;
  readonly bytes: Uint8Array;
}

/** Finds a file this store does not keep, by id. */
export type FileLookup = (id: string) => PreviewFile | undefined;

/** How long a signed preview link stays valid, like the real service's files access timeout. */
const PREVIEW_TTL_SECONDS = 300;

export class UploadStore {
  readonly #files = new Map<string, UploadRecord>();
  readonly #secret = randomBytes(32);
  readonly #lookups: FileLookup[] = [];

  add(record: UploadRecord): void {
    this.#files.set(record.view.id, record);
  }

  /** Lets signed links name the files `lookup` finds (they are never anyone's app upload). */
  addLookup(lookup: FileLookup): void {
    this.#lookups.push(lookup);
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
  verifyPreview(id: string, params: URLSearchParams): PreviewFile | undefined {
    const timestamp = params.get('timestamp') ?? '';
    const nonce = params.get('nonce') ?? '';
    const sign = params.get('sign') ?? '';
    if (!/^\d+$/.test(timestamp) || sign !== this.#sign(id, timestamp, nonce)) return undefined;
    if (Math.floor(Date.now() / 1000) - Number(timestamp) > PREVIEW_TTL_SECONDS) return undefined;
    const upload = this.#files.get(id);
    if (upload) return { name: upload.view.name, mime_type: upload.view.mime_type, bytes: upload.bytes };
    for (const lookup of this.#lookups) {
      const file = lookup(id);
      if (file) return file;
    }
    return undefined;
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
