import type { FastifyInstance } from 'fastify';
import type { AppContext } from '../context.js';
import { MjPoller } from '../modules/tasks/mj-poller.js';
import { SunoPoller } from '../modules/tasks/suno-poller.js';

type Deps = Pick<AppContext, 'cluster' | 'config' | 'db' | 'relay' | 'quotaLedger'>;

/**
 * The task pollers (providers-china-and-tasks §8.4, §9.3): on whichever node holds the job's lock,
 * every TASK_POLL_INTERVAL_MS. UPDATE_TASK=false turns them off on a node (the reference's switch).
 */
export function registerTaskPollJobs(app: FastifyInstance, ctx: Deps): void {
  if (!ctx.config.updateTask) return;
  const mj = new MjPoller(ctx);
  const suno = new SunoPoller(ctx);
  const stops: Array<() => void> = [];
  app.addHook('onReady', async () => {
    stops.push(ctx.cluster.scheduler.every('mj-task-poll', ctx.config.taskPollIntervalMs, (signal) => mj.runOnce(signal)));
    stops.push(ctx.cluster.scheduler.every('suno-task-poll', ctx.config.taskPollIntervalMs, (signal) => suno.runOnce(signal)));
  });
  app.addHook('onClose', async () => {
    for (const stop of stops) stop();
  });
}
