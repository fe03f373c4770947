import type { FastifyInstance } from 'fastify';
import type { AppContext } from '../context.js';
import { deleteOlderThan } from '../db/batched-delete.js';

/** The part of the application context this file uses. */
type Deps = Pick<AppContext, 'config' | 'cluster' | 'options' | 'db' | 'logDb'>;

export const AUDIT_RETENTION_EVERY_MS = 6 * 60 * 60_000;
const DAY_SEC = 24 * 3600;

/**
 * Deletes audit log entries older than AuditLogRetentionDays (default 180; 0 keeps them all), in
 * batches (db/batched-delete.ts). Returns how many went. The only way entries leave the log: no
 * API route deletes them.
 */
export async function runAuditRetention(ctx: Pick<Deps, 'options' | 'db'> & Partial<Pick<Deps, 'logDb'>>, signal?: AbortSignal, nowSec = Math.floor(Date.now() / 1000)): Promise<number> {
  const days = ctx.options.num('AuditLogRetentionDays');
  if (!(days > 0)) return 0;
  return deleteOlderThan(ctx.logDb ?? ctx.db, 'audit_logs', nowSec - Math.floor(days * DAY_SEC), { signal });
}

/** Every six hours on master nodes, one node at a time (a job lock); also once at start-up. */
export function registerAuditRetentionJobs(app: FastifyInstance, ctx: Deps): void {
  if (ctx.config.nodeType !== 'master') return;
  const stop = ctx.cluster.scheduler.every(
    'audit-retention',
    AUDIT_RETENTION_EVERY_MS,
    async (signal) => {
      const n = await runAuditRetention(ctx, signal);
      if (n) app.log.info({ deleted: n, days: ctx.options.num('AuditLogRetentionDays') }, `audit retention deleted ${n} audit log entr${n === 1 ? 'y' : 'ies'}`);
    },
    { runAtStart: true },
  );
  app.addHook('onClose', async () => stop());
}
