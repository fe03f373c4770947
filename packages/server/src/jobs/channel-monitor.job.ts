import type { FastifyInstance } from 'fastify';
import type { AppContext } from '../context.js';

/** The part of the application context this file uses. */
type Deps = Pick<AppContext, 'channelOps' | 'cluster' | 'config'>;

/**
 * Periodic channel tests (CHANNEL_TEST_FREQUENCY minutes) and balance updates
 * (CHANNEL_UPDATE_FREQUENCY minutes) on master nodes; 0 turns a job off. Each runs under its job
 * lock, so with several masters one node runs it per period; a failure is logged with the job
 * name and node id and retried on the next tick. A run still going when the next is due is
 * skipped, never doubled.
 */
export function registerChannelMonitorJobs(app: FastifyInstance, ctx: Deps): void {
  if (ctx.config.nodeType !== 'master') return;
  const scheduler = ctx.cluster.scheduler;
  const stops: Array<() => void> = [];
  const testMs = Math.round(ctx.config.channelTestFrequencyMin * 60_000);
  const balanceMs = Math.round(ctx.config.channelUpdateFrequencyMin * 60_000);
  if (testMs > 0) stops.push(scheduler.every('channel-test-all', testMs, () => ctx.channelOps.runTestAll()));
  if (balanceMs > 0) stops.push(scheduler.every('channel-balances', balanceMs, () => ctx.channelOps.updateAllBalances()));
  app.addHook('onClose', async () => {
    for (const stop of stops) stop();
  });
}
