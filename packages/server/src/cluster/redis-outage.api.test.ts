import { startFaultProxy, type FaultProxy } from '@modelgate/testkit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ResilientRateLimitStore } from '../http/resilient-rate-limit.js';
import { isolatedRedisUrl } from '../test-support/multinode.js';
import { addCaller, addChannel, balances, expectChargedFor, priceModels, startRelayHarness, type RelayHarness, type TestCaller } from '../test-support/relay-fixtures.js';
import { until } from '../test-support/text.js';

/**
 * Issue 38 item 3: no request fails because Redis is down. Rate limits fall back to this node's own
 * counting, job locks to the database, cache lifetimes shrink so edits made elsewhere still arrive,
 * and when Redis is back everything is shared again.
 */

describe.runIf(process.env.TEST_REDIS_URL)('a Redis outage', () => {
  let proxy: FaultProxy;
  let h: RelayHarness;
  let c: TestCaller;
  let asked = 0;
  const ask = () => c.client.chat.completions.create({ model: 'm-redis-out', messages: [{ role: 'user', content: `q${++asked}` }] });

  beforeAll(async () => {
    const redisUrl = isolatedRedisUrl();
    proxy = await startFaultProxy(redisUrl);
    h = await startRelayHarness({ env: { REDIS_CONN_STRING: proxy.url(), RELAY_TOKEN_RATE_LIMIT: '3', RELAY_TOKEN_RATE_LIMIT_DURATION: '60', SYNC_FREQUENCY: '600' } });
    await priceModels(h, ['m-redis-out']);
    await addChannel(h.root, { base_url: h.fake.url, models: 'm-redis-out' });
    c = await addCaller(h);
  });
  afterAll(async () => {
    proxy?.restore();
    await h?.close();
    await proxy?.close();
  });

  it('keeps relaying and answering the console, counts limits on this node, takes job locks from the database, and shares again afterwards', async () => {
    const ctx = h.server.ctx;
    const store = ctx.rateLimitStore as ResilientRateLimitStore;
    expect(store).toBeInstanceOf(ResilientRateLimitStore);
    const before = await balances(h, c);
    await ask();
    expect(store.localOnly).toBe(false);

    proxy.cut();
    await until(() => ctx.cluster.redis!.status !== 'ready');
    // The token's 3-per-minute budget is counted here from zero: 3 more pass, the 4th is refused.
    const started = Date.now();
    for (let i = 0; i < 3; i++) expect((await ask()).choices[0]!.message.content).toBeTruthy();
    expect(Date.now() - started).toBeLessThan(3_000);
    expect(store.localOnly).toBe(true);
    await expect(ask()).rejects.toMatchObject({ status: 429 });

    // The console answers (sessions and options are in the database).
    expect((await h.root.get('/api/user/self')).body).toMatchObject({ success: true });
    expect((await h.root.get('/api/status')).body).toMatchObject({ success: true });
    // Short-lived shared values (verification codes, OAuth states) go to the database meanwhile.
    await ctx.cluster.store.set('outage:code', '123456', 60_000);
    expect(await ctx.cluster.store.get('outage:code')).toBe('123456');
    // Periodic jobs keep a lock: the database's.
    expect(await ctx.cluster.locks.acquire('redis-outage-test', 5_000)).toBe(true);
    await ctx.cluster.locks.release('redis-outage-test');

    // A token disabled where this node cannot hear of it (another node's invalidation is lost):
    // with the cache living 5 s instead of SYNC_FREQUENCY's 600, it is refused here within seconds.
    const other = await addCaller(h);
    await other.client.chat.completions.create({ model: 'm-redis-out', messages: [{ role: 'user', content: 'cached' }] });
    await ctx.db.db.updateTable('tokens').set({ status: 2 }).where('id', '=', other.tokenId).execute();
    await until(async () => {
      const r = await other.client.chat.completions.create({ model: 'm-redis-out', messages: [{ role: 'user', content: `again ${Date.now()}` }] }).catch((e: unknown) => e);
      return (r as { status?: number }).status === 401;
    }, 8_000);

    proxy.restore();
    await until(() => ctx.cluster.redis!.status === 'ready');
    await until(async () => {
      await store.hit('probe', 1_000, 60_000, Date.now());
      return !store.localOnly;
    });

    // A code issued during the outage is still found, and taken once.
    expect(await ctx.cluster.store.take('outage:code')).toBe('123456');
    expect(await ctx.cluster.store.take('outage:code')).toBeUndefined();

    // Everything delivered was charged once, nothing else.
    expect(await expectChargedFor(h, c, before, 4)).toBeGreaterThan(0);
  });
});
