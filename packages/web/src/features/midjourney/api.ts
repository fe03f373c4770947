import type { MjTaskView } from '@modelgate/shared/api';
import { call } from '../../lib/api';

export type { MjTaskView };

/** The drawing list's filters; times are epoch milliseconds (G9). */
export interface MjFilters {
  start: number;
  end: number;
  channel: string;
  mjId: string;
}

/** Page size fixed at 10 (console-api.md §5). */
export const MJ_PAGE_SIZE = 10;

export const mjKeys = {
  list: (admin: boolean, filters: MjFilters, page: number) => ['midjourney', admin, filters, page] as const,
};

/** Admins read every task (with the channel filter), users their own; every filter is sent, empty ones included. */
export async function fetchMjTasks(admin: boolean, f: MjFilters, page: number): Promise<MjTaskView[]> {
  const common = { p: page, mj_id: f.mjId, start_timestamp: f.start ? String(f.start) : '', end_timestamp: f.end ? String(f.end) : '' };
  const data = admin
    ? await call('GET /api/mj/', { query: { ...common, channel_id: f.channel } })
    : await call('GET /api/mj/self/', { query: common });
  return Array.isArray(data) ? data : [];
}
