import type { Redis } from 'ioredis';
import type { Logger } from '../log/logger.js';
import { MemoryRateLimitStore, type RateLimitStore } from './rate-limit.js';
import { RedisRateLimitStore } from './redis-rate-limit.js';

/**
 * The rate-limit store of a node with Redis (issue 38 item 3): the shared Redis counters while
 * Redis answers, this node's own counters while it does not, so no request fails because Redis is
 * down. A command is not even tried while the connection is not ready (no wait on a dead socket);
 * one that fails or times out (`commandTimeout`, connectRedis) is answered from the local store.
 * During an outage each node enforces a limit on its own traffic (at most nodes × the limit in
 * total); when Redis is back the shared counters take over again (their windows restart).
 */
export class ResilientRateLimitStore implements RateLimitStore {
  private readonly local = new MemoryRateLimitStore();
  private readonly shared: RedisRateLimitStore;
  private degraded = false;

  constructor(
    private readonly redis: Redis,
    private readonly log?: Pick<Logger, 'warn' | 'info'>,
  ) {
    this.shared = new RedisRateLimitStore(redis);
  }

  /** Whether limits are counted on this node alone right now. */
  get localOnly(): boolean {
    return this.degraded;
  }

  private fellBack(err?: unknown): void {
    if (this.degraded) return;
    this.degraded = true;
    this.log?.warn({ err }, 'Redis unavailable: rate limits are counted on this node until it is back');
  }

  private async use<T>(op: (s: RateLimitStore) => T | Promise<T>): Promise<T> {
    if (this.redis.status === 'ready') {
      try {
        const out = await op(this.shared);
        if (this.degraded) {
          this.degraded = false;
          this.log?.info('Redis is back: rate limits are shared again');
        }
        return out;
      } catch (err) {
        this.fellBack(err);
      }
    } else {
      this.fellBack();
    }
    return op(this.local);
  }

  hit(key: string, max: number, windowMs: number, now: number): Promise<boolean> {
    return this.use((s) => s.hit(key, max, windowMs, now));
  }

  retryAfterMs(key: string, max: number, windowMs: number, now: number): Promise<number> {
    return this.use((s) => s.retryAfterMs(key, max, windowMs, now));
  }

  minuteUsage(key: string, now: number): Promise<number> {
    return this.use((s) => s.minuteUsage(key, now));
  }

  addToMinute(key: string, n: number, max: number, now: number): Promise<boolean> {
    return this.use((s) => s.addToMinute(key, n, max, now));
  }

  acquireSlot(key: string, member: string, limit: number, ttlMs: number, now: number): Promise<boolean> {
    return this.use((s) => s.acquireSlot(key, member, limit, ttlMs, now));
  }

  async releaseSlot(key: string, member: string): Promise<void> {
    // Released from both: a slot taken from one store while the other was in use must not stay held.
    this.local.releaseSlot(key, member);
    if (this.redis.status === 'ready') await this.shared.releaseSlot(key, member).catch(() => undefined);
  }
}
