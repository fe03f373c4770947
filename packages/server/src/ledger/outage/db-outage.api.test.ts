import Database from 'better-sqlite3';
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { multiNodeDbKinds } from '../../test-support/multinode.js';
import { outageHarness } from '../../test-support/outage.js';
import { addCaller, balances, expectChargedFor, type TestCaller } from '../../test-support/relay-fixtures.js';
import { until } from '../../test-support/text.js';

/**
 * Issue 38 item 2: a 30-second database outage is served without a 500. Callers this node has
 * cached keep being answered (their cache entries expire meanwhile: SYNC_FREQUENCY is 2 s here),
 * each charge goes to the node's fsync'd spool, and when the database is back the spool is replayed
 * exactly once: every answer charged once, balances and logs exact, the ledger reconciled (the
 * harness checks it on close). A caller the node has not seen is told 503 with Retry-After, the
 * console answers 503 with a message, `/readyz` says "degraded".
 */

const OUTAGE_MS = 30_000;
const MODEL = 'm-db-outage';

describe.each(multiNodeDbKinds())('a database outage on %s', (kind) => {
  const setup = outageHarness(kind, { SYNC_FREQUENCY: '2' }, MODEL);

  it('serves cached callers for 30 s with their charges spooled, then replays them exactly once', { timeout: 120_000 }, async () => {
    const h = setup.h();
    const proxy = setup.proxy();
    const ctx = h.server.ctx;
    const outage = ctx.relay.ledger.outage!;
    const a = await addCaller(h);
    // A small balance: during the outage it is spent down to what the cache says is left, never past it.
    const small = await addCaller(h, { quota: 3_000, remain: 1_000_000 });
    const cold = await addCaller(h);
    const beforeA = await balances(h, a);
    const beforeSmall = await balances(h, small);
    const ask = (c: TestCaller, i: number) => c.client.chat.completions.create({ model: MODEL, max_tokens: 16, messages: [{ role: 'user', content: `question ${i}` }] });
    const askStream = async (c: TestCaller, i: number) => {
      let text = '';
      for await (const chunk of await c.client.chat.completions.create({ model: MODEL, stream: true, messages: [{ role: 'user', content: `stream ${i}` }] })) {
        text += chunk.choices[0]?.delta?.content ?? '';
      }
      return text;
    };
    await ask(a, 0);
    await ask(small, 0);
    let answersA = 1;
    let answersSmall = 1;

    proxy.cut();
    const started = Date.now();
    const failures: unknown[] = [];
    // Four callers' loops at once for the whole outage, half of them streaming.
    const loops = [0, 1, 2, 3].map(async (loop) => {
      for (let i = 1; Date.now() - started < OUTAGE_MS; i++) {
        try {
          if (loop % 2) expect(await askStream(a, i)).toBeTruthy();
          else expect((await ask(a, i)).choices[0]!.message.content).toBeTruthy();
          answersA += 1;
        } catch (err) {
          failures.push(err);
        }
        await new Promise((r) => setTimeout(r, 20));
      }
    });
    await until(() => outage.active, 10_000);

    // The small balance: answered while the cached balance covers a reservation, then refused as spent.
    let refusedSmall: { status?: number; code?: string } | undefined;
    for (let i = 1; i < 1_000 && !refusedSmall; i++) {
      try {
        await ask(small, i);
        answersSmall += 1;
      } catch (err) {
        refusedSmall = err as { status?: number; code?: string };
      }
    }
    // What is left no longer covers a reservation (400 pre-consume, or 403 once nothing is left).
    expect(['pre_consume_token_quota_failed', 'insufficient_user_quota']).toContain(refusedSmall?.code);

    // A caller this node never saw cannot be checked: 503 with Retry-After, in the OpenAI shape.
    const coldRes = await fetch(`${h.server.url}/v1/chat/completions`, {
      method: 'POST',
      headers: { authorization: `Bearer sk-${cold.key}`, 'content-type': 'application/json' },
      body: JSON.stringify({ model: MODEL, messages: [{ role: 'user', content: 'hi' }] }),
    });
    expect(coldRes.status).toBe(503);
    // Random keys during the outage cost no database round trip either: each is refused at once.
    const random = await fetch(`${h.server.url}/v1/chat/completions`, { method: 'POST', headers: { authorization: 'Bearer sk-not-a-key', 'content-type': 'application/json' }, body: '{}' });
    expect(random.status).toBe(503);
    expect(coldRes.headers.get('retry-after')).toBe('5');
    expect(((await coldRes.json()) as { error: { code: string; message: string } }).error).toMatchObject({ code: 'database_unavailable' });

    // The console: 503 with a message, not a 500.
    const self = await fetch(`${h.server.url}/api/user/self`, { headers: { cookie: h.root.cookie, 'new-api-user': '1', 'accept-language': 'en' } });
    expect(self.status).toBe(503);
    expect(await self.json()).toEqual({ success: false, message: 'The database is unavailable right now, please retry shortly (API calls keep working)' });
    const metrics = await ctx.metrics.registry.metrics();
    expect(metrics).toContain('modelgate_database_outage 1');
    expect(metrics).toMatch(/modelgate_ledger_spooled_entries [1-9]/);
    const ready = await fetch(`${h.server.url}/readyz`);
    expect(ready.status).toBe(200);
    expect(await ready.json()).toMatchObject({ status: 'degraded', checks: { database: expect.not.stringMatching(/^ok$/) }, spooled: expect.any(Number) });

    await Promise.all(loops);
    expect(failures).toEqual([]);
    expect(outage.stats.spooled).toBeGreaterThanOrEqual(answersA - 1);

    // What is on disk now, to replay a second time below (as after a crash mid-replay).
    const spooled = fs.readdirSync(outage.spool.dir).map((n) => [n, fs.readFileSync(path.join(outage.spool.dir, n))] as const);
    expect(spooled.length).toBeGreaterThan(0);

    proxy.restore();
    await until(() => !outage.active && outage.spool.size === 0, 30_000);
    expect((await (await fetch(`${h.server.url}/readyz`)).json()) as object).toMatchObject({ status: 'ready' });

    // Every answer charged exactly once, the user's and the token's balances down by the logs' sum.
    expect(await expectChargedFor(h, a, beforeA, answersA)).toBeGreaterThan(0);
    const chargedSmall = await expectChargedFor(h, small, beforeSmall, answersSmall);
    expect(chargedSmall).toBeLessThanOrEqual(3_000);
    const after = await balances(h, small);
    expect(after.quota).toBeGreaterThanOrEqual(0);
    const requests = await ctx.db.db.selectFrom('ledger_requests').select(['request_id', 'shortfall']).where('user_id', 'in', [a.userId, small.userId]).execute();
    expect(requests).toHaveLength(answersA + answersSmall);
    expect(requests.every((r) => Number(r.shortfall) === 0)).toBe(true);
    // The same entries replayed again (a crash before the replayed file was deleted) move nothing.
    const settledA = await balances(h, a);
    for (const [name, bytes] of spooled) fs.writeFileSync(path.join(outage.spool.dir, name), bytes);
    const again = outage.stats.replayed;
    expect(await outage.replay()).toBe(true);
    expect(outage.stats.replayed - again).toBeGreaterThanOrEqual(answersA - 1);
    expect(await balances(h, a)).toEqual(settledA);
    expect(await expectChargedFor(h, a, beforeA, answersA)).toBeGreaterThan(0);
  });
});

describe.runIf(process.env.TEST_PG_URL)('a database that stops answering (PostgreSQL blackholed)', () => {
  const setup = outageHarness('postgres', { SYNC_FREQUENCY: '2' }, MODEL);

  it('answers within the write timeout, serves on, and charges each answer once when the hung writes finish too', { timeout: 90_000 }, async () => {
    const h = setup.h();
    const proxy = setup.proxy();
    const outage = h.server.ctx.relay.ledger.outage!;
    const c = await addCaller(h);
    const before = await balances(h, c);
    const ask = (i: number) => c.client.chat.completions.create({ model: MODEL, max_tokens: 8, messages: [{ role: 'user', content: `b${i}` }] });
    await ask(0);
    let answers = 1;
    // Writes in flight when the database stops answering hang; each request waits at most the timeout.
    proxy.blackhole();
    const started = Date.now();
    const loops = [0, 1, 2].map(async (loop) => {
      for (let i = 1; Date.now() - started < 12_000; i++) {
        const t = Date.now();
        await ask(loop * 1000 + i);
        expect(Date.now() - t).toBeLessThan(outage.config.timeoutMs + 2_000);
        answers += 1;
      }
    });
    await Promise.all(loops);
    expect(outage.active).toBe(true);
    // The hung connections deliver their writes late: they and the replay must still add up to one charge each.
    proxy.restore();
    await until(() => !outage.active && outage.spool.size === 0, 40_000);
    await until(async () => (await h.server.ctx.db.db.selectFrom('reservations').selectAll().execute()).length === 0, 20_000);
    await expectChargedFor(h, c, before, answers);
  });
});

describe('a SQLite file another process keeps locked', () => {
  const setup = outageHarness('sqlite', { SYNC_FREQUENCY: '2' }, MODEL);

  it('serves from the caches while the write lock is held elsewhere, then replays each charge once', { timeout: 90_000 }, async () => {
    const h = setup.h();
    const outage = h.server.ctx.relay.ledger.outage!;
    // The first write after the lock is taken waits out SQLite's 5 s busy timeout with the event loop
    // blocked (better-sqlite3 is synchronous); the in-process fake upstream's keep-alive timer fires in
    // that pause and may close the pooled connection the next upstream call picks: one retry covers it.
    const c = await addCaller(h, { maxRetries: 1 });
    const before = await balances(h, c);
    const ask = (i: number) => c.client.chat.completions.create({ model: MODEL, max_tokens: 8, messages: [{ role: 'user', content: `l${i}` }] });
    await ask(0);
    let answers = 1;
    // Another connection (as a backup tool or a second process would) takes the file's write lock and keeps it.
    const other = new Database(h.server.ctx.config.sqlitePath);
    other.exec('BEGIN IMMEDIATE');
    try {
      const started = Date.now();
      for (let i = 1; Date.now() - started < 12_000; i++) {
        expect((await ask(i)).choices[0]!.message.content).toBeTruthy();
        answers += 1;
      }
      expect(outage.active).toBe(true);
      expect(outage.spool.size).toBeGreaterThan(0);
    } finally {
      other.exec('ROLLBACK');
      other.close();
    }
    await until(() => !outage.active && outage.spool.size === 0, 20_000);
    await expectChargedFor(h, c, before, answers);
  });
});

describe.each(multiNodeDbKinds())('DB_OUTAGE_MODE=refuse on %s', (kind) => {
  const setup = outageHarness(kind, { DB_OUTAGE_MODE: 'refuse' }, MODEL);

  it('refuses new relay requests with 503 and Retry-After while the database is away, and is not ready', async () => {
    const h = setup.h();
    const proxy = setup.proxy();
    const c = await addCaller(h);
    const before = await balances(h, c);
    const ask = () => c.client.chat.completions.create({ model: MODEL, messages: [{ role: 'user', content: 'hi' }] });
    await ask();
    proxy.cut();
    await expect(ask()).rejects.toMatchObject({ status: 503, code: 'database_unavailable' });
    const ready = await fetch(`${h.server.url}/readyz`);
    expect(ready.status).toBe(503);
    expect(await ready.json()).toMatchObject({ status: 'unavailable' });
    proxy.restore();
    await until(async () => (await ask().then(() => true, () => false)), 20_000);
    // The refused request cost nothing; the two answers are charged once each.
    await expectChargedFor(h, c, before, 2);
  });
});
