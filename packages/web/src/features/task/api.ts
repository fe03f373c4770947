import type { AsyncTaskView } from '@modelgate/shared/api';
import { call, postPg } from '../../lib/api';

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

/** What the console sends to make a video (the unified shape; `group` is the playground's). */
export interface VideoSubmit {
  model: string;
  prompt: string;
  duration?: number;
  size?: string;
  image?: string;
}

/** The submit's answer: the gateway's task id. */
export interface VideoSubmitted {
  id: string;
  task_id: string;
  status: string;
}

/** The error a video submit answered: the task shape's `{code, message}` or an OpenAI error object. */
function submitError(status: number, text: string): string {
  try {
    const body = JSON.parse(text) as { message?: unknown; error?: { message?: unknown } };
    const message = typeof body.message === 'string' ? body.message : body.error?.message;
    if (typeof message === 'string' && message) return message;
  } catch {
    // not JSON
  }
  return `HTTP ${status}`;
}

/**
 * `POST /pg/video/generations`: a video task billed to the signed-in user, with the console's
 * session (the answer is the task shape, not the `/api` envelope). Rejects with the server's words.
 */
export async function submitVideo(body: VideoSubmit): Promise<VideoSubmitted> {
  const response = await postPg('/pg/video/generations', body);
  const text = await response.text();
  if (!response.ok) throw new Error(submitError(response.status, text));
  return JSON.parse(text) as VideoSubmitted;
}
