import type { AuditEntry, Paged } from '@modelgate/shared/api';
import { call } from '../../lib/api';

export type { AuditEntry };

export interface AuditFilters {
  /** Unix seconds; 0 = open. */
  start: number;
  end: number;
  /** A username or a user id. */
  actor: string;
  /** An action (`user.promote`), a family (`user`) or '' for all. */
  action: string;
  targetType: string;
  target: string;
  /** '' all, '1' successes, '0' failures. */
  result: '' | '0' | '1';
}

export const EMPTY_AUDIT_FILTERS: AuditFilters = { start: 0, end: 0, actor: '', action: '', targetType: '', target: '', result: '' };

export const auditKeys = {
  all: ['audit'] as const,
  list: (filters: AuditFilters, page: number, pageSize: number) => ['audit', 'list', filters, page, pageSize] as const,
};

/** Paged like the log list: 1-based `p`, newest first. */
export async function fetchAudit(filters: AuditFilters, page: number, pageSize: number): Promise<Paged<AuditEntry>> {
  const data = await call('GET /api/audit/', {
    query: {
      p: page,
      size: pageSize,
      actor: filters.actor,
      action: filters.action,
      target_type: filters.targetType,
      target: filters.target,
      success: filters.result,
      start_timestamp: filters.start || '',
      end_timestamp: filters.end || '',
    },
    // The screen shows its own error state.
    silent: true,
  });
  return {
    items: Array.isArray(data?.items) ? data.items : [],
    total: Number(data?.total) || 0,
    page: Number(data?.page) || page,
    page_size: Number(data?.page_size) || pageSize,
  };
}
