import type { FastifyInstance } from 'fastify';
import type { AppContext } from '../context.js';
import { deleteOlderThan } from '../db/batched-delete.js';
import { dropLogPartitionsBefore } from '../db/log-partitions.js';

/** The part of the application context this file uses. */
type Deps = Pick<AppContext, 'config' | 'cluster' | 'options' | 'db' | 'logDb'>;

export const LOG_RETENTION_EVERY_MS = 60 * 60_000;
const DAY_SEC = 24 * 3600;

/** Task states after which a row is history (an unfinished task may still be refunded). */
const FINISHED = ['SUCCESS', 'FAILURE'] as const;

/**
 * Deletes usage logs, and finished Midjourney and async task rows, older than LogRetentionDays
 * (0: keep everything). Returns how many rows went. Where the usage log is partitioned by time
 * (db/log-partitions.ts) the partitions entirely older than the cut-off are dropped first (constant
 * time; their rows are counted from the database's statistics), then the rest of the boundary
 * period goes by the batched delete (db/batched-delete.ts), which keeps the relay settling while
 * it runs — as it does for the whole table where there are no partitions.
 */
export async function runLogRetention(ctx: Pick<Deps, 'options' | 'db'> & Partial<Pick<Deps, 'logDb'>>, signal?: AbortSignal, nowSec = Math.floor(Date.now() / 1000)): Promise<number> {
  const days = ctx.options.num('LogRetentionDays');
  if (!(days > 0)) return 0;
  const before = nowSec - Math.floor(days * DAY_SEC);
  // The usage log is in LOG_SQL_DSN's database when that is set; the task tables stay in the main one.
  const logs = ctx.logDb ?? ctx.db;
  let n = logs.kind === 'sqlite' ? 0 : (await dropLogPartitionsBefore(logs, before)).rows;
  n += await deleteOlderThan(logs, 'logs', before, { signal });
  for (const table of ['midjourneys', 'tasks'] as const) {
    if (signal?.aborted) break;
    n += await deleteOlderThan(ctx.db, table, before, { statuses: FINISHED, signal });
  }
  return n;
}

/** Hourly, on master nodes, one node at a time (a job lock); also once at start-up. */
export function registerLogRetentionJobs(app: FastifyInstance, ctx: Deps): void {
  if (ctx.config.nodeType !== 'master') return;
  const stop = ctx.cluster.scheduler.every(
    'log-retention',
    LOG_RETENTION_EVERY_MS,
    async (signal) => {
      const n = await runLogRetention(ctx, signal);
      if (n) app.log.info({ deleted: n, days: ctx.options.num('LogRetentionDays') }, `log retention deleted ${n} usage log row(s)`);
    },
    { runAtStart: true },
  );
  app.addHook('onClose', async () => stop());
}
