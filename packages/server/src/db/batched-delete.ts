import type { Db } from './client.js';

/** Rows per delete statement when clearing old history. */
export const DELETE_BATCH = 2000;

/** History tables and the time column their age is read from. */
const AGE_COLUMN = { logs: 'created_at', midjourneys: 'submit_time', tasks: 'submit_time', audit_logs: 'created_at' } as const;
type HistoryTable = keyof typeof AGE_COLUMN;

/**
 * Deletes the rows of `table` older than `before` (Unix seconds; only those in `statuses` when
 * given) in batches of `batch` by primary key, yielding between batches: one statement over
 * millions of rows would hold its locks (and, on SQLite, the only writer slot) for as long as it
 * runs and stall every relay settle meanwhile. `signal` stops it between batches.
 */
export async function deleteOlderThan(
  handle: Db,
  table: HistoryTable,
  before: number,
  opts: { statuses?: readonly string[]; batch?: number; signal?: AbortSignal } = {},
): Promise<number> {
  const batch = opts.batch ?? DELETE_BATCH;
  const column = AGE_COLUMN[table];
  let total = 0;
  for (;;) {
    let q = handle.db.selectFrom(table).select('id').where(column, '<', before);
    if (opts.statuses) q = q.where('status', 'in', [...opts.statuses]);
    const ids = (await q.orderBy('id').limit(batch).execute()).map((r) => r.id);
    if (!ids.length) break;
    // The age condition again: on a partitioned table it limits the delete to the old partitions.
    const res = await handle.db.deleteFrom(table).where('id', 'in', ids).where(column, '<', before).executeTakeFirst();
    total += Number(res.numDeletedRows);
    if (ids.length < batch || opts.signal?.aborted) break;
    await new Promise((resolve) => setImmediate(resolve));
  }
  return total;
}
