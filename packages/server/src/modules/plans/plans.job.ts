import type { FastifyInstance } from 'fastify';
import type { AppContext } from '../../context.js';
import { nowSec } from '../../http/reply.js';

/** The part of the application context this file uses. */
type Deps = Pick<AppContext, 'cluster' | 'plans' | 'plansRepo'>;

const EXPIRY_EVERY_MS = 60_000;
const PRUNE_EVERY_MS = 6 * 3600_000;
/** Older than any running period: a month is the longest window. */
const CHARGE_KEEP_SEC = 35 * 86_400;

/**
 * Subscriptions at their end are renewed or ended once a minute, and window charges older than
 * any running period are pruned; one node at a time runs each (a job lock).
 */
export function registerPlanJobs(app: FastifyInstance, ctx: Deps): void {
  const stops: Array<() => void> = [];
  app.addHook('onReady', async () => {
    stops.push(
      ctx.cluster.scheduler.every('plan-expiry', EXPIRY_EVERY_MS, async () => {
        const r = await ctx.plans.expireDue();
        if (r.renewed || r.expired) app.log.info(r, 'subscriptions at their end renewed or ended');
      }),
    );
    stops.push(ctx.cluster.scheduler.every('window-charge-prune', PRUNE_EVERY_MS, () => ctx.plansRepo.pruneCharges(nowSec() - CHARGE_KEEP_SEC)));
  });
  app.addHook('onClose', async () => {
    for (const stop of stops) stop();
  });
}
