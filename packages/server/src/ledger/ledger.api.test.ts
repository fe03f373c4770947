import { TokenStatus } from '@modelgate/shared';
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { randomAlnum } from '../modules/users/password.js';
import { ApiClient, rootClient } from '../test-support/api-client.js';
import { testDbKinds } from '../test-support/test-db.js';
import { startTestServer, type TestServer } from '../test-support/test-server.js';
import { Ledger, type LogValues } from './ledger.js';
import { reconcile } from './reconcile.js';

const run = promisify(execFile);

describe.each(testDbKinds())('ledger state machine on %s', (kind) => {
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
    const userId = await ctx.users.insert({ username: `l${randomAlnum(10).toLowerCase()}`, password: 'x', quota: 0, aff_code: randomAlnum(10) });
    await ctx.quotaLedger.move({ kind: 'test', userId, quota });
    const tokenId = await ctx.tokens.insert({ user_id: userId, key: randomAlnum(48), name: 't', status: TokenStatus.Enabled, remain_quota: 0, expired_time: -1 });
    await ctx.quotaLedger.setTokenRemain(tokenId, remain);
    return { userId, tokenId };
  }

  async function state(a: { userId: number; tokenId: number }) {
    const db = srv.ctx.db.db;
    const u = await db.selectFrom('users').select(['quota', 'used_quota', 'request_count']).where('id', '=', a.userId).executeTakeFirstOrThrow();
    const t = await db.selectFrom('tokens').select(['remain_quota', 'used_quota']).where('id', '=', a.tokenId).executeTakeFirstOrThrow();
    const logs = await db.selectFrom('logs').select('quota').where('user_id', '=', a.userId).where('type', '=', 2).execute();
    return {
      quota: Number(u.quota),
      used: Number(u.used_quota),
      requests: Number(u.request_count),
      remain: Number(t.remain_quota),
      tokenUsed: Number(t.used_quota),
      logged: logs.map((l) => Number(l.quota)),
    };
  }

  const rid = () => `test-${kind}-${++seq}-${randomAlnum(6)}`;
  const reserve = (a: { userId: number; tokenId: number }, requestId: string, amount: number, l = ledger) =>
    l.reserve({ requestId, userId: a.userId, tokenId: a.tokenId, tokenLimited: true, amount, now: Math.floor(Date.now() / 1000) });
  const settle = (a: { userId: number; tokenId: number }, requestId: string, charge: number, withLog: boolean, l = ledger) =>
    l.settle({
      requestId,
      userId: a.userId,
      tokenId: a.tokenId,
      tokenLimited: true,
      reserved: 1000,
      charge,
      channelId: 0,
      responseTimeMs: 1,
      log: withLog
        ? (q): LogValues => ({ user_id: a.userId, created_at: 1, type: 2, content: '', username: 'u', token_name: 't', model_name: 'm', quota: q, prompt_tokens: 0, completion_tokens: 0, use_time: 0, is_stream: 0, channel_id: 0, token_id: a.tokenId, group: 'default', other: '{}', request_id: requestId })
        : null,
    });

  for (const withLog of [true, false]) {
    describe(`consume logging ${withLog ? 'on' : 'off'}`, () => {
      it('settle twice: charged once', async () => {
        const a = await account(10_000, 10_000);
        const id = rid();
        expect(await reserve(a, id, 1000)).toEqual({ ok: true, amount: 1000 });
        expect(await settle(a, id, 400, withLog)).toEqual({ charged: 400, duplicate: false });
        expect(await settle(a, id, 400, withLog)).toEqual({ charged: 400, duplicate: true });
        expect(await state(a)).toEqual({ quota: 9600, used: 400, requests: 1, remain: 9600, tokenUsed: 400, logged: withLog ? [400] : [] });
      });

      it('release then settle: the hold comes back, the charge is taken afresh, once', async () => {
        const a = await account(10_000, 10_000);
        const id = rid();
        await reserve(a, id, 1000);
        expect(await ledger.release(id)).toBe(true);
        expect(await state(a)).toMatchObject({ quota: 10_000, remain: 10_000 });
        expect(await settle(a, id, 400, withLog)).toEqual({ charged: 400, duplicate: false });
        expect(await settle(a, id, 400, withLog)).toEqual({ charged: 400, duplicate: true });
        expect(await ledger.release(id)).toBe(false);
        expect(await state(a)).toEqual({ quota: 9600, used: 400, requests: 1, remain: 9600, tokenUsed: 400, logged: withLog ? [400] : [] });
      });

      it('settle then release: the release changes nothing; a reserve of a finished id takes nothing', async () => {
        const a = await account(10_000, 10_000);
        const id = rid();
        await reserve(a, id, 1000);
        await settle(a, id, 700, withLog);
        expect(await ledger.release(id)).toBe(false);
        expect(await reserve(a, id, 1000)).toEqual({ ok: false, who: 'finished', available: -1 });
        expect(await state(a)).toEqual({ quota: 9300, used: 700, requests: 1, remain: 9300, tokenUsed: 700, logged: withLog ? [700] : [] });
      });

      it('two nodes racing settle and release on the same requests: one outcome each', async () => {
        const a = await account(100_000, 100_000);
        const other = new Ledger(srv.ctx.db, 'other-node', 60);
        const ids = Array.from({ length: 20 }, rid);
        for (const id of ids) await reserve(a, id, 1000);
        await Promise.all(ids.flatMap((id) => [settle(a, id, 300, withLog), settle(a, id, 300, withLog, other), other.release(id), ledger.release(id)]));
        const s = await state(a);
        // Each request ended settled (300) or, if a release won first, settled afresh by a later settle (300).
        expect(s).toMatchObject({ quota: 100_000 - 20 * 300, used: 20 * 300, requests: 20, remain: 100_000 - 20 * 300, tokenUsed: 20 * 300 });
        expect(s.logged).toHaveLength(withLog ? 20 : 0);
        expect(await srv.ctx.db.db.selectFrom('reservations').selectAll().where('user_id', '=', a.userId).execute()).toHaveLength(0);
        expect((await reconcile(srv.ctx.db.db)).ok).toBe(true);
      });
    });
  }

  it('a clamped reserve takes what remains (≥ min) under a lock; nothing left is refused', async () => {
    const a = await account(700, 500);
    const full = await ledger.reserve({ requestId: rid(), userId: a.userId, tokenId: a.tokenId, tokenLimited: true, amount: 2000, min: 100, now: 1 });
    expect(full).toEqual({ ok: true, amount: 500 });
    expect(await ledger.reserve({ requestId: rid(), userId: a.userId, tokenId: a.tokenId, tokenLimited: true, amount: 2000, min: 100, now: 1 })).toEqual({ ok: false, who: 'token', available: 0 });
    expect(await state(a)).toMatchObject({ quota: 200, remain: 0 });
  });

  it('quota movements: an external reference applies once, a balance never goes negative, admin sets are differences', async () => {
    const a = await account(1000, 0);
    const q = srv.ctx.quotaLedger;
    expect(await q.move({ kind: 'topup', userId: a.userId, quota: 500, ref: 'trade-1' })).toBe('applied');
    expect(await q.move({ kind: 'topup', userId: a.userId, quota: 500, ref: 'trade-1' })).toBe('duplicate');
    expect(await q.move({ kind: 'admin', userId: a.userId, quota: -5000 })).toBe('insufficient');
    expect(await q.setUserQuota(a.userId, 200, 1)).toBe(1500);
    await expect(q.move({ kind: 'admin', userId: a.userId, quota: 1.5 })).rejects.toThrow(/safe integer/);
    expect((await state(a)).quota).toBe(200);
    expect((await reconcile(srv.ctx.db.db)).ok).toBe(true);
  });

  it('reconciliation names an account whose balance was changed outside the ledger', async () => {
    const a = await account(1000, 1000);
    await srv.ctx.db.db.updateTable('users').set({ quota: 1234 }).where('id', '=', a.userId).execute();
    const r = await reconcile(srv.ctx.db.db);
    expect(r.ok).toBe(false);
    expect(r.mismatches).toEqual([expect.objectContaining({ account: 'user', id: a.userId, field: 'quota', expected: 1000, actual: 1234 })]);
    const root = await rootClient(srv.url);
    const api = await root.get('/api/ledger/check');
    expect(api.body).toMatchObject({ success: true, data: { ok: false, mismatches: [expect.objectContaining({ id: a.userId })] } });
    expect(api.body.data.lines.at(-1)).toMatch(/does NOT reconcile/);
    await srv.ctx.db.db.updateTable('users').set({ quota: 1000 }).where('id', '=', a.userId).execute();
    expect((await root.get('/api/ledger/check')).body.data.ok).toBe(true);
    const anon = await new ApiClient(srv.url).get('/api/ledger/check');
    expect(anon.status).toBe(401);
  });

  it.runIf(kind === 'sqlite')('npm run ledger:check exits 0 on a reconciling database and 1 naming the account otherwise', async () => {
    const a = await account(1000, 1000);
    const env = { ...process.env, SQLITE_PATH: srv.ctx.config.sqlitePath, SQL_DSN: '' };
    const cli = new URL('../../dist/ledger/cli.js', import.meta.url).pathname;
    const good = await run(process.execPath, [cli], { env });
    expect(good.stdout).toMatch(/ledger reconciles/);
    await srv.ctx.db.db.updateTable('tokens').set({ remain_quota: 999 }).where('id', '=', a.tokenId).execute();
    const bad = await run(process.execPath, [cli, '--fix-report'], { env }).catch((e: { code: number; stdout: string }) => e);
    expect(bad).toMatchObject({ code: 1 });
    expect((bad as { stdout: string }).stdout).toMatch(new RegExp(`MISMATCH token #${a.tokenId} .*remain_quota: ledger says 1000, stored 999`));
    await srv.ctx.db.db.updateTable('tokens').set({ remain_quota: 1000 }).where('id', '=', a.tokenId).execute();
  });

  // The group commit (ledger-writer.ts, batch.ts): concurrent operations share a transaction, and a
  // balance several of them move is decided in memory under the batch's lock. Each test holds one
  // request open first (on SQLite a lone operation is committed at once), then fires many at once
  // against balances that cannot cover them all: the result must be exactly what one-by-one
  // conditional writes give.
  async function balances(a: { userId: number; tokenId: number }) {
    const db = srv.ctx.db.db;
    const u = await db.selectFrom('users').select(['quota', 'used_quota', 'request_count']).where('id', '=', a.userId).executeTakeFirstOrThrow();
    const t = await db.selectFrom('tokens').select(['remain_quota', 'used_quota']).where('id', '=', a.tokenId).executeTakeFirstOrThrow();
    const logs = await db.selectFrom('logs').select(({ fn }) => fn.sum<number>('quota').as('q')).where('user_id', '=', a.userId).where('type', '=', 2).executeTakeFirst();
    const held = await db.selectFrom('reservations').select(({ fn }) => fn.countAll<number>().as('n')).where('user_id', '=', a.userId).executeTakeFirst();
    return { quota: Number(u.quota), used: Number(u.used_quota), requests: Number(u.request_count), remain: Number(t.remain_quota), tokenUsed: Number(t.used_quota), logged: Number(logs?.q ?? 0), held: Number(held?.n ?? 0) };
  }

  /** `reserve` with a minimum (a clamped reserve) and another writer. */
  const reserveMin = (a: { userId: number; tokenId: number }, requestId: string, amount: number, min?: number, l = ledger) =>
    l.reserve({ requestId, userId: a.userId, tokenId: a.tokenId, tokenLimited: true, amount, min, now: Math.floor(Date.now() / 1000) });

  it('group commit: 60 concurrent reserves against a balance for 10 take exactly 10, in shared transactions; settles and releases are exact', async () => {
    const a = await account(10_000, 1_000_000);
    // One open request, so the SQLite writer waits a turn and groups what arrives meanwhile.
    const anchor = rid();
    expect(await reserveMin(a, anchor, 1000)).toEqual({ ok: true, amount: 1000 });
    const before = { ...ledger.batchStats };
    const ids = Array.from({ length: 60 }, rid);
    const results = await Promise.all(ids.map((id) => reserveMin(a, id, 1000)));
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
    const settled = await Promise.all(won.map((id, i) => settle(a, id, charges[i]!, true)));
    expect(settled).toEqual(charges.map((c) => ({ charged: c, duplicate: false })));
    const charged = charges.reduce((s, c) => s + c, 0);
    expect(await ledger.release(anchor)).toBe(true);
    expect(await balances(a)).toEqual({ quota: 10_000 - charged, used: charged, requests: 9, remain: 1_000_000 - charged, tokenUsed: charged, logged: charged, held: 0 });
  });

  it('group commit: clamped reserves in one batch: full amounts while they fit, then what remains if it covers the minimum, then refusals', async () => {
    const a = await account(2_500, 1_000_000);
    const anchor = rid();
    expect(await reserveMin(a, anchor, 0)).toEqual({ ok: true, amount: 0 });
    const ids = Array.from({ length: 8 }, rid);
    const results = await Promise.all(ids.map((id) => reserveMin(a, id, 1000, 200)));
    const amounts = results.map((r) => (r.ok ? r.amount : 0)).sort((x, y) => y - x);
    expect(amounts).toEqual([1000, 1000, 500, 0, 0, 0, 0, 0]);
    expect(await balances(a)).toMatchObject({ quota: 0, remain: 1_000_000 - 2_500, held: 4 });
    await Promise.all([anchor, ...ids].map((id) => ledger.release(id)));
    expect(await balances(a)).toMatchObject({ quota: 2_500, used: 0, remain: 1_000_000, held: 0 });
  });

  it('group commit: two writers (two nodes) racing on the same accounts and request ids: every id settles once, nothing is overdrawn, the ledger reconciles', async () => {
    const a = await account(20_000, 15_000);
    const other = new Ledger(srv.ctx.db, `${kind}-gc-other`, 60);
    const anchors = [rid(), rid()];
    await reserveMin(a, anchors[0]!, 0);
    await reserveMin(a, anchors[1]!, 0, undefined, other);
    const ids = Array.from({ length: 40 }, rid);
    const held = await Promise.all(ids.map((id, i) => reserveMin(a, id, 1000, undefined, i % 2 ? other : ledger)));
    const won = ids.filter((_, i) => held[i]!.ok);
    // The token's limit (15 000) is the tighter one.
    expect(won).toHaveLength(15);
    // Each id settled by both writers at once and released by one: exactly one outcome each.
    await Promise.all(won.flatMap((id) => [settle(a, id, 700, true), settle(a, id, 700, true, other), other.release(id)]));
    await Promise.all([ledger.release(anchors[0]!), other.release(anchors[1]!)]);
    // Whichever came first, each id ends settled once at 700 (a release first gives the hold back and the settle charges afresh).
    expect(await balances(a)).toEqual({ quota: 20_000 - 10_500, used: 10_500, requests: 15, remain: 15_000 - 10_500, tokenUsed: 10_500, logged: 10_500, held: 0 });
    expect((await reconcile(srv.ctx.db.db)).ok).toBe(true);
  });
});
