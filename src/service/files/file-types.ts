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
