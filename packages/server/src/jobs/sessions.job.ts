import type { FastifyInstance } from 'fastify';
import type { AppContext } from '../context.js';

/** The part of the application context this file uses. */
type Deps = Pick<AppContext, 'config' | 'sessions'>;

/** Hourly is plenty: a record is refused once expired whether or not it has been deleted yet. */
export const SESSION_CLEANUP_EVERY_MS = 60 * 60_000;

/**
 * Deletes expired session records, on the master node only (every node shares the database, so
 * one sweeper is enough). Reading an expired session also deletes it; this catches the ones never
 * presented again.
 */
export function registerSessionJobs(app: FastifyInstance, ctx: Deps): void {
  if (ctx.config.nodeType !== 'master') return;
  const timer = setInterval(() => {
    ctx.sessions.deleteExpired().catch((err: unknown) => app.log.error({ err }, 'session cleanup failed'));
  }, SESSION_CLEANUP_EVERY_MS);
  timer.unref();
  app.addHook('onClose', async () => clearInterval(timer));
}
