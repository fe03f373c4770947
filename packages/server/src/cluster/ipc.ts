/**
 * The messages between the cluster primary and its workers (WORKERS > 1; docs/architecture.md#several-nodes),
 * over node:cluster's IPC channel with the 'advanced' serialization (so Infinity, a rate-limit
 * argument, arrives as sent). Every message carries `mg`, which keeps them apart from anything
 * else a process might send on the channel.
 */

/** What a worker asks the primary and waits for (a `reply` with the same id). */
export type PrimaryRequest =
  /** One RateLimitStore method on the primary's store (cluster/ipc-rate-limit-store.ts). */
  | { mg: 'rl'; op: string; args: unknown[] }
  /** Every worker's metrics, aggregated: the text GET /metrics answers. */
  | { mg: 'metrics' };

/** Worker → primary. */
export type ToPrimary =
  | (PrimaryRequest & { id: number })
  /** This worker's registry (prom-client getMetricsAsJSON), answering a `metrics-collect`. */
  | { mg: 'metrics-json'; id: number; json: unknown }
  /** A cache invalidation (cluster/invalidation.ts) for every other worker, as its JSON text. */
  | { mg: 'inv'; m: string }
  | { mg: 'listening'; port: number }
  /**
   * The worker cannot serve, nor could a new one (the port is taken): the primary logs `message`
   * once and stops every worker with SIGTERM, the way it stops them on its own SIGTERM.
   */
  | { mg: 'fatal'; message: string };

/** Primary → worker. */
export type ToWorker =
  | { mg: 'reply'; id: number; value?: unknown; error?: string }
  | { mg: 'metrics-collect'; id: number }
  | { mg: 'inv'; m: string };

export function isMessage<T extends { mg: string }>(x: unknown): x is T {
  return typeof x === 'object' && x !== null && typeof (x as { mg?: unknown }).mg === 'string';
}

interface Pending {
  resolve(value: unknown): void;
  reject(err: Error): void;
  timer: NodeJS.Timeout;
}

/** The IPC side of a process: `process` in a worker (a narrow type, so a test can pass a fake). */
export interface IpcEndpoint {
  send?(message: unknown, sendHandle?: undefined, options?: object, callback?: (error: Error | null) => void): boolean;
  readonly connected?: boolean;
  on(event: 'message', listener: (message: unknown) => void): unknown;
  once(event: 'disconnect', listener: () => void): unknown;
}

/**
 * A worker's end of the channel: requests with an id and a timeout, one-way messages, and handlers
 * by kind. When the primary goes away every pending request fails at once (the worker stops; see main.ts).
 */
export class PrimaryLink {
  private nextId = 1;
  private readonly pending = new Map<number, Pending>();
  private readonly handlers = new Map<string, (message: ToWorker) => void>();
  private gone = false;

  constructor(
    private readonly endpoint: IpcEndpoint = process,
    private readonly timeoutMs = 10_000,
  ) {
    endpoint.on('message', (message) => {
      if (!isMessage<ToWorker>(message)) return;
      if (message.mg === 'reply') this.settle(message);
      else this.handlers.get(message.mg)?.(message);
    });
    endpoint.once('disconnect', () => this.failAll('the cluster primary is gone'));
  }

  on<K extends ToWorker['mg']>(kind: K, handler: (message: Extract<ToWorker, { mg: K }>) => void): void {
    this.handlers.set(kind, handler as (message: ToWorker) => void);
  }

  /** One-way; resolves once handed to the channel (false when the primary is gone). */
  send(message: ToPrimary): Promise<boolean> {
    return new Promise((resolve) => {
      if (this.gone || !this.endpoint.connected || !this.endpoint.send) return resolve(false);
      this.endpoint.send(message, undefined, {}, (err) => resolve(!err));
    });
  }

  call<T>(request: PrimaryRequest): Promise<T> {
    if (this.gone) return Promise.reject(new Error('the cluster primary is gone'));
    const id = this.nextId++;
    return new Promise<T>((resolve, reject) => {
      const timer = setTimeout(() => {
        this.pending.delete(id);
        reject(new Error(`the cluster primary did not answer ${request.mg} within ${this.timeoutMs} ms`));
      }, this.timeoutMs);
      this.pending.set(id, { resolve: resolve as (value: unknown) => void, reject, timer });
      void this.send({ ...request, id }).then((sent) => {
        if (!sent) this.settle({ mg: 'reply', id, error: 'the cluster primary is gone' });
      });
    });
  }

  private settle(reply: Extract<ToWorker, { mg: 'reply' }>): void {
    const p = this.pending.get(reply.id);
    if (!p) return;
    this.pending.delete(reply.id);
    clearTimeout(p.timer);
    if (reply.error !== undefined) p.reject(new Error(reply.error));
    else p.resolve(reply.value);
  }

  private failAll(reason: string): void {
    this.gone = true;
    for (const id of [...this.pending.keys()]) this.settle({ mg: 'reply', id, error: reason });
  }
}
