/** File kinds as the real service classifies them: by extension (the table in protocol), then by MIME type. */
import { fileKindOf, MIME_TYPES, type FileType } from '../../protocol/index.js';

/** Extensions refused at upload whatever the app allows (the real service's configurable blacklist). */
export const BLOCKED_EXTENSIONS: ReadonlySet<string> = new Set(['exe', 'bat', 'cmd', 'com', 'scr', 'msi', 'dll', 'sh', 'ps1', 'vbs', 'jar']);

/** `report.PDF` → `pdf`; no dot → ``. */
export function extensionOf(name: string): string {
  const base = name.split(/[/\\]/).pop() ?? '';
  const dot = base.lastIndexOf('.');
  return dot > 0 ? base.slice(dot + 1).toLowerCase() : '';
}

/**
 * The name `FileService.upload_file` stores: over 200 characters (code points, as Python counts),
 * what comes before the first dot, cut to 200, and the extension (`a.b.c…` becomes `a….c`).
 */
export function storedFileName(filename: string): string {
  if ([...filename].length <= 200) return filename;
  return [...filename.split('.')[0]!].slice(0, 200).join('') + '.' + extensionOf(filename);
}

export function fileTypeOf(extension: string, mimeType = ''): FileType {
  const kind = fileKindOf(extension);
  if (kind !== 'custom') return kind;
  const major = mimeType.split('/')[0];
  if (major === 'image' || major === 'audio' || major === 'video') return major;
  if (mimeType.startsWith('text/') || mimeType === 'application/pdf') return 'document';
  return 'custom';
}

export function mimeTypeOf(extension: string): string | undefined {
  return MIME_TYPES[extension];
}
