import type { AsyncTaskView } from '@modelgate/shared/api';
import { call } from '../../lib/api';

export type { AsyncTaskView };

/** The async list's filters; times are epoch seconds, 0 = none (sent as the reference's `NaN`). */
export interface TaskFilters {
  start: number;
  end: number;
  channel: string;
  taskId: string;
}

export const TASK_PAGE_SIZE = 10;

export const taskKeys = {
  list: (admin: boolean, filters: TaskFilters, page: number) => ['tasks', admin, filters, page] as const,
};

export async function fetchTasks(admin: boolean, f: TaskFilters, page: number): Promise<AsyncTaskView[]> {
  const common = { p: page, task_id: f.taskId, start_timestamp: f.start ? String(f.start) : '', end_timestamp: f.end ? String(f.end) : 'NaN' };
  const data = admin
    ? await call('GET /api/task/', { query: { ...common, channel_id: f.channel } })
    : await call('GET /api/task/self', { query: common });
  return Array.isArray(data) ? data : [];
}
