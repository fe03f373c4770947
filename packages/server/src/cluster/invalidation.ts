import type { Redis } from 'ioredis';
import type { JobLogger } from '../jobs/scheduler.js';

/** What changed: the matching in-memory entry is dropped (or re-read) on every node. */
export type Invalidation =
  | { t: 'token'; id: number }
  | { t: 'user'; id: number }
  | { t: 'channels' }
  | { t: 'option'; key: string }
  /** A channel ejected by a node's circuit breaker until `until` (ms), or restored (relay/circuit-breaker.ts). */
  | { t: 'eject'; id: number; until: number }
  | { t: 'restore'; id: number };

export interface InvalidationTarget {
  apply(m: Invalidation): void;
  /** Drops every cached entry: after a gap in which messages may have been missed. */
  resync(): void;
  /** The subscriber is down (true) or back (false): while down, caches keep entries only briefly. */
  degraded?(on: boolean): void;
}

function parse(raw: string): Invalidation | undefined {
  try {
    const m = JSON.parse(raw) as Partial<Record<string, unknown>>;
    if ((m.t === 'token' || m.t === 'user') && Number.isInteger(m.id)) return { t: m.t, id: m.id as number };
    if (m.t === 'channels') return { t: 'channels' };
    if (m.t === 'option' && typeof m.key === 'string') return { t: 'option', key: m.key };
    if (m.t === 'eject' && Number.isInteger(m.id) && Number.isFinite(m.until)) return { t: 'eject', id: m.id as number, until: m.until as number };
    if (m.t === 'restore' && Number.isInteger(m.id)) return { t: 'restore', id: m.id as number };
  } catch {
    // A message from a newer or foreign publisher: ignored.
  }
  return undefined;
}

/**
 * Cache invalidation across nodes over Redis pub/sub (docs/architecture.md#several-nodes). `publish` applies the change
 * on this node at once and sends it to every node (this one included: applying twice is harmless).
 * The subscriber is a second connection; ioredis reconnects and re-subscribes it after an outage,
 * and because messages sent meanwhile are lost, every cache is dropped on each reconnect. Nodes
 * sharing a Redis database (the `/N` of the URL) form one cluster: pub/sub itself ignores the
 * database number, so the channel name carries it. Without Redis only the local apply happens and
 * other nodes converge by their cache TTL (SYNC_FREQUENCY) — except the workers of one machine
 * (WORKERS > 1), which pass every message on over IPC through their primary (`useWorkerPeers`).
 */
export class InvalidationBus {
  private subscriber: Redis | null = null;
  private readonly channel: string;
  private connectedOnce = false;
  /** Without Redis, in a cluster worker: hands a message to the primary for the other workers (cluster/worker.ts). */
  private toPeers: ((raw: string) => void) | undefined;

  constructor(
    private readonly target: InvalidationTarget,
    private readonly redis: Redis | null,
    private readonly log: JobLogger,
    readonly connectionName = 'modelgate-invalidation',
  ) {
    this.channel = `modelgate:invalidate:${redis?.options.db ?? 0}`;
  }

  get shared(): boolean {
    return this.redis !== null;
  }

  /** Without Redis: the other workers of this machine get every message published here, through `send`. */
  useWorkerPeers(send: (raw: string) => void): void {
    this.toPeers = send;
  }

  publish(m: Invalidation): void {
    this.target.apply(m);
    if (!this.redis) {
      this.toPeers?.(JSON.stringify(m));
      return;
    }
    this.redis.publish(this.channel, JSON.stringify(m)).catch((err: unknown) => {
      this.log.error({ err, message: m }, 'cache invalidation could not be published; other nodes catch up within SYNC_FREQUENCY');
    });
  }

  /** Subscribes (Redis only); resolves once subscribed. */
  async start(): Promise<void> {
    if (!this.redis || this.subscriber) return;
    // Named, so an operator (or a test) can find this node's subscriber in CLIENT LIST.
    const sub = this.redis.duplicate({ lazyConnect: true, enableOfflineQueue: true, maxRetriesPerRequest: null, connectionName: this.connectionName });
    this.subscriber = sub;
    sub.on('message', (channel: string, raw: string) => {
      if (channel === this.channel) this.receive(raw);
    });
    sub.on('ready', () => {
      if (!this.connectedOnce) {
        this.connectedOnce = true;
        return;
      }
      this.log.warn({ channel: this.channel }, 'cache invalidation channel reconnected; dropping every cache');
      this.target.degraded?.(false);
      this.target.resync();
      // 'ready' fires before ioredis re-sends SUBSCRIBE; a PING queued after it answers once the
      // subscription is live, closing the gap in which a write's message could still be missed.
      setImmediate(() => {
        sub.ping().then(
          () => this.target.resync(),
          () => undefined,
        );
      });
    });
    // Messages sent while the subscriber is away are lost: caches expire quickly until it is back.
    sub.on('close', () => {
      if (this.connectedOnce && this.subscriber === sub) this.target.degraded?.(true);
    });
    // ioredis logs an unhandled 'error' event loudly; reconnection is automatic.
    sub.on('error', (err: unknown) => this.log.warn({ err }, 'cache invalidation subscriber error'));
    await sub.connect();
    await sub.subscribe(this.channel);
  }

  /** A message another node (Redis) or worker (IPC) published; one that does not parse is ignored. */
  receive(raw: string): void {
    const m = parse(raw);
    if (m) this.target.apply(m);
  }

  async close(): Promise<void> {
    const sub = this.subscriber;
    this.subscriber = null;
    if (sub) sub.disconnect();
  }
}
