import { ChannelType } from '@modelgate/shared';
import { tasksTableStore, type TaskPatch, type TaskRow } from '../../../modules/tasks/task-store.js';
import { finalState, jsonTaskCall, patchChanges } from '../../tasks/task-wire.js';
import type { TaskAdapter, TaskStep } from '../task-types.js';

// Suno-API takes the channel key as a Bearer secret (providers-china-and-tasks §9.1).
const send = jsonTaskCall((key) => ({ authorization: `Bearer ${key}` }));

const text = (v: unknown): string => (typeof v === 'string' ? v : '');
const int = (v: unknown, fallback: number): number => (typeof v === 'number' && Number.isSafeInteger(v) && v > 0 ? v : fallback);

/**
 * A Suno-API fetch item applied to a stored row (§9.3): the non-empty status, fail reason and
 * times are copied and `data` replaced. FAILURE or any fail reason ends at 100 %, as does SUCCESS.
 */
function sunoStep(stored: TaskRow, item: Record<string, unknown>): TaskStep<TaskPatch> | null {
  // Rows of older versions may hold NULL text columns.
  const row = { ...stored, status: stored.status ?? '', fail_reason: stored.fail_reason ?? '', progress: stored.progress ?? '', data: stored.data ?? '' };
  const next: TaskPatch = {
    status: text(item.status) || row.status,
    fail_reason: text(item.fail_reason) || row.fail_reason,
    submit_time: int(item.submit_time, Number(row.submit_time)),
    start_time: int(item.start_time, Number(row.start_time)),
    finish_time: int(item.finish_time, Number(row.finish_time)),
    data: item.data === undefined ? row.data : JSON.stringify(item.data),
    progress: row.progress,
  };
  const state = finalState(next, next.status === 'FAILURE' || next.fail_reason !== '');
  return patchChanges(next, row) ? { patch: next, state } : null;
}

/** Unpriced Suno actions (§9.2). */
const DEFAULT_PRICE: Record<string, number> = { suno_music: 0.1, suno_lyrics: 0.01 };

/** Suno API: `{code, message, data}` replies; tasks live in `tasks` (platform suno); the poller reads `POST /suno/fetch`. */
export const sunoTaskAdapter: TaskAdapter<TaskRow, TaskPatch> = {
  slug: 'suno',
  contract: 2,
  types: [ChannelType.SunoAPI],
  platform: 'suno',
  jobName: 'suno-task-poll',
  call: send,
  async fetchMany(target, ids, timeoutMs) {
    try {
      const r = await send(target, 'POST', '/suno/fetch', { ids }, timeoutMs);
      const env = r.json as { code?: unknown; data?: unknown } | null;
      return r.status === 200 && env?.code === 'success' && Array.isArray(env.data) ? (env.data as unknown[]) : null;
    } catch {
      return null;
    }
  },
  itemId: (item) => (typeof item.task_id === 'string' ? item.task_id : null),
  stateOf: (item) => (item.status === 'SUCCESS' ? 'success' : item.status === 'FAILURE' || text(item.fail_reason) !== '' ? 'failure' : 'pending'),
  step: sunoStep,
  failure: (reason) => ({ status: 'FAILURE', fail_reason: reason }),
  store: tasksTableStore('suno'),
  timeout: { ms: 60 * 60 * 1000, reason: 'upstream task timed out (over 1 hour)' },
  price: { model: (action) => `suno_${action.toLowerCase()}`, defaultUsd: (model) => DEFAULT_PRICE[model] ?? 0.1 },
  refund: { ref: 'task', log: (taskId, quota) => `异步任务执行失败 ${taskId}，补偿 ${quota}` },
};
