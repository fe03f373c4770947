import { startFakeOpenAI, startFaultProxy, type FakeOpenAI, type FaultProxy } from '@modelgate/testkit';
import type { Redis } from 'ioredis';
import OpenAI from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connectRedis } from '../../http/redis-rate-limit.js';
import { rootClient, type ApiClient } from '../../test-support/api-client.js';
import { isolatedRedisUrl, multiNodeDbKinds } from '../../test-support/multinode.js';
import { addCaller, addChannel, balances, consumeLogs, expectChargedFor, priceModels, type RelayHarness, type TestCaller } from '../../test-support/relay-fixtures.js';
import { startTestServer, type TestServer } from '../../test-support/test-server.js';
import { until } from '../../test-support/text.js';
import { windowCounter } from '../../test-support/windows.js';
import { reconcile } from '../reconcile.js';

/**
 * Issue 32 item 3 through a database outage on two nodes sharing Redis (docs/reliability.md
 * "Database outage"): both nodes reach the database through one fault proxy the test cuts. While
 * the database answers, each mirrors the window counters it commits to Redis; during the outage
 * both decide on those shared counters, so a user's daily cap is served exactly to the cap over
 * both nodes (not once per node), and a plan only node A ever read is decided on node B. When the
 * database is back every answer is charged once and the ledger reconciles.
 */

const MODEL = 'm-outage-redis-windows';
const kinds = process.env.TEST_REDIS_URL ? multiNodeDbKinds() : [];

describe.skipIf(!kinds.length).each(kinds.length ? kinds : (['postgres'] as const))('window counters shared through Redis in a database outage on %s', (kind) => {
  let proxy: FaultProxy;
  let fake: FakeOpenAI;
  let a: TestServer;
  let b: TestServer;
  let root: ApiClient;
  let probe: Redis;
  let h: RelayHarness;

  beforeAll(async () => {
    proxy = await startFaultProxy(kind === 'postgres' ? process.env.TEST_PG_URL! : process.env.TEST_MYSQL_URL!);
    const redisUrl = isolatedRedisUrl();
    const env = { REDIS_CONN_STRING: redisUrl, SYNC_FREQUENCY: '2' };
    const databaseEnv = (e: Record<string, string>) => ({ ...e, SQL_DSN: proxy.url(e.SQL_DSN) });
    a = await startTestServer({ kind, env, databaseEnv });
    fake = await startFakeOpenAI();
    root = await rootClient(a.url);
    h = { server: a, fake, root, close: async () => undefined };
    await priceModels(h, [MODEL]);
    await addChannel(root, { base_url: fake.url, models: MODEL });
    // B starts after the channel and the price exist: it loads them at start.
    b = await startTestServer({ kind, env, databaseEnv, alongside: a });
    probe = await connectRedis(redisUrl);
  }, 60_000);
  afterAll(async () => {
    proxy?.restore();
    probe?.disconnect();
    await b?.close();
    await a?.close();
    await fake?.close();
    await proxy?.close();
  });

  it('serves a daily cap exactly once over both nodes, decides on B a plan only A saw, and replays every charge once', { timeout: 90_000 }, async () => {
    const onB = (c: TestCaller) => new OpenAI({ apiKey: `sk-${c.key}`, baseURL: `${b.url}/v1`, maxRetries: 0 });
    const ask = (client: OpenAI, i: number) => client.chat.completions.create({ model: MODEL, max_tokens: 16, messages: [{ role: 'user', content: `q${i}` }] });
    const status = (p: Promise<unknown>) =>
      p.then(
        () => 200,
        (err: { status?: number; code?: string }) => `${err.status} ${err.code}`,
      );
    const shared = async (account: string) => {
      const r = await probe.hgetall(`modelgate:win:${account}/day`);
      return r.s === undefined ? undefined : { quota_used: Number(r.q), requests_used: Number(r.r) };
    };
    const mirrored = async (account: string) => {
      const db = await windowCounter(h, account, 'day');
      await until(async () => JSON.stringify(await shared(account)) === JSON.stringify({ quota_used: db!.quota_used, requests_used: db!.requests_used }), 5000);
    };
    const planOf = async (requests: number) => {
      const r = await root.post('/api/plan/', { name: `p-${Math.random().toString(36).slice(2, 8)}`, price: 0, duration_days: 30, fall_through: false, allowances: { day: { requests } } });
      expect(r.body.success, r.body.message).toBe(true);
      return r.body.data.id as number;
    };
    const grant = async (c: TestCaller, planId: number) => {
      const r = await root.post('/api/plan/grant', { user_id: c.userId, plan_id: planId });
      expect(r.body.success, r.body.message).toBe(true);
      return r.body.data.id as number;
    };

    // A user capped at 6 requests a day, and a user with two plans (1, then 5 requests a day).
    const capped = await addCaller(h);
    expect((await root.put('/api/user/', { id: capped.userId, period_limits: { day: { requests: 6 } } })).body.success).toBe(true);
    const planned = await addCaller(h);
    const first = await grant(planned, await planOf(1));
    const second = await grant(planned, await planOf(5));
    const before = { capped: await balances(h, capped), planned: await balances(h, planned) };
    const cappedB = onB(capped);
    const plannedB = onB(planned);
    // Through the database: each node serves the capped user once; B's request is paid by the first
    // plan (B reads only that one), A's by the second (the first is full): only A ever read the second.
    await ask(capped.client, 0);
    await ask(cappedB, 0);
    await ask(plannedB, 0);
    await ask(planned.client, 0);
    expect(await windowCounter(h, `s${second}`, 'day')).toMatchObject({ requests_used: 1 });
    for (const account of [`u${capped.userId}`, `s${first}`, `s${second}`]) await mirrored(account);

    proxy.cut();
    // Twelve requests at once, six per node: the cap has 4 left, and 4 are served in all.
    const cappedRun = await Promise.all(Array.from({ length: 12 }, (_, i) => status(ask(i % 2 ? capped.client : cappedB, i + 1))));
    expect(a.ctx.relay.ledger.outage!.active && b.ctx.relay.ledger.outage!.active).toBe(true);
    expect(cappedRun.filter((s) => s === 200)).toHaveLength(4);
    expect(cappedRun.filter((s) => s !== 200)).toEqual(Array(8).fill('429 period_limit_exceeded'));
    // Both nodes now refuse it.
    expect(await status(ask(capped.client, 20))).toBe('429 period_limit_exceeded');
    expect(await status(ask(cappedB, 21))).toBe('429 period_limit_exceeded');
    // The second plan, never read by B, is decided there from the shared counter: 4 more over both nodes, then 429.
    const plannedRun: Array<number | string> = [];
    for (let i = 1; i <= 6; i++) plannedRun.push(await status(ask(i % 2 ? plannedB : planned.client, i)));
    expect(plannedRun).toEqual([200, 200, 200, 200, '429 period_limit_exceeded', '429 period_limit_exceeded']);
    expect(await shared(`s${second}`)).toMatchObject({ requests_used: 5 });

    proxy.restore();
    for (const n of [a, b]) {
      const o = n.ctx.relay.ledger.outage!;
      await until(() => !o.active && o.spool.size === 0, 30_000);
    }

    // Six answers for the capped user, each charged once; the counter equals the charges.
    const cappedCharged = await expectChargedFor(h, capped, before.capped, 6);
    expect(await windowCounter(h, `u${capped.userId}`, 'day')).toMatchObject({ quota_used: cappedCharged, requests_used: 6 });
    // Six answers for the planned user, all paid by plans: the wallet untouched, the second plan at its 5.
    const logs = await consumeLogs(h, planned.userId);
    expect(logs).toHaveLength(6);
    const planCharged = logs.reduce((s, l) => s + Number(l.quota), 0);
    expect((await balances(h, planned)).quota).toBe(before.planned.quota);
    expect((await balances(h, planned)).remain).toBe(before.planned.remain - planCharged);
    expect(await windowCounter(h, `s${first}`, 'day')).toMatchObject({ requests_used: 1 });
    expect(await windowCounter(h, `s${second}`, 'day')).toMatchObject({ requests_used: 5 });
    const paid = await a.ctx.db.db.selectFrom('ledger_requests').select('paid_by').where('user_id', '=', planned.userId).execute();
    expect(paid.map((r) => Number(r.paid_by)).sort()).toEqual([first, second, second, second, second, second].sort());
    expect(await a.ctx.db.db.selectFrom('reservations').selectAll().where('user_id', 'in', [capped.userId, planned.userId]).execute()).toEqual([]);
    expect((await reconcile(a.ctx.db.db)).mismatches).toEqual([]);
    // The database agrees, and its path mirrors the counters again.
    expect(await status(ask(cappedB, 30))).toBe('429 period_limit_exceeded');
    await mirrored(`u${capped.userId}`);
  });
});
