import type { AuditEntry } from '@modelgate/shared/api';
import type { ApiClient } from './api-client.js';

/** The audit log page for `query` (root's client), as the API answers it. */
export async function auditPage(root: ApiClient, query = ''): Promise<{ items: AuditEntry[]; total: number }> {
  const r = await root.get(`/api/audit/?p=1&size=100${query ? `&${query}` : ''}`);
  if (!r.body.success) throw new Error(`GET /api/audit/ failed: ${r.body.message}`);
  return r.body.data as { items: AuditEntry[]; total: number };
}

/**
 * The newest entry matching `match`: audit rows are written off the request path, so this polls
 * (up to 5 s) until the writer has stored it.
 */
export async function waitForAudit(root: ApiClient, match: (e: AuditEntry) => boolean, query = ''): Promise<AuditEntry> {
  const deadline = Date.now() + 5000;
  for (;;) {
    const found = (await auditPage(root, query)).items.find(match);
    if (found) return found;
    if (Date.now() > deadline) throw new Error(`no audit entry matched (query: ${query || 'none'})`);
    await new Promise((r) => setTimeout(r, 25));
  }
}

/** The changes of an entry as `field → [before, after]`. */
export function changeMap(e: AuditEntry): Record<string, [unknown, unknown]> {
  return Object.fromEntries(e.changes.map((c) => [c.field, [c.before, c.after]]));
}
