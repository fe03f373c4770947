import cluster from 'node:cluster';
import type { AppContext } from '../context.js';
import { IpcRateLimitStore } from './ipc-rate-limit-store.js';
import { PrimaryLink } from './ipc.js';

/**
 * Joins a cluster worker to its primary (cluster/primary.ts) before the app is built. Without Redis,
 * what the workers of one machine must share goes over IPC: the rate-limit store (one store on the
 * primary) and cache invalidations (forwarded by the primary to every other worker). With Redis the
 * workers share it like separate nodes. Either way GET /metrics answers for every worker.
 */
export function joinPrimary(ctx: Pick<AppContext, 'cluster' | 'metrics' | 'rateLimitStore'>): PrimaryLink {
  const link = new PrimaryLink();
  if (!ctx.cluster.redis) {
    ctx.rateLimitStore = new IpcRateLimitStore(link);
    ctx.cluster.bus.useWorkerPeers((m) => void link.send({ mg: 'inv', m }));
  }
  // Validated like a Redis message: whatever arrives on the channel is parsed before it is applied.
  link.on('inv', (message) => ctx.cluster.bus.receive(message.m));
  ctx.metrics.aggregate = () => link.call<string>({ mg: 'metrics' });
  link.on('metrics-collect', (message) => {
    void ctx.metrics.registry.getMetricsAsJSON().then((json) => link.send({ mg: 'metrics-json', id: message.id, json }));
  });
  return link;
}

/**
 * Runs `stop` when the primary goes away, even killed outright (its end of the IPC channel closes).
 * node:cluster would exit the worker on the spot, cutting the requests in flight: right after
 * emitting the worker's 'disconnect' it exits unless `exitedAfterDisconnect` is set
 * (lib/internal/cluster/child.js), so marking the disconnect as expected lets the graceful stop run.
 */
export function onPrimaryGone(stop: () => void): void {
  const worker = cluster.worker;
  worker?.once('disconnect', () => {
    worker.exitedAfterDisconnect = true;
    stop();
  });
}
