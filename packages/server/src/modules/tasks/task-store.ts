import { LogType } from '@modelgate/shared';
import type { Selectable } from 'kysely';
import type { AppContext } from '../../context.js';
import type { TasksTable } from '../../db/schema.js';
import { recordLog } from '../logs/log-writer.js';

export type TaskRow = Selectable<TasksTable>;
type Deps = Pick<AppContext, 'db' | 'quotaLedger'>;

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

const text = (v: unknown): string => (typeof v === 'string' ? v : '');
const int = (v: unknown, fallback: number): number => (typeof v === 'number' && Number.isSafeInteger(v) && v > 0 ? v : fallback);

/**
 * Applies an upstream task (a Suno-API fetch item): the non-empty status, fail reason and times
 * are copied and `data` replaced. A failure ends at 100 % and refunds the user once (the ledger's
 * unique (kind, ref), in the row's transaction), like the drawing tasks (mj-store.ts).
 */
export async function applyTaskUpdate(ctx: Deps, stored: TaskRow, item: Record<string, unknown>): Promise<{ changed: boolean; refunded: boolean }> {
  // Rows of older versions may hold NULL text columns.
  const row = { ...stored, status: stored.status ?? '', fail_reason: stored.fail_reason ?? '', progress: stored.progress ?? '', data: stored.data ?? '' };
  const next = {
    status: text(item.status) || row.status,
    fail_reason: text(item.fail_reason) || row.fail_reason,
    submit_time: int(item.submit_time, Number(row.submit_time)),
    start_time: int(item.start_time, Number(row.start_time)),
    finish_time: int(item.finish_time, Number(row.finish_time)),
    data: item.data === undefined ? row.data : JSON.stringify(item.data),
    progress: row.progress,
  };
  const failed = next.status === 'FAILURE' || next.fail_reason !== '';
  if (failed) {
    next.status = 'FAILURE';
    next.progress = '100%';
  } else if (next.status === 'SUCCESS') next.progress = '100%';
  const changed = (Object.keys(next) as Array<keyof typeof next>).some((k) => String(next[k]) !== String(row[k]));
  if (!changed) return { changed: false, refunded: false };
  return ctx.db.db.transaction().execute(async (trx) => {
    const r = await trx
      .updateTable('tasks')
      .set({ ...next, updated_at: Math.floor(Date.now() / 1000) })
      .where('id', '=', row.id)
      .where('progress', '!=', '100%')
      .executeTakeFirst();
    if (Number(r.numUpdatedRows) === 0) return { changed: false, refunded: false };
    const quota = Number(row.quota);
    if (!failed || quota <= 0) return { changed: true, refunded: false };
    const moved = await ctx.quotaLedger.move({ kind: 'refund', userId: Number(row.user_id), quota, used: -quota, ref: `task:${row.id}` }, trx);
    if (moved !== 'applied') return { changed: true, refunded: false };
    await recordLog(ctx.db, { userId: Number(row.user_id), type: LogType.System, content: `异步任务执行失败 ${row.task_id}，补偿 ${quota}`, quota }, trx);
    return { changed: true, refunded: true };
  });
}
