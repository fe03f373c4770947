import type { LogEntry, LogStat, Paged, User } from '@modelgate/shared/api';
import { call } from '../../lib/api';

export type { LogEntry, LogStat, Paged };
/** The user behind a log row (admin: clicking a username). */

export interface LogFilters {
  /** Unix seconds. */
  start: number;
  end: number;
  tokenName: string;
  modelName: string;
  username: string;
  channel: string;
  group: string;
  /** 0 = all. */
  type: number;
}

export const logKeys = {
  all: ['logs'] as const,
  list: (admin: boolean, filters: LogFilters, page: number, pageSize: number) =>
    ['logs', 'list', admin, filters, page, pageSize] as const,
  stat: (admin: boolean, filters: LogFilters) => ['logs', 'stat', admin, filters] as const,
  user: (id: number) => ['logs', 'user', id] as const,
};

/** Admins read everyone's log with the username and channel filters; users read their own. */
function filterParams(filters: LogFilters, admin: boolean) {
  const common = {
    type: filters.type,
    token_name: filters.tokenName,
    model_name: filters.modelName,
    start_timestamp: filters.start,
    end_timestamp: filters.end,
  };
  return admin
    ? { ...common, username: filters.username, channel: filters.channel, group: filters.group }
    : { ...common, group: filters.group };
}

/** Paged style: 1-based `p`, `{items,total,page,page_size}`. */
export async function fetchLogs(filters: LogFilters, admin: boolean, page: number, pageSize: number): Promise<Paged<LogEntry>> {
  const query = { p: page, page_size: pageSize, ...filterParams(filters, admin) };
  const data = admin ? await call('GET /api/log/', { query }) : await call('GET /api/log/self', { query, slash: true });
  return {
    items: Array.isArray(data?.items) ? data.items : [],
    total: Number(data?.total) || 0,
    total_capped: data?.total_capped === true,
    page: Number(data?.page) || page,
    page_size: Number(data?.page_size) || pageSize,
  };
}

export async function fetchLogStat(filters: LogFilters, admin: boolean): Promise<LogStat> {
  const query = filterParams(filters, admin);
  const data = admin ? await call('GET /api/log/stat', { query }) : await call('GET /api/log/self/stat', { query });
  return { quota: Number(data?.quota) || 0, rpm: Number(data?.rpm) || 0, tpm: Number(data?.tpm) || 0 };
}

/** Deletes rows older than `timestamp` (unix seconds); failures are reported by the caller. */
export async function clearLogs(timestamp: number): Promise<number> {
  return Number(await call('DELETE /api/log/', { query: { target_timestamp: timestamp }, silent: true })) || 0;
}

export function fetchLogUser(id: number): Promise<User> {
  return call('GET /api/user/:id', { params: { id } });
}
