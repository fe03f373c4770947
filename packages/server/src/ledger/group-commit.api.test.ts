import { TokenStatus } from '@modelgate/shared';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { randomAlnum } from '../modules/users/password.js';
import { testDbKinds } from '../test-support/test-db.js';
import { startTestServer, type TestServer } from '../test-support/test-server.js';
import { Ledger, type LogValues } from './ledger.js';
import { reconcile } from './reconcile.js';

/**
 * The group commit (ledger-writer.ts, batch.ts): concurrent operations share a transaction, and a
 * balance several of them move is decided in memory under the batch's lock. These tests hold one
 * request open first (on SQLite a lone operation is committed at once), then fire many at once
 * against balances that cannot cover them all, and check the result is exactly what one-by-one
 * conditional writes would give.
 */
describe.each(testDbKinds())('ledger group commit on %s', (kind) => {
  let srv: TestServer;
  let ledger: Ledger;
  let seq = 0;

  beforeAll(async () => {
    srv = await startTestServer({ kind });
    ledger = srv.ctx.relay.ledger;
  });
  afterAll(() => srv.close());

  async function account(quota: number, remain: number) {
    const ctx = srv.ctx;
    const userId = await ctx.users.insert({ username: `g${randomAlnum(10).toLowerCase()}`, password: 'x', quota: 0, aff_code: randomAlnum(10) });
    await ctx.quotaLedger.move({ kind: 'test', userId, quota });
    const tokenId = await ctx.tokens.insert({ user_id: userId, key: randomAlnum(48), name: 't', status: TokenStatus.Enabled, remain_quota: 0, expired_time: -1 });
    await ctx.quotaLedger.setTokenRemain(tokenId, remain);
    return { userId, tokenId };
  }

  async function balances(a: { userId: number; tokenId: number }) {
    const db = srv.ctx.db.db;
    const u = await db.selectFrom('users').select(['quota', 'used_quota', 'request_count']).where('id', '=', a.userId).executeTakeFirstOrThrow();
    const t = await db.selectFrom('tokens').select(['remain_quota', 'used_quota']).where('id', '=', a.tokenId).executeTakeFirstOrThrow();
    const logs = await db.selectFrom('logs').select(({ fn }) => fn.sum<number>('quota').as('q')).where('user_id', '=', a.userId).where('type', '=', 2).executeTakeFirst();
    const held = await db.selectFrom('reservations').select(({ fn }) => fn.countAll<number>().as('n')).where('user_id', '=', a.userId).executeTakeFirst();
    return { quota: Number(u.quota), used: Number(u.used_quota), requests: Number(u.request_count), remain: Number(t.remain_quota), tokenUsed: Number(t.used_quota), logged: Number(logs?.q ?? 0), held: Number(held?.n ?? 0) };
  }

  const rid = () => `gc-${kind}-${++seq}-${randomAlnum(6)}`;
  const now = () => Math.floor(Date.now() / 1000);
  type Acc = { userId: number; tokenId: number };
  const reserve = (a: Acc, requestId: string, amount: number, min?: number, l = ledger) =>
    l.reserve({ requestId, userId: a.userId, tokenId: a.tokenId, tokenLimited: true, amount, min, now: now() });
  const log = (a: Acc, requestId: string) => (q: number): LogValues => ({
    user_id: a.userId, created_at: now(), type: 2, content: '', username: 'u', token_name: 't', model_name: 'm', quota: q, prompt_tokens: 0,
    completion_tokens: 0, use_time: 0, is_stream: 0, channel_id: 0, token_id: a.tokenId, group: 'default', other: '{}', request_id: requestId,
  });
  const settle = (a: Acc, requestId: string, reserved: number, charge: number, l = ledger) =>
    l.settle({ requestId, userId: a.userId, tokenId: a.tokenId, tokenLimited: true, reserved, charge, channelId: 0, responseTimeMs: 1, log: log(a, requestId) });

  it('60 concurrent reserves against a balance for 10 take exactly 10, in shared transactions; settles and releases are exact', async () => {
    const a = await account(10_000, 1_000_000);
    // One open request, so the SQLite writer waits a turn and groups what arrives meanwhile.
    const anchor = rid();
    expect(await reserve(a, anchor, 1000)).toEqual({ ok: true, amount: 1000 });
    const before = { ...ledger.batchStats };
    const ids = Array.from({ length: 60 }, rid);
    const results = await Promise.all(ids.map((id) => reserve(a, id, 1000)));
    const won = ids.filter((_, i) => results[i]!.ok);
    expect(won).toHaveLength(9);
    expect(results.filter((r) => !r.ok).every((r) => !r.ok && r.who === 'user')).toBe(true);
    const batches = ledger.batchStats.batches - before.batches;
    expect(ledger.batchStats.operations - before.operations).toBe(60);
    expect(batches).toBeLessThan(60);
    expect(await balances(a)).toMatchObject({ quota: 0, remain: 1_000_000 - 10_000, held: 10 });

    // Settle each at a different cost, cheapest first (in one batch they run in that order): the
    // refunds of the cheap ones come back before the dear ones overrun what they hold, so every one
    // is paid in full although the user had nothing left when they started.
    const charges = won.map((_, i) => 500 + i * 100);
    const settled = await Promise.all(won.map((id, i) => settle(a, id, 1000, charges[i]!)));
    expect(settled).toEqual(charges.map((c) => ({ charged: c, duplicate: false })));
    const charged = charges.reduce((s, c) => s + c, 0);
    expect(await ledger.release(anchor)).toBe(true);
    expect(await balances(a)).toEqual({ quota: 10_000 - charged, used: charged, requests: 9, remain: 1_000_000 - charged, tokenUsed: charged, logged: charged, held: 0 });
  });

  it('clamped reserves in one batch: full amounts while they fit, then what remains if it covers the minimum, then refusals', async () => {
    const a = await account(2_500, 1_000_000);
    const anchor = rid();
    expect(await reserve(a, anchor, 0)).toEqual({ ok: true, amount: 0 });
    const ids = Array.from({ length: 8 }, rid);
    const results = await Promise.all(ids.map((id) => reserve(a, id, 1000, 200)));
    const amounts = results.map((r) => (r.ok ? r.amount : 0)).sort((x, y) => y - x);
    expect(amounts).toEqual([1000, 1000, 500, 0, 0, 0, 0, 0]);
    expect(await balances(a)).toMatchObject({ quota: 0, remain: 1_000_000 - 2_500, held: 4 });
    await Promise.all([anchor, ...ids].map((id) => ledger.release(id)));
    expect(await balances(a)).toMatchObject({ quota: 2_500, used: 0, remain: 1_000_000, held: 0 });
  });

  it('two writers (two nodes) racing on the same accounts and request ids: every id settles once, nothing is overdrawn, the ledger reconciles', async () => {
    const a = await account(20_000, 15_000);
    const other = new Ledger(srv.ctx.db, `${kind}-other`, 60);
    const anchors = [rid(), rid()];
    await reserve(a, anchors[0]!, 0);
    await reserve(a, anchors[1]!, 0, undefined, other);
    const ids = Array.from({ length: 40 }, rid);
    const held = await Promise.all(ids.map((id, i) => reserve(a, id, 1000, undefined, i % 2 ? other : ledger)));
    const won = ids.filter((_, i) => held[i]!.ok);
    // The token's limit (15 000) is the tighter one.
    expect(won).toHaveLength(15);
    // Each id settled by both writers at once and released by one: exactly one outcome each.
    await Promise.all(won.flatMap((id) => [settle(a, id, 1000, 700), settle(a, id, 1000, 700, other), other.release(id)]));
    await Promise.all([ledger.release(anchors[0]!), other.release(anchors[1]!)]);
    // Whichever came first, each id ends settled once at 700 (a release first gives the hold back and the settle charges afresh).
    expect(await balances(a)).toEqual({ quota: 20_000 - 10_500, used: 10_500, requests: 15, remain: 15_000 - 10_500, tokenUsed: 10_500, logged: 10_500, held: 0 });
    expect((await reconcile(srv.ctx.db.db)).ok).toBe(true);
  });
});
