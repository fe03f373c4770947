import type { FastifyInstance } from 'fastify';
import type { AppContext } from '../context.js';
import { ensureLogPartitions, listLogPartitions } from '../db/log-partitions.js';

/** The part of the application context this file uses. */
type Deps = Pick<AppContext, 'config' | 'cluster' | 'db' | 'logDb'>;

/** Hourly: a day partition is made a week before it is needed, so a missed run or two costs nothing. */
export const LOG_PARTITIONS_EVERY_MS = 60 * 60_000;

/**
 * Makes the usage log's partitions ahead (db/log-partitions.ts) in the database the log lives in
 * (LOG_SQL_DSN's, else the main one); returns the partitions made. Nothing on SQLite, with
 * LOG_PARTITION=off, or while `logs` is still a plain table (`npm run logs:partition` converts it).
 */
export function runLogPartitions(ctx: Pick<Deps, 'config' | 'logDb'>, nowSec = Math.floor(Date.now() / 1000)): Promise<string[]> {
  return ensureLogPartitions(ctx.logDb, ctx.config.logPartition, nowSec);
}

/** On master nodes, one node at a time (a job lock); also once at start-up. */
export function registerLogPartitionJobs(app: FastifyInstance, ctx: Deps): void {
  if (ctx.config.nodeType !== 'master' || ctx.logDb.kind === 'sqlite' || ctx.config.logPartition === 'off') return;
  let told = false;
  const stop = ctx.cluster.scheduler.every(
    'log-partitions',
    LOG_PARTITIONS_EVERY_MS,
    async () => {
      if (!told && !(await listLogPartitions(ctx.logDb))) {
        told = true;
        app.log.warn('the usage log is a plain table, not partitioned by time: retention deletes in batches; `npm run logs:partition` converts it (docs/deployment.md#time-partitions-of-the-usage-log)');
        return;
      }
      const made = await runLogPartitions(ctx);
      if (made.length) app.log.info({ partitions: made }, `made ${made.length} usage log partition(s) ahead`);
    },
    { runAtStart: true },
  );
  app.addHook('onClose', async () => stop());
}
