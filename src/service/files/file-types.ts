/** File kinds as the real service classifies them: by extension, then by MIME type. */
import type { FileType } from '../../protocol/index.js';

const BY_TYPE: Record<Exclude<FileType, 'custom'>, readonly string[]> = {
  image: ['jpg', 'jpeg', 'png', 'webp', 'gif', 'svg'],
  video: ['mp4', 'mov', 'mpeg', 'webm'],
  audio: ['mp3', 'm4a', 'wav', 'amr', 'mpga'],
  document: ['txt', 'markdown', 'md', 'mdx', 'pdf', 'html', 'htm', 'xlsx', 'xls', 'vtt', 'properties', 'doc', 'docx', 'csv', 'eml', 'msg', 'pptx', 'xml', 'epub', 'ppt'],
};

const MIME: Record<string, string> = {
  jpg: 'image/jpeg', jpeg: 'image/jpeg', png: 'image/png', webp: 'image/webp', gif: 'image/gif', svg: 'image/svg+xml',
  mp4: 'video/mp4', mov: 'video/quicktime', mpeg: 'video/mpeg', webm: 'video/webm',
  mp3: 'audio/mpeg', m4a: 'audio/mp4', wav: 'audio/wav', amr: 'audio/amr', mpga: 'audio/mpeg',
  txt: 'text/plain', markdown: 'text/markdown', md: 'text/markdown', mdx: 'text/markdown', pdf: 'application/pdf',
  html: 'text/html', htm: 'text/html', csv: 'text/csv', xml: 'text/xml', json: 'application/json',
  docx: 'application/vnd.openxmlformats-officedocument.wordprocessingml.document', doc: 'application/msword',
  xlsx: 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet', xls: 'application/vnd.ms-excel',
  pptx: 'application/vnd.openxmlformats-officedocument.presentationml.presentation', ppt: 'application/vnd.ms-powerpoint',
  epub: 'application/epub+zip', eml: 'message/rfc822',
};

/** Extensions refused at upload whatever the app allows (the real service's configurable blacklist). */
export const BLOCKED_EXTENSIONS: ReadonlySet<string> = new Set(['exe', 'bat', 'cmd', 'com', 'scr', 'msi', 'dll', 'sh', 'ps1', 'vbs', 'jar']);

/** `report.PDF` → `pdf`; no dot → ``. */
export function extensionOf(name: string): string {
  const base = name.split(/[/\\]/).pop() ?? '';
  const dot = base.lastIndexOf('.');
  return dot > 0 ? base.slice(dot + 1).toLowerCase() : '';
}

export function fileTypeOf(extension: string, mimeType = ''): FileType {
  for (const [type, extensions] of Object.entries(BY_TYPE)) {
    if (extensions.includes(extension)) return type as FileType;
  }
  const major = mimeType.split('/')[0];
  if (major === 'image' || major === 'audio' || major === 'video') return major;
  if (mimeType.startsWith('text/') || mimeType === 'application/pdf') return 'document';
  return 'custom';
}

export function mimeTypeOf(extension: string): string | undefined {
  return MIME[extension];
}
