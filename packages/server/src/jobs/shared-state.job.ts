import type { FastifyInstance } from 'fastify';
import type { AppContext } from '../context.js';

/** The part of the application context this file uses. */
type Deps = Pick<AppContext, 'cluster'>;

const CLEANUP_EVERY_MS = 5 * 60_000;

/**
 * Without Redis, expired codes and OAuth states stay in `shared_state` until read; one node
 * (whichever holds the job lock) deletes the rest every few minutes. Redis expires keys itself.
 */
export function registerSharedStateJobs(app: FastifyInstance, ctx: Deps): void {
  if (ctx.cluster.redis) return;
  const stop = ctx.cluster.scheduler.every('shared-state-cleanup', CLEANUP_EVERY_MS, () => ctx.cluster.store.cleanup());
  app.addHook('onClose', async () => stop());
}
