import fs from 'node:fs';
import path from 'node:path';
import { TokenStatus } from '@modelgate/shared';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { randomAlnum } from '../modules/users/password.js';
import { testDbKinds } from '../test-support/test-db.js';
import { startTestServer, type TestServer } from '../test-support/test-server.js';
import { windowCounter } from '../test-support/windows.js';
import { DbUnavailableError } from '../db/db-unavailable.js';
import { Ledger, type ReserveInput, type WindowSpec } from './ledger.js';
import { reconcile } from './reconcile.js';

/**
 * Windows in the ledger's state machine (docs/ledger.md "Windows and plans"): a window is held
 * with the reservation, settled or given back with it exactly once by request id, never overrun
 * under concurrency (one writer or two), and always equal to the charges of its period.
 */
describe.each(testDbKinds())('ledger windows on %s', (kind) => {
  let srv: TestServer;
  let ledger: Ledger;
  let seq = 0;
  const H = {
    get server() {
      return srv;
    },
  };

  beforeAll(async () => {
    srv = await startTestServer({ kind });
    ledger = srv.ctx.relay.ledger;
  });
  afterAll(() => srv.close());

  async function account(quota: number) {
    const ctx = srv.ctx;
    const userId = await ctx.users.insert({ username: `w${randomAlnum(10).toLowerCase()}`, password: 'x', quota: 0, aff_code: randomAlnum(10) });
    if (quota) await ctx.quotaLedger.move({ kind: 'test', userId, quota });
    const tokenId = await ctx.tokens.insert({ user_id: userId, key: randomAlnum(48), name: 't', status: TokenStatus.Enabled, remain_quota: 0, unlimited_quota: 1, expired_time: -1 });
    return { userId, tokenId };
  }

  const now = () => Math.floor(Date.now() / 1000);
  const rid = () => `win-${kind}-${++seq}-${randomAlnum(6)}`;
  const window = (account: string, caps: { quota?: number; requests?: number }, win: WindowSpec['window'] = 'day'): WindowSpec => ({
    account,
    window: win,
    quota: caps.quota ?? 0,
    requests: caps.requests ?? 0,
    start: now() - 60,
    end: now() + 3600,
  });
  const reserve = (a: { userId: number; tokenId: number }, extra: Partial<ReserveInput>, l = ledger) =>
    l.reserve({ requestId: rid(), userId: a.userId, tokenId: a.tokenId, tokenLimited: false, amount: 1000, now: now(), ...extra });
  const settle = (a: { userId: number; tokenId: number }, requestId: string, reserved: number, charge: number, extra: { paidBy?: number; windows?: boolean } = {}, l = ledger) =>
    l.settle({ requestId, userId: a.userId, tokenId: a.tokenId, tokenLimited: false, reserved, charge, channelId: 0, responseTimeMs: 0, log: null, windows: true, ...extra });
  const quotaOf = async (userId: number) => Number((await srv.ctx.db.db.selectFrom('users').select('quota').where('id', '=', userId).executeTakeFirstOrThrow()).quota);

  it('60 concurrent reserves against a cap of 10 requests take exactly 10; settles and releases leave the counter equal to the charges', async () => {
    const a = await account(10_000_000);
    const w = window(`t${a.tokenId}`, { requests: 10 });
    // One open request first, so the SQLite writer groups what arrives meanwhile.
    const anchor = rid();
    expect(await ledger.reserve({ requestId: anchor, userId: a.userId, tokenId: a.tokenId, tokenLimited: false, amount: 0, now: now() })).toEqual({ ok: true, amount: 0 });
    const ids = Array.from({ length: 60 }, rid);
    const results = await Promise.all(ids.map((requestId) => reserve(a, { requestId, windows: [w] })));
    const won = ids.filter((_, i) => results[i]!.ok);
    expect(won).toHaveLength(10);
    for (const r of results) if (!r.ok) expect(r).toMatchObject({ who: 'window', block: { account: `t${a.tokenId}`, window: 'day', unit: 'requests', limit: 10 } });
    expect(await windowCounter(H, `t${a.tokenId}`, 'day')).toMatchObject({ quota_used: 10_000, requests_used: 10 });
    // Half settle at 300 (twice each: charged once), half are released.
    for (const id of won.slice(0, 5)) {
      expect(await settle(a, id, 1000, 300)).toEqual({ charged: 300, duplicate: false });
      expect(await settle(a, id, 1000, 300)).toEqual({ charged: 300, duplicate: true });
      expect(await ledger.release(id)).toBe(false);
    }
    for (const id of won.slice(5)) expect(await ledger.release(id)).toBe(true);
    await ledger.release(anchor);
    expect(await windowCounter(H, `t${a.tokenId}`, 'day')).toMatchObject({ quota_used: 1500, requests_used: 5 });
    expect(await quotaOf(a.userId)).toBe(10_000_000 - 1500);
    expect((await reconcile(srv.ctx.db.db)).ok).toBe(true);
  });

  it('two writers (two nodes) racing on one quota window never hold more than the cap, and the counter equals the charges', async () => {
    const a = await account(100_000_000);
    const other = new Ledger(srv.ctx.db, 'other-node', 60);
    const w = window(`u${a.userId}`, { quota: 25_000 });
    const ids = Array.from({ length: 40 }, rid);
    const results = await Promise.all(ids.map((requestId, i) => reserve(a, { requestId, windows: [w], min: 500 }, i % 2 ? other : ledger)));
    const held = results.reduce((s, r) => s + (r.ok ? r.amount : 0), 0);
    expect(held).toBe(25_000);
    expect(await windowCounter(H, `u${a.userId}`, 'day')).toMatchObject({ quota_used: 25_000 });
    await Promise.all(ids.map((id, i) => (results[i]!.ok ? settle(a, id, (results[i] as { amount: number }).amount, 100, {}, i % 3 ? ledger : other) : Promise.resolve(null))));
    const ok = results.filter((r) => r.ok).length;
    expect(await windowCounter(H, `u${a.userId}`, 'day')).toMatchObject({ quota_used: ok * 100, requests_used: ok });
    expect((await reconcile(srv.ctx.db.db)).ok).toBe(true);
  });

  it('subscriptions are drawn in order, then the wallet pays (fall-through) or the request is refused; a refund goes back to the plan it came from', async () => {
    const a = await account(50_000);
    const planA = { id: 9_000_000 + seq, windows: [window(`s${9_000_000 + seq}`, { requests: 1 })] };
    const planB = { id: 9_100_000 + seq, windows: [window(`s${9_100_000 + seq}`, { quota: 1500 })] };
    const plans = [planA, planB];
    const first = await reserve(a, { plans, fallThrough: true });
    expect(first).toMatchObject({ ok: true, amount: 1000, paidBy: planA.id, windows: 1 });
    const second = await reserve(a, { plans, fallThrough: true });
    expect(second).toMatchObject({ ok: true, amount: 1000, paidBy: planB.id });
    // B has 500 left: without a minimum the caller is told to ask again for less.
    const third = await reserve(a, { plans, fallThrough: true });
    expect(third).toMatchObject({ ok: false, who: 'short' });
    const clamped = await reserve(a, { plans, fallThrough: true, min: 200 });
    expect(clamped).toMatchObject({ ok: true, amount: 500, paidBy: planB.id });
    expect(await quotaOf(a.userId)).toBe(50_000);
    // Both exhausted: the wallet pays; refused when the plans do not let it.
    expect(await reserve(a, { plans, fallThrough: true })).toMatchObject({ ok: true, amount: 1000 });
    expect(await quotaOf(a.userId)).toBe(49_000);
    const refused = await reserve(a, { plans, fallThrough: false });
    expect(refused).toMatchObject({ ok: false, who: 'window', block: { account: `s${planA.id}`, unit: 'requests', limit: 1 } });
    // The request A paid for is released: A's window gets it back, the wallet does not move.
    const requests = await srv.ctx.db.db.selectFrom('reservations').select(['request_id', 'paid_by']).where('user_id', '=', a.userId).execute();
    const byA = requests.find((r) => Number(r.paid_by) === planA.id)!;
    expect(await ledger.release(byA.request_id)).toBe(true);
    expect(await windowCounter(H, `s${planA.id}`, 'day')).toMatchObject({ quota_used: 0, requests_used: 0 });
    expect(await quotaOf(a.userId)).toBe(49_000);
    // A plan-paid settle past its reservation: the plan's window takes all of it, the wallet nothing; used_quota counts it.
    const byB = requests.filter((r) => Number(r.paid_by) === planB.id)[0]!;
    expect(await settle(a, byB.request_id, 1000, 1700, { paidBy: planB.id })).toEqual({ charged: 1700, duplicate: false });
    expect(await quotaOf(a.userId)).toBe(49_000);
    const u = await srv.ctx.db.db.selectFrom('users').select(['used_quota', 'request_count']).where('id', '=', a.userId).executeTakeFirstOrThrow();
    expect([Number(u.used_quota), Number(u.request_count)]).toEqual([1700, 1]);
    expect(await windowCounter(H, `s${planB.id}`, 'day')).toMatchObject({ quota_used: 2200, requests_used: 2 });
    for (const r of await srv.ctx.db.db.selectFrom('reservations').select('request_id').where('user_id', '=', a.userId).execute()) await ledger.release(r.request_id);
    expect(await windowCounter(H, `s${planB.id}`, 'day')).toMatchObject({ quota_used: 1700, requests_used: 1 });
    expect(await quotaOf(a.userId)).toBe(50_000);
    expect((await reconcile(srv.ctx.db.db)).ok).toBe(true);
  });

  it('a settle after recovery released the request charges its windows afresh, once; a replayed settle finds the windows from the reservation', async () => {
    const a = await account(1_000_000);
    const w = window(`t${a.tokenId}`, { quota: 100_000, requests: 5 });
    const dead = new Ledger(srv.ctx.db, 'gone-node', 60);
    const lost = rid();
    expect(await reserve(a, { requestId: lost, windows: [w] }, dead)).toMatchObject({ ok: true, windows: 1 });
    // The node is gone: another node's sweep releases what it held once its lease ran out.
    await srv.ctx.db.db.updateTable('reservations').set({ lease_until: 1 }).where('request_id', '=', lost).execute();
    expect(await ledger.recover()).toBe(1);
    expect(await windowCounter(H, `t${a.tokenId}`, 'day')).toMatchObject({ quota_used: 0, requests_used: 0 });
    // It was still running after all: its settle charges afresh, windows included, once.
    expect(await settle(a, lost, 1000, 800, {}, dead)).toEqual({ charged: 800, duplicate: false });
    expect(await settle(a, lost, 1000, 800, {}, dead)).toEqual({ charged: 800, duplicate: true });
    expect(await windowCounter(H, `t${a.tokenId}`, 'day')).toMatchObject({ quota_used: 800, requests_used: 1 });
    // A settle that does not know what was held (a spooled one) reads it from the reservation.
    const replayed = rid();
    expect(await reserve(a, { requestId: replayed, windows: [w] })).toMatchObject({ ok: true });
    expect(await ledger.settle({ requestId: replayed, userId: a.userId, tokenId: a.tokenId, tokenLimited: false, reserved: -1, charge: 250, channelId: 0, responseTimeMs: 0, log: null })).toEqual({ charged: 250, duplicate: false });
    expect(await windowCounter(H, `t${a.tokenId}`, 'day')).toMatchObject({ quota_used: 1050, requests_used: 2 });
    expect(await quotaOf(a.userId)).toBe(1_000_000 - 1050);
    expect((await reconcile(srv.ctx.db.db)).ok).toBe(true);
  });

  it('while the database is away, windows this node saw are decided from its cache (rollover included), unseen ones refused (503); the spool charges them once', async () => {
    const a = await account(1_000_000);
    const away = new Ledger(srv.ctx.db, 'away-node', 60);
    const outage = away.attachOutage({ mode: 'serve', spoolDir: `/tmp/mg-windows-spool-${kind}-${seq}-${randomAlnum(6)}`, timeoutMs: 1000, probeMs: 60_000 }, { warn() {}, info() {}, error() {} });
    outage.balances = () => ({ user: 1_000_000, token: 1_000_000 });
    const cap = window(`t${a.tokenId}`, { requests: 3 });
    // A plan whose counter the node last saw in a period that has ended since: it starts from zero.
    const planId = 9_500_000 + seq;
    const stale = window(`s${planId}`, { quota: 2000 });
    const plan = { id: planId, windows: [{ ...stale, start: now(), end: now() + 3600 }] };
    // Seen through the database: one request on the cap, one the plan paid.
    const seen = rid();
    expect(await reserve(a, { requestId: seen, windows: [cap] }, away)).toMatchObject({ ok: true, windows: 1 });
    expect(await settle(a, seen, 1000, 400, {}, away)).toEqual({ charged: 400, duplicate: false });
    const byPlan = rid();
    expect(await reserve(a, { requestId: byPlan, plans: [{ id: planId, windows: [stale] }] }, away)).toMatchObject({ ok: true, paidBy: planId });
    expect(await settle(a, byPlan, 1000, 1500, { paidBy: planId }, away)).toEqual({ charged: 1500, duplicate: false });
    const wallet = await quotaOf(a.userId);

    outage.enter(new Error('test: the database is away'));
    await expect(reserve(a, { windows: [window(`u${a.userId}`, { requests: 5 })] }, away)).rejects.toBeInstanceOf(DbUnavailableError);
    await expect(reserve(a, { plans: [{ id: 1, windows: [window('s1', { requests: 5 })] }], fallThrough: true }, away)).rejects.toBeInstanceOf(DbUnavailableError);
    // The cap: two more fit, the next is refused with the block the database would give.
    const local = [rid(), rid()];
    for (const requestId of local) expect(await reserve(a, { requestId, windows: [cap] }, away)).toMatchObject({ ok: true, windows: 1 });
    expect(await reserve(a, { windows: [cap] }, away)).toMatchObject({ ok: false, who: 'window', block: { account: `t${a.tokenId}`, unit: 'requests', limit: 3 } });
    expect(await settle(a, local[0]!, 1000, 300, {}, away)).toEqual({ charged: 300, duplicate: false });
    expect(await away.release(local[1]!)).toBe(true);
    // Released: its request is free again locally.
    const last = rid();
    expect(await reserve(a, { requestId: last, windows: [cap] }, away)).toMatchObject({ ok: true });
    expect(await settle(a, last, 1000, 200, {}, away)).toEqual({ charged: 200, duplicate: false });
    // The plan's period has rolled over (2000 left, 500 used before): it pays from zero, clamped to its allowance.
    await srv.ctx.db.db.updateTable('window_counters').set({ period_start: now() - 7200, period_end: now() - 1 }).where('account', '=', `s${planId}`).execute();
    await srv.ctx.db.db.updateTable('window_charges').set({ period_start: now() - 7200 }).where('account', '=', `s${planId}`).execute();
    outage.windows.set(`s${planId}`, 'day', { start: now() - 7200, end: now() - 1, quota: 1500, requests: 1 });
    const planned = rid();
    expect(await reserve(a, { requestId: planned, plans: [plan], amount: 2500, min: 100 }, away)).toMatchObject({ ok: true, amount: 2000, paidBy: planId });
    expect(await reserve(a, { plans: [plan], fallThrough: false }, away)).toMatchObject({ ok: false, who: 'window', block: { account: `s${planId}`, unit: 'quota' } });
    expect(await settle(a, planned, 2000, 1800, { paidBy: planId }, away)).toEqual({ charged: 1800, duplicate: false });

    const files = fs.readdirSync(outage.spool.dir).map((n) => [n, fs.readFileSync(path.join(outage.spool.dir, n))] as const);
    const exact = async () => {
      expect(await windowCounter(H, `t${a.tokenId}`, 'day')).toMatchObject({ quota_used: 900, requests_used: 3 });
      expect(await windowCounter(H, `s${planId}`, 'day')).toMatchObject({ quota_used: 1800, requests_used: 1 });
      // The plan's charge left the wallet alone; the cap's were the wallet's.
      expect(await quotaOf(a.userId)).toBe(wallet - 500);
      const paid = await srv.ctx.db.db.selectFrom('ledger_requests').select('paid_by').where('request_id', '=', planned).executeTakeFirstOrThrow();
      expect(Number(paid.paid_by)).toBe(planId);
      expect((await reconcile(srv.ctx.db.db)).ok).toBe(true);
    };
    // Replayed (the database answers again), then the same files once more: charged once.
    expect(await outage.replay()).toBe(true);
    await exact();
    for (const [name, bytes] of files) fs.writeFileSync(path.join(outage.spool.dir, name), bytes);
    expect(await outage.replay()).toBe(true);
    await exact();
    await outage.close();
  });

  it('the reconciliation names a window whose counter differs from its charges', async () => {
    const a = await account(1_000_000);
    const w = window(`t${a.tokenId}`, { requests: 5 });
    const r = await reserve(a, { windows: [w] });
    expect(r.ok).toBe(true);
    await srv.ctx.db.db.updateTable('window_counters').set({ requests_used: 3 }).where('account', '=', `t${a.tokenId}`).execute();
    const bad = await reconcile(srv.ctx.db.db);
    expect(bad.mismatches).toEqual([{ account: 'window', id: a.tokenId, name: `t${a.tokenId}/day`, field: 'requests_used', expected: 1, actual: 3 }]);
    await srv.ctx.db.db.updateTable('window_counters').set({ requests_used: 1 }).where('account', '=', `t${a.tokenId}`).execute();
    for (const row of await srv.ctx.db.db.selectFrom('reservations').select('request_id').where('user_id', '=', a.userId).execute()) await ledger.release(row.request_id);
    expect((await reconcile(srv.ctx.db.db)).ok).toBe(true);
  });
});
