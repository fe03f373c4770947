/** Success envelope for `/api` (console-api.md §4). */
export function ok<T>(data?: T, message = ''): { success: true; message: string; data?: T } {
  return data === undefined ? { success: true, message } : { success: true, message, data };
}

/** `p` from 1 for the paged style; the console's first request sends p=0, read as page 1. */
export function pageParams(q: { p?: unknown; page_size?: unknown }, defaultSize = 10, maxSize = 100) {
  const page = Math.max(1, Number.parseInt(String(q.p ?? '1'), 10) || 1);
  const rawSize = Number.parseInt(String(q.page_size ?? ''), 10);
  const pageSize = Math.min(maxSize, rawSize > 0 ? rawSize : defaultSize);
  return { page, pageSize, offset: (page - 1) * pageSize };
}

/** `p` from 0 for the list style (channels, tokens, tasks). */
export function listParams(q: { p?: unknown; size?: unknown; page_size?: unknown }, defaultSize = 10, maxSize = 100) {
  const page = Math.max(0, Number.parseInt(String(q.p ?? '0'), 10) || 0);
  const rawSize = Number.parseInt(String(q.size ?? q.page_size ?? ''), 10);
  const size = Math.min(maxSize, rawSize > 0 ? rawSize : defaultSize);
  return { page, size, offset: page * size };
}

export function nowSec(): number {
  return Math.floor(Date.now() / 1000);
}
