/**
 * Documents' original files, downloaded: the files a batch names (`DocumentService.
 * prepare_document_batch_download_zip`) and the ZIP of them (`FileService.
 * build_upload_files_zip_tempfile`), as Dify makes them.
 */
import { Zip, ZipDeflate } from 'fflate';
import { randomUUID } from 'node:crypto';
import { notFound } from '../errors.js';
import { pythonStrip } from '../python-str.js';
import type { DatasetRecord, UploadFileRecord } from './records.js';

/**
 * The upload file of each id, in the request's order (an id asked twice gives its file twice).
 * Any id not of this knowledge base: `404 Document not found.` before anything else. Dify's next
 * checks (another workspace's document, a document not made from an uploaded file, a file gone)
 * cannot fail here: the store has one workspace and every document keeps its file.
 */
export function batchDownloadFiles(ds: DatasetRecord, documentIds: readonly string[]): UploadFileRecord[] {
  const byId = new Map(ds.documents.map((d) => [d.id, d.upload_file]));
  if (documentIds.some((id) => !byId.has(id))) throw notFound('Document not found.');
  return documentIds.map((id) => byId.get(id)!);
}

/** The archive's download name: a random hex name (`uuid4().hex`), nothing of the documents. */
export const zipDownloadName = (): string => `${randomUUID().replaceAll('-', '')}.zip`;

/** A deflated ZIP of the files, in order, each under its sanitized name made unique. */
export function zipFiles(files: readonly UploadFileRecord[]): Uint8Array<ArrayBuffer> {
  const chunks: Uint8Array[] = [];
  // The callback runs synchronously for the synchronous `ZipDeflate` entries.
  const zip = new Zip((error, chunk) => {
    if (error) throw error;
    chunks.push(chunk);
  });
  const used = new Set<string>();
  for (const file of files) {
    const name = uniqueName(entryName(file.name), used);
    used.add(name);
    const entry = new ZipDeflate(name, { level: 6 });
    zip.add(entry);
    entry.push(file.bytes, true);
  }
  zip.end();
  return Buffer.concat(chunks);
}

/** `_sanitize_zip_entry_name`: the last path part, stripped (Python's whitespace), else `file`; no separators left. */
function entryName(name: string): string {
  const base = pythonStrip(name.slice(name.lastIndexOf('/') + 1)) || 'file';
  return base.replaceAll('/', '_').replaceAll('\\', '_');
}

/** `_dedupe_zip_entry_name`: `doc.txt`, then `doc (1).txt`, `doc (2).txt`… (`os.path.splitext` decides the extension). */
function uniqueName(name: string, used: ReadonlySet<string>): string {
  if (!used.has(name)) return name;
  const [stem, extension] = splitext(name);
  for (let suffix = 1; ; suffix++) {
    const candidate = `${stem} (${suffix})${extension}`;
    if (!used.has(candidate)) return candidate;
  }
}

/** `os.path.splitext` of a name without separators: the last dot starts the extension, unless only dots come before it. */
function splitext(name: string): [string, string] {
  const dot = name.lastIndexOf('.');
  if (dot <= 0 || /^\.+$/.test(name.slice(0, dot))) return [name, ''];
  return [name.slice(0, dot), name.slice(dot)];
}
