/**
 * Paging of the knowledge base and document lists as Dify does it: the query's `page` and `limit`
 * are plain ints (`DatasetListQuery`, `DocumentListQuery`: no bounds), handed to flask-sqlalchemy's
 * `paginate(max_per_page=100, error_out=False)`, which caps the limit at 100 and then reads a page
 * below 1 as 1 and a limit below 1 as 20 rather than refusing them. The answer echoes what was
 * asked, and its `has_more` is `len(items) == limit` against the asked limit.
 */
import { intParam } from './validation.js';

/** Most items a page holds (`max_per_page=100`). */
export const MAX_LIMIT = 100;

export interface Paging {
  /** As asked, and echoed. */
  page: number;
  limit: number;
  /** The page served and its size. */
  servedPage: number;
  perPage: number;
}

export function listPaging(url: URL): Paging {
  const page = intParam(url, 'page', 1, Number.MIN_SAFE_INTEGER);
  const limit = intParam(url, 'limit', 20, Number.MIN_SAFE_INTEGER);
  const capped = Math.min(limit, MAX_LIMIT);
  return { page, limit, servedPage: page < 1 ? 1 : page, perPage: capped < 1 ? 20 : capped };
}

/** The page's items and the page fields of the answer. */
export function pageOf<T>(list: readonly T[], paging: Paging): { items: T[]; has_more: boolean; limit: number; total: number; page: number } {
  const { servedPage, perPage } = paging;
  const items = list.slice((servedPage - 1) * perPage, servedPage * perPage);
  return { items, has_more: items.length === paging.limit, limit: paging.limit, total: list.length, page: paging.page };
}
