import type { Worker } from 'node:cluster';
import { AggregatorRegistry } from 'prom-client';
import { MemoryRateLimitStore } from '../http/rate-limit.js';
import type { JobLogger } from '../jobs/scheduler.js';
import { answerRateLimitCall } from './ipc-rate-limit-store.js';
import { isMessage, type ToPrimary, type ToWorker } from './ipc.js';

/** How long the primary waits for each worker's metrics: a worker that is stuck is left out, not waited for. */
const COLLECT_TIMEOUT_MS = 3000;

interface Collect {
  waiting: Set<number>;
  results: object[];
  done(): void;
}

/**
 * The primary's side of the IPC channel (cluster/ipc.ts): holds the machine's one rate-limit store,
 * forwards cache invalidations from a worker to the others, and gathers every worker's metrics for
 * GET /metrics. Workers come and go by slot (cluster/primary.ts restarts them).
 */
export class PrimaryHub {
  private readonly store = new MemoryRateLimitStore();
  private readonly workers = new Map<number, Worker>();
  /** Slots whose worker listens: the ones that answer metrics requests. */
  private readonly serving = new Set<number>();
  private readonly collects = new Map<number, Collect>();
  private nextCollect = 1;

  constructor(
    /** The process logger (log/logger.ts). */
    private readonly log: JobLogger,
    private readonly events: { listening(slot: number, port: number): void; fatal(slot: number, message: string): void },
  ) {}

  add(slot: number, worker: Worker): void {
    this.workers.set(slot, worker);
    worker.on('message', (message: unknown) => {
      if (isMessage<ToPrimary>(message)) this.receive(slot, worker, message);
    });
  }

  /** After the worker exited: it is no longer sent anything or waited for. */
  remove(slot: number, worker: Worker): void {
    if (this.workers.get(slot) !== worker) return;
    this.workers.delete(slot);
    this.serving.delete(slot);
    for (const c of this.collects.values()) if (c.waiting.delete(slot) && c.waiting.size === 0) c.done();
  }

  /** Sends to every worker, except the one in slot `except`. */
  broadcast(message: ToWorker, except?: number): void {
    for (const [slot, worker] of this.workers) {
      if (slot !== except && worker.isConnected()) worker.send(message, undefined, {}, () => undefined);
    }
  }

  private reply(worker: Worker, id: number, answer: () => unknown | Promise<unknown>): void {
    const send = (m: ToWorker) => {
      if (worker.isConnected()) worker.send(m, undefined, {}, () => undefined);
    };
    Promise.resolve()
      .then(answer)
      .then(
        (value) => send({ mg: 'reply', id, value }),
        (err: unknown) => send({ mg: 'reply', id, error: err instanceof Error ? err.message : String(err) }),
      );
  }

  private receive(slot: number, worker: Worker, message: ToPrimary): void {
    switch (message.mg) {
      case 'rl':
        return this.reply(worker, message.id, () => answerRateLimitCall(this.store, message.op, message.args));
      case 'inv':
        return this.broadcast({ mg: 'inv', m: message.m }, slot);
      case 'metrics':
        return this.reply(worker, message.id, () => this.collectMetrics());
      case 'metrics-json': {
        const c = this.collects.get(message.id);
        if (!c || !c.waiting.delete(slot)) return;
        if (Array.isArray(message.json)) c.results.push(message.json);
        if (c.waiting.size === 0) c.done();
        return;
      }
      case 'listening':
        this.serving.add(slot);
        return this.events.listening(slot, message.port);
      case 'fatal':
        return this.events.fatal(slot, message.message);
    }
  }

  /** Asks every serving worker for its registry and sums them the way prom-client does for a cluster. */
  private async collectMetrics(): Promise<string> {
    const id = this.nextCollect++;
    const results: object[] = [];
    const waiting = new Set(this.serving);
    await new Promise<void>((resolve) => {
      const timer = setTimeout(() => {
        this.log.warn({ workers: [...waiting] }, 'metrics: some workers did not answer in time; their series are left out');
        done();
      }, COLLECT_TIMEOUT_MS);
      const done = () => {
        clearTimeout(timer);
        this.collects.delete(id);
        resolve();
      };
      this.collects.set(id, { waiting, results, done });
      if (waiting.size === 0) return done();
      for (const slot of waiting) this.workers.get(slot)?.send({ mg: 'metrics-collect', id } satisfies ToWorker, undefined, {}, () => undefined);
    });
    return AggregatorRegistry.aggregate(results).metrics();
  }
}
