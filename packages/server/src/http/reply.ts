import { PAGE_MAX, PAGE_SIZE_MAX } from '@modelgate/shared';
import { queryInt } from './validate.js';

/** Success envelope for `/api` (console-api.md §4): the message is empty, like the reference's. */
export function ok(): { success: true; message: '' };
export function ok<T>(data: T): { success: true; message: ''; data: T };
export function ok<T>(data?: T): { success: true; message: ''; data?: T } {
  return data === undefined ? { success: true, message: '' } : { success: true, message: '', data };
}

/**
 * Page number and size from the query. Garbage and pages beyond PAGE_MAX are refused (a huge page
 * is a huge OFFSET, and beyond BIGINT a database error); a negative page or a size outside
 * 1..maxSize falls back to the nearest sensible value like the reference.
 */
function pageAndSize(q: Record<string, unknown>, sizeKey: 'page_size' | 'size', defaultSize: number, maxSize: number) {
  const p = queryInt(q, 'p', -PAGE_MAX, PAGE_MAX);
  const rawSize = queryInt(q, sizeKey, Number.MIN_SAFE_INTEGER, Number.MAX_SAFE_INTEGER);
  const size = Math.min(Math.min(maxSize, PAGE_SIZE_MAX), rawSize !== undefined && rawSize > 0 ? rawSize : defaultSize);
  return { p, size };
}

/** `p` from 1 for the paged style; the console's first request sends p=0, read as page 1. */
export function pageParams(q: Record<string, unknown>, defaultSize = 10, maxSize = PAGE_SIZE_MAX) {
  const { p, size } = pageAndSize(q, 'page_size', defaultSize, maxSize);
  const page = Math.max(1, p ?? 1);
  return { page, pageSize: size, offset: (page - 1) * size };
}

/** `p` from 0 for the list style (channels, tokens, tasks). */
export function listParams(q: Record<string, unknown>, defaultSize = 10, maxSize = PAGE_SIZE_MAX) {
  const { p, size } = pageAndSize(q, q.size !== undefined && q.size !== '' ? 'size' : 'page_size', defaultSize, maxSize);
  const page = Math.max(0, p ?? 0);
  return { page, size, offset: page * size };
}

export function nowSec(): number {
  return Math.floor(Date.now() / 1000);
}
