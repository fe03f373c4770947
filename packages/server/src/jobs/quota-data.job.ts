import type { FastifyInstance } from 'fastify';
import type { AppContext } from '../context.js';
import { HOUR_SEC, QuotaDataRepository, hourOf } from '../modules/data/quota-data.repository.js';

/** The part of the application context this file uses. */
type Deps = Pick<AppContext, 'config' | 'cluster' | 'options' | 'db' | 'logDb'>;

/** How often the job looks whether DataExportInterval has passed (the interval may change at run time). */
export const QUOTA_DATA_TICK_MS = 15_000;
const LAST_RUN_KEY = 'job:quota-data:last-run';

/**
 * Exports consumption into quota_data (reference §3.8), hour by hour from the newest exported hour
 * (recomputed, with the one before it, since a log row can land a moment after its hour was
 * read) up to the current hour. Hours without consume rows are skipped in one query each gap.
 * Returns how many rows it wrote. Off while DataExportEnabled is off. Yields to the event loop
 * after each hour (the first run on 10 000 000 log rows took 50 s of queries on SQLite).
 */
export async function runQuotaDataExport(ctx: Pick<Deps, 'options' | 'db'> & Partial<Pick<Deps, 'logDb'>>, signal?: AbortSignal, nowSec = Math.floor(Date.now() / 1000)): Promise<number> {
  if (!ctx.options.bool('DataExportEnabled')) return 0;
  // The hourly figures live beside the usage log they sum (LOG_SQL_DSN's database, else the main one).
  const repo = new QuotaDataRepository(ctx.logDb ?? ctx.db);
  const newest = await repo.newestHour();
  let hour: number | undefined = newest === undefined ? await repo.nextLogHour(0) : newest - HOUR_SEC;
  const last = hourOf(nowSec);
  let written = 0;
  while (hour !== undefined && hour <= last && !signal?.aborted) {
    written += await repo.exportHour(hour);
    hour = await repo.nextLogHour(hour + HOUR_SEC);
    // Back to the event loop between hours: SQLite's queries run synchronously, so the first
    // export over a large log (months of hours) would otherwise hold every request until it ends.
    await new Promise((resolve) => setImmediate(resolve));
  }
  return written;
}

/**
 * On master nodes, under the job's lock (one node at a time); a run happens when
 * DataExportInterval minutes (at least 1) have passed since the last one on any node, which the
 * shared store remembers. Also once at start-up.
 */
export function registerQuotaDataJobs(app: FastifyInstance, ctx: Deps): void {
  if (ctx.config.nodeType !== 'master') return;
  const stop = ctx.cluster.scheduler.every(
    'quota-data',
    QUOTA_DATA_TICK_MS,
    async (signal) => {
      if (!ctx.options.bool('DataExportEnabled')) return;
      const everyMs = Math.max(1, ctx.options.num('DataExportInterval')) * 60_000;
      // The last run's time, not a lease of the interval's length: a shortened interval applies at
      // once. Read and written under the job's lock, so two nodes never both run. A little under the
      // interval, so tick jitter never skips a whole period.
      const last = Number((await ctx.cluster.store.get(LAST_RUN_KEY)) ?? 0);
      if (Date.now() - last < everyMs - QUOTA_DATA_TICK_MS / 2) return;
      await ctx.cluster.store.set(LAST_RUN_KEY, String(Date.now()), 24 * 3600_000);
      const n = await runQuotaDataExport(ctx, signal);
      if (n) app.log.info({ rows: n }, `quota data export wrote ${n} row(s)`);
    },
    { runAtStart: true },
  );
  app.addHook('onClose', async () => stop());
}
