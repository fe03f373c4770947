import type { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connectRedis, RedisRateLimitStore } from '../http/redis-rate-limit.js';
import { addCaller, addChannel, startRelayHarness, type RelayHarness, type TestCaller } from '../test-support/relay-fixtures.js';
import { tokenRateKey } from './relay-gate.js';

/** RELAY_TOKEN_RATE_LIMIT: an optional request budget per API token on `/v1`, off by default. */
const LIMIT = { RELAY_TOKEN_RATE_LIMIT: '3', RELAY_TOKEN_RATE_LIMIT_DURATION: '60' };

async function models(h: RelayHarness, c: Pick<TestCaller, 'key'>): Promise<Response> {
  return fetch(`${h.server.url}/v1/models`, { headers: { authorization: `Bearer sk-${c.key}`, 'accept-language': 'en' } });
}

async function statuses(h: RelayHarness, c: Pick<TestCaller, 'key'>, n: number): Promise<number[]> {
  const out: number[] = [];
  for (let i = 0; i < n; i++) out.push((await models(h, c)).status);
  return out;
}

describe('per-token request limit (memory store)', () => {
  let h: RelayHarness;
  beforeAll(async () => {
    h = await startRelayHarness({ env: LIMIT });
    await addChannel(h.root, { base_url: h.fake.url, models: 'gpt-4' });
  });
  afterAll(() => h.close());

  it('answers the 4th request of a token within the window with 429 and an OpenAI error object', async () => {
    const a = await addCaller(h);
    expect(await statuses(h, a, 3)).toEqual([200, 200, 200]);
    const refused = await models(h, a);
    expect(refused.status).toBe(429);
    expect(await refused.json()).toEqual({
      error: { message: 'Too many requests with this token, please try again later: 3 / 60 s', type: 'new_api_error', param: null, code: 'rate_limit_exceeded' },
    });
    // Relay calls count against the same budget; the SDK sees a RateLimitError.
    await expect(a.client.chat.completions.create({ model: 'gpt-4', messages: [{ role: 'user', content: 'Hi' }] })).rejects.toMatchObject({ status: 429 });
    // Another token (even of the same user) has its own budget.
    const b = await addCaller(h);
    expect(await statuses(h, b, 3)).toEqual([200, 200, 200]);
  });

  it('is off by default', async () => {
    const plain = await startRelayHarness();
    try {
      const c = await addCaller(plain);
      expect(new Set(await statuses(plain, c, 10))).toEqual(new Set([200]));
    } finally {
      await plain.close();
    }
  });
});

describe.skipIf(!process.env.TEST_REDIS_URL)('per-token request limit (Redis store, shared by nodes)', () => {
  let h: RelayHarness;
  let redis: Redis;
  let otherNode: Redis;
  const keys: string[] = [];

  beforeAll(async () => {
    h = await startRelayHarness({ env: LIMIT });
    redis = await connectRedis(process.env.TEST_REDIS_URL!);
    otherNode = await connectRedis(process.env.TEST_REDIS_URL!);
    // What main.ts does when REDIS_CONN_STRING is set.
    h.server.ctx.rateLimitStore = new RedisRateLimitStore(redis);
  });
  afterAll(async () => {
    if (keys.length) await redis?.del(...keys);
    redis?.disconnect();
    otherNode?.disconnect();
    await h?.close();
  });

  it("counts a token's requests on every node against one budget", async () => {
    const c = await addCaller(h);
    const key = tokenRateKey(c.tokenId);
    keys.push(`rateLimit:${key}`);
    await redis.del(`rateLimit:${key}`);
    // Two requests of this token went through another node.
    const node2 = new RedisRateLimitStore(otherNode);
    expect(await node2.hit(key, 3, 60_000, Date.now())).toBe(true);
    expect(await node2.hit(key, 3, 60_000, Date.now())).toBe(true);
    expect(await statuses(h, c, 2)).toEqual([200, 429]);
  });
});
