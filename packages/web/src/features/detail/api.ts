import type { QuotaDataEntry, SelfUser } from '@modelgate/shared/api';
import { call } from '../../lib/api';
import type { Granularity } from './aggregate';

export type { QuotaDataEntry };

export interface DataQuery {
  /** Unix seconds. */
  start: number;
  end: number;
  /** Admins: one user's usage, or everyone's when empty. */
  username: string;
  granularity: Granularity;
}

export const detailKeys = {
  data: (admin: boolean, q: DataQuery) => ['data', admin, q.start, q.end, q.username] as const,
  self: ['user', 'self'] as const,
};

/** Admins read `/api/data/` (every user, or a username); users `/api/data/self` (console-api.md §5 `/detail`). */
export async function fetchData(admin: boolean, q: DataQuery): Promise<QuotaDataEntry[]> {
  const common = { start_timestamp: q.start, end_timestamp: q.end, default_time: q.granularity };
  const rows = admin ? await call('GET /api/data/', { query: { ...common, username: q.username } }) : await call('GET /api/data/self', { query: common });
  return Array.isArray(rows) ? rows : [];
}

export function fetchSelf(): Promise<SelfUser> {
  return call('GET /api/user/self');
}
