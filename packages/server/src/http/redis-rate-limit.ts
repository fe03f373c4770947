import { Redis } from 'ioredis';
import { minuteOf, slidingMinute, type RateLimitStore } from './rate-limit.js';
import type { Logger } from '../log/logger.js';

/**
 * The same sliding log as the in-memory store, kept in a Redis list so every node behind a load
 * balancer counts against one budget (reference key `rateLimit:<mark><ip>`, 20-minute TTL).
 * One Lua script per hit keeps check-and-push atomic across nodes.
 */
const SCRIPT = `
local len = redis.call('LLEN', KEYS[1])
local max = tonumber(ARGV[1])
local now = tonumber(ARGV[3])
if len >= max then
  local oldest = tonumber(redis.call('LINDEX', KEYS[1], -1))
  if now - oldest < tonumber(ARGV[2]) then return 0 end
end
redis.call('LPUSH', KEYS[1], now)
redis.call('LTRIM', KEYS[1], 0, max - 1)
redis.call('PEXPIRE', KEYS[1], math.max(tonumber(ARGV[2]), 1200000))
return 1`;

/** Sliding minute from two fixed-minute counters; adds ARGV[1] unless that passes ARGV[2] (-1: no max). */
const ADD_TO_MINUTE = `
local cur = tonumber(redis.call('GET', KEYS[1]) or '0')
local prev = tonumber(redis.call('GET', KEYS[2]) or '0')
local n = tonumber(ARGV[1])
local max = tonumber(ARGV[2])
local used = cur + prev * (1 - tonumber(ARGV[3]))
if max >= 0 and used + n > max then return 0 end
redis.call('INCRBY', KEYS[1], n)
redis.call('PEXPIRE', KEYS[1], 120000)
return 1`;

/** A slot per member in a sorted set scored by expiry; expired members are dropped first. */
const ACQUIRE_SLOT = `
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', ARGV[1])
if redis.call('ZCARD', KEYS[1]) >= tonumber(ARGV[2]) then return 0 end
redis.call('ZADD', KEYS[1], tonumber(ARGV[1]) + tonumber(ARGV[3]), ARGV[4])
redis.call('PEXPIRE', KEYS[1], ARGV[3])
return 1`;

export class RedisRateLimitStore implements RateLimitStore {
  constructor(private readonly redis: Redis) {}

  async minuteUsage(key: string, now: number): Promise<number> {
    const m = minuteOf(now);
    const [cur, prev] = await this.redis.mget(`limit:${key}:${m}`, `limit:${key}:${m - 1}`);
    return slidingMinute(Number(cur ?? 0), Number(prev ?? 0), now);
  }

  async addToMinute(key: string, n: number, max: number, now: number): Promise<boolean> {
    const m = minuteOf(now);
    const into = (now % 60_000) / 60_000;
    const res = await this.redis.eval(ADD_TO_MINUTE, 2, `limit:${key}:${m}`, `limit:${key}:${m - 1}`, n, Number.isFinite(max) ? max : -1, into);
    return res === 1;
  }

  async acquireSlot(key: string, member: string, limit: number, ttlMs: number, now: number): Promise<boolean> {
    return (await this.redis.eval(ACQUIRE_SLOT, 1, `slots:${key}`, now, limit, ttlMs, member)) === 1;
  }

  async releaseSlot(key: string, member: string): Promise<void> {
    await this.redis.zrem(`slots:${key}`, member);
  }

  async retryAfterMs(key: string, _max: number, windowMs: number, now: number): Promise<number> {
    // The list keeps the newest `max` hits (LTRIM); the last one is the hit whose expiry frees a slot.
    const oldest = await this.redis.lindex(`rateLimit:${key}`, -1);
    return oldest === null ? 0 : Math.max(0, Number(oldest) + windowMs - now);
  }

  async hit(key: string, max: number, windowMs: number, now: number): Promise<boolean> {
    const res = await this.redis.eval(SCRIPT, 1, `rateLimit:${key}`, max, windowMs, now);
    return res === 1;
  }
}

/**
 * Connects and pings; a Redis that was configured but cannot be reached stops start-up. Later
 * connection errors are logged (ioredis reconnects by itself; commands fail meanwhile and /readyz
 * says so) instead of ioredis's unhandled-error line on stderr.
 */
export async function connectRedis(url: string, opts: { log?: Pick<Logger, 'warn'> } = {}): Promise<Redis> {
  // A command on a connection that stopped answering fails after a second instead of hanging the
  // request that sent it (callers fall back: rate limits count locally, affinity routes by weight).
  const redis = new Redis(url, { lazyConnect: true, maxRetriesPerRequest: 2, enableOfflineQueue: true, commandTimeout: 1_000 });
  let reported = false;
  redis.on('error', (err: unknown) => {
    // One line per outage, not one per reconnect attempt.
    if (!reported) opts.log?.warn({ err }, 'Redis connection error; reconnecting');
    reported = true;
  });
  redis.on('ready', () => {
    reported = false;
  });
  await redis.connect();
  await redis.ping();
  return redis;
}
