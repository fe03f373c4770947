import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { Redis } from 'ioredis';
import { TokenStatus } from '@modelgate/shared';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DbUnavailableError } from '../../db/db-unavailable.js';
import { connectRedis } from '../../http/redis-rate-limit.js';
import { randomAlnum } from '../../modules/users/password.js';
import { isolatedRedisUrl } from '../../test-support/multinode.js';
import { testDbKinds } from '../../test-support/test-db.js';
import { startTestServer, type TestServer } from '../../test-support/test-server.js';
import { until } from '../../test-support/text.js';
import { windowCounter } from '../../test-support/windows.js';
import { Ledger, type ReserveInput, type WindowSpec } from '../ledger.js';
import { reconcile } from '../reconcile.js';
import { RedisWindows } from './redis-windows.js';

/**
 * Window counters shared through Redis during a database outage, at the ledger (docs/reliability.md
 * "Database outage"): two ledgers over one database, each its own Redis connection, as two nodes.
 * The database path mirrors every window it commits; during the outage both decide on the shared
 * counters, so concurrent requests over both never pass a cap, a window only one of them saw is
 * decided by the other, and a node whose Redis is gone too falls back to what it saw. The replay
 * charges the database exactly once and the mirror follows the database again.
 */
describe.skipIf(!process.env.TEST_REDIS_URL).each(testDbKinds())('window counters shared through Redis on %s', (kind) => {
  let srv: TestServer;
  const clients: Redis[] = [];
  const spools: string[] = [];
  let seq = 0;
  const H = {
    get server() {
      return srv;
    },
  };

  beforeAll(async () => {
    srv = await startTestServer({ kind });
  });
  afterAll(async () => {
    for (const c of clients) c.disconnect();
    for (const d of spools) fs.rmSync(d, { recursive: true, force: true });
    await srv.close();
  });

  const now = () => Math.floor(Date.now() / 1000);
  const rid = () => `rw-${kind}-${++seq}-${randomAlnum(6)}`;
  const window = (account: string, caps: { quota?: number; requests?: number }): WindowSpec => ({
    account,
    window: 'day',
    quota: caps.quota ?? 0,
    requests: caps.requests ?? 0,
    start: now() - 60,
    end: now() + 3600,
  });

  async function account(quota: number) {
    const ctx = srv.ctx;
    const userId = await ctx.users.insert({ username: `rw${randomAlnum(10).toLowerCase()}`, password: 'x', quota: 0, aff_code: randomAlnum(10) });
    await ctx.quotaLedger.move({ kind: 'test', userId, quota });
    const tokenId = await ctx.tokens.insert({ user_id: userId, key: randomAlnum(48), name: 't', status: TokenStatus.Enabled, remain_quota: 0, unlimited_quota: 1, expired_time: -1 });
    return { userId, tokenId };
  }

  /** A node: its own ledger, outage spool and Redis connection, sharing `prefix`'s counters. */
  async function node(name: string, prefix: string, redisUrl: string) {
    const ledger = new Ledger(srv.ctx.db, name, 60);
    const spoolDir = fs.mkdtempSync(path.join(os.tmpdir(), `mg-rw-${name}-`));
    spools.push(spoolDir);
    const outage = ledger.attachOutage({ mode: 'serve', spoolDir, timeoutMs: 1000, probeMs: 60_000 }, { warn() {}, info() {}, error() {} });
    outage.balances = () => ({ user: 100_000_000, token: 100_000_000 });
    const redis = await connectRedis(redisUrl);
    clients.push(redis);
    const shared = new RedisWindows(redis, undefined, prefix);
    outage.shareWindows(shared);
    return { ledger, outage, redis, shared };
  }
  type Node = Awaited<ReturnType<typeof node>>;
  type Account = Awaited<ReturnType<typeof account>>;

  const reserveOn = (n: Node, a: Account, extra: Partial<ReserveInput>) =>
    n.ledger.reserve({ requestId: rid(), userId: a.userId, tokenId: a.tokenId, tokenLimited: false, amount: 1000, now: now(), ...extra });
  const settleOn = (n: Node, a: Account, requestId: string, charge: number, paidBy?: number) =>
    n.ledger.settle({ requestId, userId: a.userId, tokenId: a.tokenId, tokenLimited: false, reserved: 1000, charge, channelId: 0, responseTimeMs: 0, log: null, windows: true, paidBy });
  /** A counter as Redis holds it under `prefix`. */
  const sharedOf = async (redis: Redis, prefix: string, account: string) => {
    const h = await redis.hgetall(`${prefix}${account}/day`);
    return h.s === undefined ? undefined : { quota_used: Number(h.q), requests_used: Number(h.r) };
  };
  /** The mirror is sent without waiting: the database's counter reaches Redis shortly after the commit. */
  const mirroredTo = async (redis: Redis, prefix: string, account: string) => {
    const db = await windowCounter(H, account, 'day');
    await until(async () => JSON.stringify(await sharedOf(redis, prefix, account)) === JSON.stringify({ quota_used: db!.quota_used, requests_used: db!.requests_used }), 5000);
  };

  it('two nodes decide one cap together through an outage, a window one of them never saw included; without Redis a node decides alone', { timeout: 60_000 }, async () => {
    const redisUrl = isolatedRedisUrl();
    const prefix = `mg-test-win-${randomAlnum(8)}:`;
    const A = await node('rw-a', prefix, redisUrl);
    const B = await node('rw-b', prefix, redisUrl);
    const probe = await connectRedis(redisUrl);
    clients.push(probe);
    const a = await account(100_000_000);
    const reserve = (n: Node, extra: Partial<ReserveInput>) => reserveOn(n, a, extra);
    const settle = (n: Node, requestId: string, charge: number, paidBy?: number) => settleOn(n, a, requestId, charge, paidBy);
    const shared = (account: string) => sharedOf(probe, prefix, account);
    const mirrored = (account: string) => mirroredTo(probe, prefix, account);

    const cap = window(`t${a.tokenId}`, { requests: 10 });
    // Through the database: A and B each charge the cap; one of A's stays open across the outage.
    const first = rid();
    expect(await reserve(A, { requestId: first, windows: [cap] })).toMatchObject({ ok: true, windows: 1 });
    expect(await settle(A, first, 400)).toEqual({ charged: 400, duplicate: false });
    const second = rid();
    expect(await reserve(B, { requestId: second, windows: [cap] })).toMatchObject({ ok: true });
    expect(await settle(B, second, 300)).toEqual({ charged: 300, duplicate: false });
    const open = rid();
    expect(await reserve(A, { requestId: open, windows: [cap] })).toMatchObject({ ok: true });
    await mirrored(cap.account);
    expect(await shared(cap.account)).toEqual({ quota_used: 1700, requests_used: 3 });
    // A plan only A ever reads: 1 of its 4 requests used.
    const planId = 9_700_000 + seq;
    const plan = { id: planId, windows: [window(`s${planId}`, { requests: 4 })] };
    const byPlan = rid();
    expect(await reserve(A, { requestId: byPlan, plans: [plan] })).toMatchObject({ ok: true, paidBy: planId });
    expect(await settle(A, byPlan, 250, planId)).toEqual({ charged: 250, duplicate: false });
    await mirrored(plan.windows[0]!.account);
    // A second cap that only B reads before the outage (for the fall-back below).
    const cap2 = window(`u${a.userId}`, { requests: 5 });
    const seenByB = rid();
    expect(await reserve(B, { requestId: seenByB, windows: [cap2] })).toMatchObject({ ok: true });
    expect(await settle(B, seenByB, 100)).toEqual({ charged: 100, duplicate: false });
    await mirrored(cap2.account);

    A.outage.enter(new Error('test: the database is away'));
    B.outage.enter(new Error('test: the database is away'));
    // 30 concurrent requests split over both nodes: exactly the 7 the cap has left, not 7 per node.
    const ids = Array.from({ length: 30 }, rid);
    const results = await Promise.all(ids.map((requestId, i) => reserve(i % 2 ? A : B, { requestId, windows: [cap] })));
    const won = ids.filter((_, i) => results[i]!.ok);
    expect(won).toHaveLength(7);
    for (const r of results) if (!r.ok) expect(r).toMatchObject({ who: 'window', block: { account: cap.account, unit: 'requests', limit: 10 } });
    expect(await shared(cap.account)).toEqual({ quota_used: 1700 + 7000, requests_used: 10 });
    // The reservation from before the outage settles (spooled), a request one node holds is given back: both move the shared counter.
    expect(await settle(A, open, 500)).toEqual({ charged: 500, duplicate: false });
    const gone = won[0]!;
    const [holder, other] = A.ledger.outage!.isLocal(gone) ? [A, B] : [B, A];
    expect(holder.ledger.outage!.isLocal(gone)).toBe(true);
    expect(await holder.ledger.release(gone)).toBe(true);
    await until(async () => (await shared(cap.account))?.requests_used === 9, 5000);
    // The other node sees the request given back; the one after is refused on either node.
    const freed = rid();
    expect(await reserve(other, { requestId: freed, windows: [cap] })).toMatchObject({ ok: true });
    await expect(reserve(holder, { windows: [cap] })).resolves.toMatchObject({ ok: false, who: 'window' });
    const outageIds = [...won.filter((id) => id !== gone), freed];
    for (const id of outageIds) expect(await settle(A.ledger.outage!.isLocal(id) ? A : B, id, 200)).toEqual({ charged: 200, duplicate: false });
    expect(await shared(cap.account)).toEqual({ quota_used: 400 + 300 + 500 + 200 * 7, requests_used: 10 });

    // The plan only A read: B decides it from the shared counter, and the two nodes stop at its 4 requests.
    const planned: Array<[Node, string]> = [];
    for (const n of [B, A, B]) {
      const id = rid();
      expect(await reserve(n, { requestId: id, plans: [plan] })).toMatchObject({ ok: true, paidBy: planId });
      planned.push([n, id]);
      if (planned.length > 1) continue;
      // The same request id again (a double submit) while the plan has room: nothing taken, the shared counter unmoved.
      await expect(reserve(n, { requestId: id, plans: [plan] })).resolves.toMatchObject({ ok: false, who: 'finished' });
      expect(await shared(`s${planId}`)).toMatchObject({ requests_used: 2 });
    }
    await expect(reserve(A, { plans: [plan] })).resolves.toMatchObject({ ok: false, who: 'window', block: { account: `s${planId}` } });
    for (const [n, id] of planned) expect(await settle(n, id, 250, planId)).toEqual({ charged: 250, duplicate: false });

    // B loses Redis too: it decides from what it saw (cap2: 1 of 5 used), and cannot decide the plan it never read through the database.
    B.redis.disconnect();
    await until(() => B.redis.status === 'end', 5000);
    const alone: string[] = [];
    for (let i = 0; i < 4; i++) {
      const id = rid();
      expect(await reserve(B, { requestId: id, windows: [cap2] })).toMatchObject({ ok: true });
      alone.push(id);
    }
    await expect(reserve(B, { windows: [cap2] })).resolves.toMatchObject({ ok: false, who: 'window', block: { account: cap2.account, limit: 5 } });
    // B's own view of the plan came from the shared counter it read during the outage: full.
    await expect(reserve(B, { plans: [plan] })).resolves.toMatchObject({ ok: false, who: 'window' });
    await expect(reserve(B, { plans: [{ id: planId + 1, windows: [window(`s${planId + 1}`, { requests: 4 })] }] })).rejects.toBeInstanceOf(DbUnavailableError);
    for (const id of alone) expect(await settle(B, id, 100)).toEqual({ charged: 100, duplicate: false });
    expect(B.shared.stats.fallbacks).toBeGreaterThan(0);

    // The database is back: each spool charges its windows once; the counters equal their charges.
    expect(await A.outage.replay()).toBe(true);
    expect(await B.outage.replay()).toBe(true);
    expect(await windowCounter(H, cap.account, 'day')).toMatchObject({ quota_used: 2600, requests_used: 10 });
    expect(await windowCounter(H, `s${planId}`, 'day')).toMatchObject({ quota_used: 1000, requests_used: 4 });
    expect(await windowCounter(H, cap2.account, 'day')).toMatchObject({ quota_used: 500, requests_used: 5 });
    expect(Number((await srv.ctx.db.db.selectFrom('users').select('quota').where('id', '=', a.userId).executeTakeFirstOrThrow()).quota)).toBe(100_000_000 - 2600 - 500);
    expect(await srv.ctx.db.db.selectFrom('reservations').selectAll().where('user_id', '=', a.userId).execute()).toEqual([]);
    expect((await reconcile(srv.ctx.db.db)).mismatches).toEqual([]);
    // The database path mirrors again (a node the database answers): a refusal reads the full cap under its lock and shares it.
    await probe.hset(`${prefix}${cap.account}/day`, 'q', '0', 'r', '3');
    const C = await node('rw-c', prefix, redisUrl);
    await expect(reserve(C, { windows: [cap] })).resolves.toMatchObject({ ok: false, who: 'window' });
    await mirrored(cap.account);
    await C.outage.close();
    await A.outage.close();
    await B.outage.close();
  });

  it('a failed task\'s refund and the release of a gone node\'s lease move the shared counter as they move the database', { timeout: 30_000 }, async () => {
    const redisUrl = isolatedRedisUrl();
    const prefix = `mg-test-win-${randomAlnum(8)}:`;
    const A = await node('rw-r', prefix, redisUrl);
    const B = await node('rw-s', prefix, redisUrl);
    const a = await account(100_000_000);
    const cap = window(`t${a.tokenId}`, { requests: 10 });
    const shared = () => sharedOf(A.redis, prefix, cap.account);

    // Charged and settled through the database, then refunded in a task row's transaction: the counter goes back to nothing.
    const paid = rid();
    expect(await reserveOn(A, a, { requestId: paid, windows: [cap] })).toMatchObject({ ok: true });
    expect(await settleOn(A, a, paid, 400)).toEqual({ charged: 400, duplicate: false });
    await mirroredTo(A.redis, prefix, cap.account);
    expect(await shared()).toEqual({ quota_used: 400, requests_used: 1 });
    const refund = { requestId: paid, userId: a.userId, quota: 400, ref: `test-refund:${paid}` };
    const moved = await srv.ctx.db.db.transaction().execute((trx) => A.ledger.refund(trx, srv.ctx.quotaLedger, refund));
    expect(moved).toMatchObject({ result: 'applied', paidBy: 0, moves: [[cap.account, 'day', expect.any(Number), -400, -1]] });
    A.ledger.refunded(moved.moves);
    await until(async () => (await shared())?.requests_used === 0, 5000);
    expect(await shared()).toEqual({ quota_used: 0, requests_used: 0 });
    await mirroredTo(A.redis, prefix, cap.account);
    // The same refund again moves nothing, here or there.
    const again = await srv.ctx.db.db.transaction().execute((trx) => A.ledger.refund(trx, srv.ctx.quotaLedger, refund));
    expect(again).toMatchObject({ result: 'duplicate', moves: [] });

    // A holds a reservation and is gone; B releases it when its lease has expired, and the shared counter follows.
    const held = rid();
    expect(await reserveOn(A, a, { requestId: held, windows: [cap] })).toMatchObject({ ok: true });
    await until(async () => (await shared())?.requests_used === 1, 5000);
    expect(await B.ledger.recover(now() + 3600)).toBe(1);
    await until(async () => (await shared())?.requests_used === 0, 5000);
    expect(await shared()).toEqual({ quota_used: 0, requests_used: 0 });
    await mirroredTo(A.redis, prefix, cap.account);
    expect((await reconcile(srv.ctx.db.db)).mismatches).toEqual([]);
    await A.outage.close();
    await B.outage.close();
  });

  it('a period never goes backwards, and a state the database commits cannot lower what an outage charged', async () => {
    const redisUrl = isolatedRedisUrl();
    const prefix = `mg-test-win-${randomAlnum(8)}:`;
    const A = await node('rw-p', prefix, redisUrl);
    const key = `${prefix}t1/day`;
    const t = now();
    const hash = async () => {
      const h = await A.redis.hgetall(key);
      return { s: Number(h.s), q: Number(h.q), r: Number(h.r) };
    };
    const flush = () => A.redis.ping();
    A.shared.put([['t1', 'day', { start: t, end: t + 100, quota: 50, requests: 2 }]]);
    A.shared.put([['t1', 'day', { start: t - 100, end: t, quota: 999, requests: 9 }]]);
    await flush();
    expect(await hash()).toEqual({ s: t, q: 50, r: 2 });
    // Not in an outage: the database's state is the truth, lower or not.
    A.shared.put([['t1', 'day', { start: t, end: t + 100, quota: 40, requests: 1 }]]);
    await flush();
    expect(await hash()).toEqual({ s: t, q: 40, r: 1 });
    // A move charged during an outage guards the counter: a late database state cannot lower it, a later period replaces it.
    A.outage.enter(new Error('test: away'));
    A.shared.add([['t1', 'day', t, 60, 1]]);
    A.shared.add([['t1', 'day', t - 100, 1000, 1]]);
    await flush();
    expect(await hash()).toEqual({ s: t, q: 100, r: 2 });
    A.shared.put([['t1', 'day', { start: t, end: t + 100, quota: 40, requests: 1 }]]);
    A.shared.put([['t1', 'day', { start: t, end: t + 100, quota: 120, requests: 1 }]]);
    await flush();
    expect(await hash()).toEqual({ s: t, q: 120, r: 2 });
    A.shared.put([['t1', 'day', { start: t + 100, end: t + 200, quota: 5, requests: 1 }]]);
    await flush();
    expect(await hash()).toEqual({ s: t + 100, q: 5, r: 1 });
    expect(await A.redis.hget(key, 'g')).toBeNull();
    await A.outage.close();
  });
});
