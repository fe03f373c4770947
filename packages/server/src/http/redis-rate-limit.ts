import { Redis } from 'ioredis';
import type { RateLimitStore } from './rate-limit.js';

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

export class RedisRateLimitStore implements RateLimitStore {
  constructor(private readonly redis: Redis) {}

  async hit(key: string, max: number, windowMs: number, now: number): Promise<boolean> {
    const res = await this.redis.eval(SCRIPT, 1, `rateLimit:${key}`, max, windowMs, now);
    return res === 1;
  }
}

/** Connects and pings; a Redis that was configured but cannot be reached stops start-up. */
export async function connectRedis(url: string): Promise<Redis> {
  const redis = new Redis(url, { lazyConnect: true, maxRetriesPerRequest: 2, enableOfflineQueue: true });
  await redis.connect();
  await redis.ping();
  return redis;
}
