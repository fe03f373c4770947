import type { FastifyInstance } from 'fastify';
import type { AppContext } from '../context.js';
import { TASK_ADAPTERS } from '../relay/adapters/task-registry.js';
import { schedulePolls, TaskPoller } from '../relay/tasks/task-poller.js';

type Deps = Pick<AppContext, 'cluster' | 'config' | 'db' | 'relay' | 'quotaLedger'>;

/**
 * The task pollers (providers-china-and-tasks §8.4, §9.3), one per registered kind: on whichever
 * node holds that kind's job lock, every TASK_POLL_INTERVAL_MS. UPDATE_TASK=false turns them off
 * on a node (the reference's switch).
 */
export function registerTaskPollJobs(app: FastifyInstance, ctx: Deps): void {
  if (!ctx.config.updateTask) return;
  const pollers = TASK_ADAPTERS.map((kind) => new TaskPoller(ctx, kind));
  let stop: (() => void) | undefined;
  app.addHook('onReady', async () => {
    stop = schedulePolls(ctx.cluster.scheduler, pollers, ctx.config.taskPollIntervalMs);
  });
  app.addHook('onClose', async () => {
    stop?.();
  });
}
