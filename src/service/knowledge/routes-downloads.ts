/**
 * The routes that hand out documents' original files: a signed download link and a ZIP of several
 * (`DocumentDownloadApi`, `DocumentBatchDownloadZipApi` in `document.py`), and older builds' file
 * detail (`UploadFileApi` in `upload_file.py`). The links are the app side's signed preview links
 * (`UploadStore`), which serve these files too, as Dify's one `file-preview` route serves every upload.
 */
import { KNOWLEDGE_OPERATIONS } from '../../protocol/knowledge-operations.js';
import type { UploadStore } from '../files/uploads.js';
import { json, readJsonObject } from '../http.js';
import { batchDownloadFiles, zipDownloadName, zipFiles } from './document-downloads.js';
import { requireDocument } from './documents.js';
import { idParam, type Route } from './route-kit.js';
import { documentsZipSchema, parseOrThrow } from './validation.js';

export function registerDownloadRoutes(route: Route, uploads: UploadStore): void {
  const signedUrl = (url: URL, fileId: string) => `${url.origin}${uploads.signedPreviewPath(fileId)}`;

  // Dify rate-limits this read (`cloud_edition_billing_rate_limit_check`), unlike other GETs.
  route(
    KNOWLEDGE_OPERATIONS.getDocumentDownloadUrl,
    ({ url, params, dataset }) => {
      const document = requireDocument(dataset, idParam(params, 'document_id'));
      return json({ url: `${signedUrl(url, document.upload_file.id)}&as_attachment=true` });
    },
    { rateLimited: true },
  );

  route(KNOWLEDGE_OPERATIONS.downloadDocumentsZip, async ({ request, dataset }) => {
    const body = parseOrThrow(documentsZipSchema, await readJsonObject(request), 'DocumentBatchDownloadZipPayload');
    const zip = zipFiles(batchDownloadFiles(dataset, body.document_ids));
    // Flask's `send_file(as_attachment=True, download_name=…)`.
    return new Response(zip, {
      headers: {
        'Content-Type': 'application/zip',
        'Content-Length': String(zip.byteLength),
        'Content-Disposition': `attachment; filename=${zipDownloadName()}`,
        'Cache-Control': 'no-cache',
      },
    });
  });

  route(KNOWLEDGE_OPERATIONS.getDocumentUploadFile, ({ url, params, dataset }) => {
    const { upload_file: file } = requireDocument(dataset, idParam(params, 'document_id'));
    const link = signedUrl(url, file.id);
    const body = { id: file.id, name: file.name, size: file.size, extension: file.extension, url: link, download_url: `${link}&as_attachment=true`, mime_type: file.mime_type, created_by: file.created_by };
    // `created_at` is `datetime.timestamp()`, a float: `1741267200.0`, which `JSON.stringify` would write as an integer.
    const text = `${JSON.stringify(body).slice(0, -1)},"created_at":${file.created_at.toFixed(1)}}`;
    return new Response(text, { headers: { 'Content-Type': 'application/json' } });
  });
}
