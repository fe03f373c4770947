import type { FastifyInstance } from 'fastify';
import type { AppContext } from '../context.js';

/**
 * Periodic channel tests (CHANNEL_TEST_FREQUENCY minutes) and balance updates
 * (CHANNEL_UPDATE_FREQUENCY minutes), on the master node only; 0 turns a job off. A run that is
 * still going when the next is due is skipped, never doubled.
 */
export function registerChannelMonitorJobs(app: FastifyInstance, ctx: AppContext): void {
  if (ctx.config.nodeType !== 'master') return;
  const timers: NodeJS.Timeout[] = [];
  const every = (minutes: number, fn: () => Promise<unknown>) => {
    if (minutes <= 0) return;
    const t = setInterval(() => {
      fn().catch((err: unknown) => app.log.error({ err }, 'channel monitor job failed'));
    }, minutes * 60_000);
    t.unref();
    timers.push(t);
  };
  every(ctx.config.channelTestFrequencyMin, async () => {
    if (!ctx.channelOps.testRunning) ctx.channelOps.startTestAll();
  });
  every(ctx.config.channelUpdateFrequencyMin, () => ctx.channelOps.updateAllBalances());
  app.addHook('onClose', async () => {
    for (const t of timers) clearInterval(t);
  });
}
