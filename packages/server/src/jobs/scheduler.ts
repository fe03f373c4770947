import type { JobLocks } from '../cluster/job-locks.js';

/** The subset of pino's logger (Fastify's `app.log`) the scheduler writes to. */
export interface JobLogger {
  debug(obj: object, msg: string): void;
  info(obj: object, msg: string): void;
  warn(obj: object, msg: string): void;
  error(obj: object, msg: string): void;
}

/** Told about every periodic run this node made (metrics). */
export interface JobObserver {
  jobRan(job: string, ok: boolean, ms: number): void;
}

export type RunResult<T> = { ran: true; value: T } | { ran: false };

export interface ExclusiveOptions {
  /**
   * Keep the lock after a successful run (it then expires by itself): `every` uses this so a job
   * runs at most once per period across all nodes. Default: release at the end.
   */
  keep?: boolean;
}

export interface PeriodicOptions {
  /** Also run once right after the job is registered (default: first run after one period). */
  runAtStart?: boolean;
}

/**
 * Background jobs that run on one node at a time (docs/architecture.md#several-nodes). `runExclusive` runs a function
 * under a named lock, renewing the lock while the function runs; `every` runs a function
 * periodically under its lock, logs a failure with the job name and node id, and retries on the
 * next tick. The lock of a periodic job is kept for one period after a successful run, so the node
 * that ran it keeps the job (its own next tick re-acquires first) and another node takes over
 * only when that node stops ticking.
 */
export class Scheduler {
  private readonly timers = new Set<NodeJS.Timeout>();
  private readonly running = new Set<string>();
  /** Runs in progress, so `stop()` can wait for them before the database closes. */
  private readonly inProgress = new Set<Promise<void>>();
  private stopped = false;

  constructor(
    readonly locks: JobLocks,
    readonly nodeId: string,
    private readonly log: JobLogger,
  ) {}

  /** Set once metrics exist (create-context.ts). */
  observer: JobObserver | undefined;

  /**
   * Runs `fn` if this node gets the lock `name` (held `ttlMs`, renewed every ttlMs/3 while `fn`
   * runs); `{ran:false}` when another node holds it. The signal aborts when the lock is lost (a
   * renewal found another owner), so a long job can stop early. Errors from `fn` are rethrown
   * after the lock is released.
   */
  async runExclusive<T>(name: string, ttlMs: number, fn: (signal: AbortSignal) => Promise<T>, opts: ExclusiveOptions = {}): Promise<RunResult<T>> {
    if (!(await this.locks.acquire(name, ttlMs))) return { ran: false };
    const lost = new AbortController();
    const renew = setInterval(
      () => {
        this.locks.extend(name, ttlMs).then(
          (held) => {
            if (held || lost.signal.aborted) return;
            this.log.warn({ job: name, node: this.nodeId }, `job ${name} lost its lock to another node`);
            lost.abort(new Error(`lock ${name} lost`));
          },
          (err: unknown) => this.log.warn({ err, job: name, node: this.nodeId }, `job ${name} could not renew its lock`),
        );
      },
      Math.max(50, Math.floor(ttlMs / 3)),
    );
    renew.unref();
    let ok = false;
    try {
      const value = await fn(lost.signal);
      ok = true;
      return { ran: true, value };
    } finally {
      clearInterval(renew);
      if (!ok || !opts.keep) {
        await this.locks.release(name).catch((err: unknown) => this.log.warn({ err, job: name, node: this.nodeId }, `job ${name} could not release its lock`));
      }
    }
  }

  /**
   * Runs `fn` every `everyMs` on whichever node holds the job's lock; returns a stop function.
   * A tick while this node's previous run is still going is skipped, never doubled.
   */
  every(name: string, everyMs: number, fn: (signal: AbortSignal) => Promise<unknown>, opts: PeriodicOptions = {}): () => void {
    // A little over one period, so the owner's next tick always finds its own lease still valid.
    const ttlMs = everyMs + Math.min(Math.max(Math.floor(everyMs / 10), 100), 30_000);
    const tick = () => {
      const run = this.tick(name, ttlMs, fn);
      this.inProgress.add(run);
      void run.finally(() => this.inProgress.delete(run));
    };
    const timer = setInterval(tick, everyMs);
    timer.unref();
    this.timers.add(timer);
    if (opts.runAtStart) setImmediate(tick);
    return () => {
      clearInterval(timer);
      this.timers.delete(timer);
    };
  }

  /** One periodic run; never throws. Exposed for tests and for callers that drive their own timer. */
  async tick(name: string, ttlMs: number, fn: (signal: AbortSignal) => Promise<unknown>): Promise<void> {
    if (this.stopped || this.running.has(name)) return;
    this.running.add(name);
    const started = Date.now();
    try {
      const r = await this.runExclusive(name, ttlMs, fn, { keep: true });
      if (r.ran) {
        // Routine (hundreds of lines an hour at info); a job that changed something says so itself, failures are errors.
        this.log.debug({ job: name, node: this.nodeId, ms: Date.now() - started }, `job ${name} finished`);
        this.observer?.jobRan(name, true, Date.now() - started);
      }
    } catch (err) {
      this.log.error({ err, job: name, node: this.nodeId }, `job ${name} failed; retrying on the next tick`);
      this.observer?.jobRan(name, false, Date.now() - started);
    } finally {
      this.running.delete(name);
    }
  }

  /** No new runs; resolves once the runs in progress have ended (they never throw). */
  async stop(): Promise<void> {
    this.stopped = true;
    for (const t of this.timers) clearInterval(t);
    this.timers.clear();
    await Promise.all(this.inProgress);
  }
}
