import type { Selectable } from 'kysely';
import type { TasksTable } from '../../db/schema.js';
import type { TaskStore } from '../../relay/adapters/task-types.js';

export type TaskRow = Selectable<TasksTable>;

function parse(s: string): unknown {
  try {
    return s ? (JSON.parse(s) as unknown) : null;
  } catch {
    return null;
  }
}

/** A stored async task as `/suno/fetch` answers it (providers-china-and-tasks §9.3). */
export function taskJson(r: TaskRow): Record<string, unknown> {
  return {
    task_id: r.task_id,
    action: r.action ?? '',
    status: r.status ?? '',
    fail_reason: r.fail_reason ?? '',
    submit_time: Number(r.submit_time),
    start_time: Number(r.start_time),
    finish_time: Number(r.finish_time),
    progress: r.progress ?? '',
    data: parse(r.data ?? ''),
  };
}

/** The columns an upstream's word can move in the `tasks` table. */
export interface TaskPatch {
  status: string;
  fail_reason: string;
  submit_time: number;
  start_time: number;
  finish_time: number;
  progress: string;
  data: string;
}

/**
 * The async tasks' table as the task framework sees it (relay/tasks/): one table for every kind
 * but the drawing tasks, each kind reading its own `platform` (times in seconds).
 */
export function tasksTableStore(platform: string): TaskStore<TaskRow, TaskPatch> {
  return {
    loadOpen: (db, limit) => db.db.selectFrom('tasks').selectAll().where('platform', '=', platform).where('progress', '!=', '100%').orderBy('id').limit(limit).execute(),
    ref: (r) => ({
      id: Number(r.id),
      userId: Number(r.user_id),
      channelId: Number(r.channel_id),
      upstreamId: r.task_id ?? '',
      quota: Number(r.quota),
      submittedAtMs: Number(r.submit_time) * 1000,
      failReason: r.fail_reason ?? '',
      requestId: r.request_id ?? '',
    }),
    async writeIfOpen(trx, row, patch) {
      const r = await trx
        .updateTable('tasks')
        .set({ ...patch, updated_at: Math.floor(Date.now() / 1000) })
        .where('id', '=', row.id)
        .where('progress', '!=', '100%')
        .executeTakeFirst();
      return Number(r.numUpdatedRows) > 0;
    },
  };
}
