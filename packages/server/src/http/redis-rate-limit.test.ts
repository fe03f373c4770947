import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Redis } from 'ioredis';
import { connectRedis, RedisRateLimitStore } from './redis-rate-limit.js';

describe.skipIf(!process.env.TEST_REDIS_URL)('Redis sliding-log limiter', () => {
  let a: Redis;
  let b: Redis;
  const key = `test:${Date.now()}:${Math.random()}`;

  beforeAll(async () => {
    a = await connectRedis(process.env.TEST_REDIS_URL!);
    b = await connectRedis(process.env.TEST_REDIS_URL!);
  });
  afterAll(async () => {
    await a?.del(`rateLimit:${key}`);
    a?.disconnect();
    b?.disconnect();
  });

  it('shares one budget between two nodes and frees it as the window slides', async () => {
    const node1 = new RedisRateLimitStore(a);
    const node2 = new RedisRateLimitStore(b);
    expect(await node1.hit(key, 3, 1000, 0)).toBe(true);
    expect(await node2.hit(key, 3, 1000, 1)).toBe(true);
    expect(await node1.hit(key, 3, 1000, 2)).toBe(true);
    expect(await node2.hit(key, 3, 1000, 500)).toBe(false);
    expect(await node1.hit(key, 3, 1000, 999)).toBe(false);
    expect(await node2.hit(key, 3, 1000, 1000)).toBe(true);
  });

  it('says when a refused caller may retry: when the oldest counted hit leaves the window', async () => {
    const store = new RedisRateLimitStore(a);
    const k = `${key}:retry`;
    await store.hit(k, 2, 1000, 100);
    await store.hit(k, 2, 1000, 400);
    expect(await store.hit(k, 2, 1000, 500)).toBe(false);
    expect(await store.retryAfterMs(k, 2, 1000, 500)).toBe(600);
    await a.del(`rateLimit:${k}`);
  });
});
