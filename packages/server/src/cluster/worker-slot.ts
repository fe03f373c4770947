import cluster from 'node:cluster';

/** The variable the cluster primary gives each worker it forks: the worker's slot, 0 … WORKERS − 1. */
export const WORKER_SLOT_ENV = 'MODELGATE_WORKER_SLOT';

/**
 * This process's slot when it is a worker of the cluster primary (cluster/primary.ts), else
 * undefined (one process: WORKERS=1, a test, a CLI). A slot keeps its number across restarts.
 */
export function workerSlot(): number | undefined {
  if (!cluster.isWorker) return undefined;
  const raw = process.env[WORKER_SLOT_ENV];
  const slot = raw === undefined ? NaN : Number(raw);
  return Number.isInteger(slot) && slot >= 0 ? slot : undefined;
}
