import { api } from '../../lib/api';

/** A usage-log row (console-api.md §5 `/log`, G4): `channel` is the channel id; `other` a JSON string. */
export interface LogEntry {
  id: number;
  created_at: number;
  /** 1 top-up, 2 consumption, 3 admin, 4 system. */
  type: number;
  content: string;
  username: string;
  user_id: number;
  token_name: string;
  model_name: string;
  quota: number;
  prompt_tokens: number;
  completion_tokens: number;
  /** Seconds. */
  use_time: number;
  is_stream: boolean;
  channel: number;
  group: string;
  other: string;
  [key: string]: unknown;
}

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

export interface Paged<T> {
  items: T[];
  total: number;
  page: number;
  page_size: number;
}

export interface LogStat {
  quota: number;
  rpm: number;
  tpm: number;
}

export interface LogUser {
  id: number;
  username: string;
  display_name?: string;
  email?: string;
  group?: string;
  quota?: number;
  used_quota?: number;
  request_count?: number;
  aff_count?: number;
  aff_history_quota?: number;
  inviter_id?: number;
  [key: string]: unknown;
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
  const data = await api.get<Paged<LogEntry>>(admin ? '/api/log/' : '/api/log/self/', {
    p: page,
    page_size: pageSize,
    ...filterParams(filters, admin),
  });
  return {
    items: Array.isArray(data?.items) ? data.items : [],
    total: Number(data?.total) || 0,
    page: Number(data?.page) || page,
    page_size: Number(data?.page_size) || pageSize,
  };
}

export async function fetchLogStat(filters: LogFilters, admin: boolean): Promise<LogStat> {
  const data = await api.get<LogStat>(admin ? '/api/log/stat' : '/api/log/self/stat', filterParams(filters, admin));
  return { quota: Number(data?.quota) || 0, rpm: Number(data?.rpm) || 0, tpm: Number(data?.tpm) || 0 };
}

/** Deletes rows older than `timestamp` (unix seconds); failures are reported by the caller. */
export async function clearLogs(timestamp: number): Promise<number> {
  return Number(await api.delete<number>('/api/log/', { params: { target_timestamp: timestamp }, silent: true })) || 0;
}

export function fetchLogUser(id: number): Promise<LogUser> {
  return api.get<LogUser>(`/api/user/${id}`);
}
