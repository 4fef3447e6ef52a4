/**
 * The `files` of a run or chat message (dify-wire.md §3.1, §3.2), built like the real service's
 * file factory: only when the app's file upload feature is on (otherwise they are ignored), at most
 * `number_limits` of them, each an upload of the caller's own or a reachable URL, and each allowed
 * by the app's file-upload config. A refusal is a `ValueError` there: 400 `invalid_param`.
 */
import { z } from 'zod';
import type { MessageFile } from '../../protocol/index.js';
import { badParam } from '../errors.js';
import { uuid } from '../ids.js';
import type { FixtureApp } from '../fixture.js';
import { FileRejection, type FileResolver, type SubmittedFile } from '../forms.js';
import { validationError } from '../params.js';

const fileUploadConfig = z.object({
  enabled: z.boolean().default(false),
  allowed_file_types: z.array(z.string()).default([]),
  allowed_file_extensions: z.array(z.string()).default([]),
  allowed_file_upload_methods: z.array(z.string()).default(['local_file', 'remote_url']),
  number_limits: z.number().int().min(0).default(0),
});

export async function resolveRunFiles(app: FixtureApp, files: unknown, user: string, resolve: FileResolver, model: string): Promise<SubmittedFile[]> {
  if (files === undefined || files === null) return [];
  if (!Array.isArray(files)) throw validationError(model, [{ loc: 'files', msg: 'Input should be a valid list' }]);
  const bad = files.findIndex((f) => typeof f !== 'object' || f === null || Array.isArray(f));
  if (bad >= 0) throw validationError(model, [{ loc: `files.${bad}`, msg: 'Input should be a valid dictionary' }]);
  const parsed = fileUploadConfig.safeParse(app.parameters.file_upload);
  if (!parsed.success || !parsed.data.enabled) return [];
  const config = parsed.data;
  if (config.number_limits > 0 && files.length > config.number_limits) {
    throw badParam(`Number of files exceeds the maximum limit ${config.number_limits}`);
  }
  const built: SubmittedFile[] = [];
  for (const mapping of files as Record<string, unknown>[]) {
    let file: SubmittedFile;
    try {
      file = await resolve(mapping, user);
    } catch (error) {
      if (error instanceof FileRejection) throw badParam(error.message);
      throw error;
    }
    if (!allowedByConfig(file, config)) throw badParam(`File validation failed for file: ${file.filename}`);
    built.push(file);
  }
  return built;
}

/** The real `_is_file_valid_with_config`: method, then kind (or a listed extension for `custom`). */
function allowedByConfig(file: SubmittedFile, config: z.output<typeof fileUploadConfig>): boolean {
  if (!config.allowed_file_upload_methods.includes(file.transfer_method)) return false;
  if (config.allowed_file_types.length === 0 || config.allowed_file_types.includes(file.type)) return true;
  const extensions = config.allowed_file_extensions.map((e) => e.toLowerCase());
  return config.allowed_file_types.includes('custom') && extensions.includes(`.${file.extension}`);
}

/** A user's file as a message lists it; an upload links to its signed preview. */
export function userMessageFile(file: SubmittedFile, previewUrl: (uploadId: string) => string): MessageFile {
  return {
    id: uuid(),
    filename: file.filename,
    type: file.type,
    url: file.upload_file_id ? previewUrl(file.upload_file_id) : (file.url ?? ''),
    mime_type: file.mime_type,
    size: file.size,
    transfer_method: file.transfer_method,
    belongs_to: 'user',
    upload_file_id: file.upload_file_id ?? null,
  };
}
