import type { Redis } from 'ioredis';
import { collectDefaultMetrics, Counter, Gauge, Histogram, Registry } from 'prom-client';
import type { Db } from '../db/client.js';
import type { JobObserver } from '../jobs/scheduler.js';
import type { Ledger } from '../ledger/ledger.js';
import type { RelayObserver } from '../relay/relay-observer.js';

const LATENCY_BUCKETS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120];

/**
 * The Prometheus metrics of one process (docs/operations.md#metrics), in a registry of its own so
 * several servers in one process (tests) do not share counters. Label values come from channels,
 * configured models and route patterns, never from what a caller typed: a refused request is
 * counted by route and status only, so a client cannot create series at will.
 */
export class Metrics implements RelayObserver, JobObserver {
  readonly registry = new Registry();
  private readonly requests: Counter<'route' | 'model' | 'channel' | 'outcome'>;
  private readonly refusals: Counter<'route' | 'status'>;
  private readonly upstreamLatency: Histogram<'channel'>;
  private readonly firstByte: Histogram<'channel'>;
  private readonly duration: Histogram<'route'>;
  private readonly tokens: Counter<'model' | 'kind'>;
  private readonly quota: Counter<'model'>;
  private readonly upstreamErrors: Counter<'channel' | 'status'>;
  private readonly retries: Counter<'channel'>;
  private readonly autoDisabled: Counter<'channel'>;
  private readonly openStreams: Gauge;
  private readonly jobRuns: Counter<'job' | 'outcome'>;
  private readonly jobDuration: Histogram<'job'>;
  private readonly http: Counter<'method' | 'route' | 'status'>;
  /** This worker's series of modelgate_worker_requests_total (cluster workers only). */
  private readonly workerRequests: { inc(): void } | undefined;
  /**
   * In a cluster worker (cluster/worker.ts): the text of every worker's metrics, aggregated by the
   * primary, which `text()` answers instead of this process's alone.
   */
  aggregate: (() => Promise<string>) | undefined;

  /** `worker`: this process's slot when it is one of several workers (cluster/worker-slot.ts). */
  constructor(deps: { db: Db; redis: Redis | null; ledger: () => Pick<Ledger, 'openCount' | 'outage'>; worker?: number }) {
    const registers = [this.registry];
    collectDefaultMetrics({ register: this.registry, prefix: 'modelgate_' });
    this.requests = new Counter({ name: 'modelgate_relay_requests_total', help: 'Relayed requests that reached a channel, by outcome (success: billed; error: every channel tried failed).', labelNames: ['route', 'model', 'channel', 'outcome'], registers });
    this.refusals = new Counter({ name: 'modelgate_relay_refused_total', help: 'Relay requests refused before any channel was tried (auth, quota, validation, no channel).', labelNames: ['route', 'status'], registers });
    this.upstreamLatency = new Histogram({ name: 'modelgate_upstream_latency_seconds', help: 'Time from sending a request upstream to its response headers.', labelNames: ['channel'], buckets: LATENCY_BUCKETS, registers });
    this.firstByte = new Histogram({ name: 'modelgate_relay_first_byte_seconds', help: 'Streams: time from the request arriving to the first event sent to the client.', labelNames: ['channel'], buckets: LATENCY_BUCKETS, registers });
    this.duration = new Histogram({ name: 'modelgate_relay_duration_seconds', help: 'Billed relay requests: time from arrival to settlement.', labelNames: ['route'], buckets: LATENCY_BUCKETS, registers });
    this.tokens = new Counter({ name: 'modelgate_relay_tokens_total', help: 'Tokens billed, by model and kind (prompt, completion).', labelNames: ['model', 'kind'], registers });
    this.quota = new Counter({ name: 'modelgate_relay_quota_charged_total', help: 'Quota charged, by model.', labelNames: ['model'], registers });
    this.upstreamErrors = new Counter({ name: 'modelgate_upstream_errors_total', help: 'Failed attempts on a channel, by the status answered for them.', labelNames: ['channel', 'status'], registers });
    this.retries = new Counter({ name: 'modelgate_relay_retries_total', help: 'Requests moved on to another channel after a failed attempt, by the channel that failed.', labelNames: ['channel'], registers });
    this.autoDisabled = new Counter({ name: 'modelgate_channel_auto_disabled_total', help: 'Channels switched off automatically after an upstream failure.', labelNames: ['channel'], registers });
    this.openStreams = new Gauge({ name: 'modelgate_relay_open_streams', help: 'Streams to clients open right now.', registers });
    this.jobRuns = new Counter({ name: 'modelgate_job_runs_total', help: 'Periodic job runs on this node, by outcome (ok, failed).', labelNames: ['job', 'outcome'], registers });
    this.jobDuration = new Histogram({ name: 'modelgate_job_duration_seconds', help: 'Periodic job run time on this node.', labelNames: ['job'], buckets: [0.01, 0.1, 1, 10, 60, 600], registers });
    this.http = new Counter({ name: 'modelgate_http_requests_total', help: 'Answered HTTP requests outside the relay streams, by route pattern and status.', labelNames: ['method', 'route', 'status'], registers });
    if (deps.worker !== undefined) {
      // The one series that stays per worker once the primary sums the workers' metrics: how evenly
      // the kernel hands connections to the workers (cluster/primary.ts leaves that to it).
      const counter = new Counter({ name: 'modelgate_worker_requests_total', help: 'Requests received, by worker process (WORKERS > 1).', labelNames: ['worker'], registers });
      this.workerRequests = counter.labels({ worker: String(deps.worker) });
      counter.inc({ worker: String(deps.worker) }, 0);
    }
    new Gauge({
      name: 'modelgate_ledger_reservations_open',
      help: 'Reservations this node holds (requests in flight that have not settled).',
      registers,
      collect() {
        this.set(deps.ledger().openCount);
      },
    });
    new Gauge({
      name: 'modelgate_database_outage',
      help: 'The ledger cannot reach the database and serves from the caches (1) or can (0) (docs/reliability.md#database-outage).',
      registers,
      collect() {
        this.set(deps.ledger().outage?.active ? 1 : 0);
      },
    });
    new Gauge({
      name: 'modelgate_ledger_spooled_entries',
      help: "Settlements and releases in this node's outage spool, waiting for the database.",
      registers,
      collect() {
        this.set(deps.ledger().outage?.spool.size ?? 0);
      },
    });
    const pool = deps.db.poolStats;
    if (pool) {
      new Gauge({
        name: 'modelgate_db_pool_connections',
        help: 'Database pool connections by state (total, idle) and requests waiting for one.',
        labelNames: ['state'],
        registers,
        collect() {
          const s = pool();
          this.set({ state: 'total' }, s.total);
          this.set({ state: 'idle' }, s.idle);
          this.set({ state: 'waiting' }, s.waiting);
        },
      });
    }
    const redis = deps.redis;
    if (redis) {
      new Gauge({
        name: 'modelgate_redis_up',
        help: '1 while the Redis connection is ready, else 0.',
        registers,
        // Summed over workers this would count them (WORKERS > 1): 1 only while every worker's is ready.
        aggregator: 'min',
        collect() {
          this.set(redis.status === 'ready' ? 1 : 0);
        },
      });
    }
  }

  text(): Promise<string> {
    return this.aggregate ? this.aggregate() : this.registry.metrics();
  }

  /** Whether requests are counted per worker (`requestReceived`): only in a cluster worker. */
  get perWorker(): boolean {
    return this.workerRequests !== undefined;
  }

  requestReceived(): void {
    this.workerRequests?.inc();
  }

  get contentType(): string {
    return this.registry.contentType;
  }

  httpAnswered(method: string, route: string, status: number): void {
    this.http.inc({ method, route, status: String(status) });
  }

  // RelayObserver
  upstreamAnswered(e: { channel: number; status: number; ms: number }): void {
    this.upstreamLatency.observe({ channel: String(e.channel) }, e.ms / 1000);
  }
  attemptFailed(e: { channel: number; status: number }): void {
    this.upstreamErrors.inc({ channel: String(e.channel), status: String(e.status) });
  }
  retried(e: { fromChannel: number }): void {
    this.retries.inc({ channel: String(e.fromChannel) });
  }
  streamOpened(): void {
    this.openStreams.inc();
  }
  streamClosed(): void {
    this.openStreams.dec();
  }
  settled(e: { route: string; model: string; channel: number; promptTokens: number; completionTokens: number; quota: number; durationMs: number; firstByteMs: number }): void {
    const channel = String(e.channel);
    this.requests.inc({ route: e.route, model: e.model, channel, outcome: 'success' });
    this.tokens.inc({ model: e.model, kind: 'prompt' }, e.promptTokens);
    this.tokens.inc({ model: e.model, kind: 'completion' }, e.completionTokens);
    this.quota.inc({ model: e.model }, e.quota);
    this.duration.observe({ route: e.route }, e.durationMs / 1000);
    if (e.firstByteMs > 0) this.firstByte.observe({ channel }, e.firstByteMs / 1000);
  }
  failed(e: { route: string; model: string; channel: number }): void {
    this.requests.inc({ route: e.route, model: e.model, channel: String(e.channel), outcome: 'error' });
  }
  refused(e: { route: string; status: number }): void {
    this.refusals.inc({ route: e.route, status: String(e.status) });
  }
  channelAutoDisabled(channel: number): void {
    this.autoDisabled.inc({ channel: String(channel) });
  }

  // JobObserver
  jobRan(job: string, ok: boolean, ms: number): void {
    this.jobRuns.inc({ job, outcome: ok ? 'ok' : 'failed' });
    this.jobDuration.observe({ job }, ms / 1000);
  }
}
