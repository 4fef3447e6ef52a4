/**
 * Fetching a `remote_url` file at submit time, as the real service probes one: a HEAD request
 * (a GET when the server refuses HEAD) with a timeout, taking name, type and size from the answer.
 * QA can make every fetch fail to script rejected submissions.
 */
import { extensionOf } from './file-types.js';

export interface RemoteFileInfo {
  url: string;
  filename: string;
  extension: string;
  mimeType: string;
  size: number;
}

/** A fetch that failed; its message becomes the reason of the rejected input. */
export class RemoteFetchError extends Error {}

export interface RemoteFetchOptions {
  timeoutMs: number;
  /** QA: answer every fetch with a failure. */
  failAll: () => boolean;
}

export async function probeRemoteFile(url: string, options: RemoteFetchOptions): Promise<RemoteFileInfo> {
  if (options.failAll()) throw new RemoteFetchError(`Failed to fetch remote file ${url}: fetching is disabled by the QA controls`);
  let response: Response;
  try {
    response = await fetch(url, { method: 'HEAD', redirect: 'follow', signal: AbortSignal.timeout(options.timeoutMs) });
    if (response.status === 405 || response.status === 501) {
      response = await fetch(url, { method: 'GET', redirect: 'follow', signal: AbortSignal.timeout(options.timeoutMs) });
      await response.body?.cancel();
    }
  } catch (error) {
    const reason = (error as Error).name === 'TimeoutError' ? `no answer within ${options.timeoutMs} ms` : describe(error);
    throw new RemoteFetchError(`Failed to fetch remote file ${url}: ${reason}`);
  }
  if (!response.ok) throw new RemoteFetchError(`Failed to fetch remote file ${url}: HTTP ${response.status}`);
  const filename = filenameOf(response.headers.get('content-disposition')) ?? decodeURIComponent(new URL(response.url || url).pathname.split('/').pop() ?? '') ?? '';
  const mimeType = (response.headers.get('content-type') ?? '').split(';')[0]!.trim();
  return { url, filename, extension: extensionOf(filename), mimeType, size: Number(response.headers.get('content-length') ?? -1) };
}

function filenameOf(disposition: string | null): string | undefined {
  const match = disposition && /filename\*?=(?:UTF-8'')?"?([^";]+)"?/i.exec(disposition);
  return match ? decodeURIComponent(match[1]!) : undefined;
}

function describe(error: unknown): string {
  const cause = (error as { cause?: { code?: string; message?: string } }).cause;
  return cause?.code ?? cause?.message ?? (error as Error).message;
}
