import type { CreateRedemptionBody, Paged, Redemption, UpdateRedemptionBody } from '@modelgate/shared/api';
import { call } from '../../lib/api';

export type { Redemption };

export interface RedemptionQuery {
  keyword: string;
  page: number;
  pageSize: number;
}

export const redemptionKeys = {
  all: ['redemptions'] as const,
  list: (query: RedemptionQuery) => ['redemptions', 'list', query] as const,
  detail: (id: number) => ['redemptions', 'detail', id] as const,
};

/** Paged style (console-api.md §5): 1-based `p`; the search endpoint once a keyword is set. */
export async function fetchRedemptions(query: RedemptionQuery): Promise<Paged<Redemption>> {
  const paging = { p: query.page, page_size: query.pageSize };
  const data = query.keyword
    ? await call('GET /api/redemption/search', { query: { keyword: query.keyword, ...paging } })
    : await call('GET /api/redemption/', { query: paging });
  return {
    items: Array.isArray(data?.items) ? data.items : [],
    total: Number(data?.total) || 0,
    page: Number(data?.page) || query.page,
    page_size: Number(data?.page_size) || query.pageSize,
  };
}

export function fetchRedemption(id: number): Promise<Redemption> {
  return call('GET /api/redemption/:id', { params: { id } });
}

/** Answers the keys of the new codes. */
export async function createRedemptions(body: CreateRedemptionBody): Promise<string[]> {
  const keys = await call('POST /api/redemption/', { body });
  return Array.isArray(keys) ? keys : [];
}

export function updateRedemption(body: UpdateRedemptionBody): Promise<Redemption> {
  return call('PUT /api/redemption/', { body });
}

export function setRedemptionStatus(id: number, status: number): Promise<Redemption> {
  return call('PUT /api/redemption/', { body: { id, status }, query: { status_only: 'true' } });
}

export function deleteRedemption(id: number): Promise<unknown> {
  return call('DELETE /api/redemption/:id', { params: { id }, slash: true });
}

export function deleteInvalidRedemptions(): Promise<number> {
  return call('DELETE /api/redemption/invalid');
}

/** One key per line, as "copy all" puts them on the clipboard. */
export function keysText(keys: readonly string[]): string {
  return keys.join('\n');
}

/**
 * The created codes as CSV (name, key), one row per code. The name is quoted, and one starting
 * with = + - @ gets a leading apostrophe so a spreadsheet shows it instead of running it.
 */
export function keysCsv(name: string, keys: readonly string[]): string {
  const safe = /^[=+\-@]/.test(name) ? `'${name}` : name;
  const quoted = `"${safe.replaceAll('"', '""')}"`;
  return ['name,key', ...keys.map((key) => `${quoted},${key}`)].join('\r\n');
}
