import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { SqlKind } from '../../config/config.js';
import { runLogRetention } from '../../jobs/log-retention.job.js';
import { runQuotaDataExport } from '../../jobs/quota-data.job.js';
import { reconcile } from '../../ledger/reconcile.js';
import { rootClient } from '../../test-support/api-client.js';
import { waitForAudit } from '../../test-support/audit.js';
import { multiNodeDbKinds } from '../../test-support/multinode.js';
import { addCaller, addChannel, balances, consumeLogs, type RelayHarness } from '../../test-support/relay-fixtures.js';
import { startTestServer } from '../../test-support/test-server.js';
import { startFakeOpenAI, startFaultProxy, type FaultProxy } from '@modelgate/testkit';
import { LogShipper } from './log-outbox.js';

/**
 * LOG_SQL_DSN (issue 36): the usage log, the quota data and the audit log in a database of their
 * own, reached through a proxy the tests cut to play an outage of that database.
 */
const logKinds = multiNodeDbKinds();
/** [main database, log database]: each server kind with a log database of its own kind, and SQLite with one. */
const pairs: Array<[SqlKind, Exclude<SqlKind, 'sqlite'>]> = [...logKinds.map((k) => [k, k] as [SqlKind, Exclude<SqlKind, 'sqlite'>]), ...logKinds.slice(0, 1).map((k) => ['sqlite', k] as [SqlKind, Exclude<SqlKind, 'sqlite'>])];

describe.each(pairs)('a %s database with a separate %s log database', (kind, logKind) => {
  let h: RelayHarness;
  let proxy: FaultProxy;
  const messages = [{ role: 'user' as const, content: 'Hello there friend' }];

  beforeAll(async () => {
    const target = logKind === 'postgres' ? process.env.TEST_PG_URL! : process.env.TEST_MYSQL_URL!;
    proxy = await startFaultProxy(target);
    const server = await startTestServer({ kind, logKind, logDsn: (dsn) => proxy.url(dsn) });
    const fake = await startFakeOpenAI();
    h = { server, fake, root: await rootClient(server.url), close: async () => (await fake.close(), await server.close()) };
    await addChannel(h.root, { name: 'main', base_url: h.fake.url, models: 'gpt-4o-mini' });
  });
  afterAll(async () => {
    proxy.restore();
    await h?.close();
    await proxy?.close();
  });

  const shipper = () => h.server.ctx.logShipper!;
  const mainLogs = async () => Number((await h.server.ctx.db.db.selectFrom('logs').select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow()).n);

  it('writes consume rows to the log database once, through the outbox, with the exact charge', async () => {
    expect(h.server.ctx.logDb).not.toBe(h.server.ctx.db);
    const c = await addCaller(h);
    const before = await balances(h, c);
    await c.client.chat.completions.create({ model: 'gpt-4o-mini', messages });
    await c.client.chat.completions.create({ model: 'gpt-4o-mini', messages, stream: true }).then(async (s) => {
      for await (const chunk of s) void chunk;
    });
    const after = await balances(h, c);
    const spent = before.quota - after.quota;
    expect(spent).toBeGreaterThan(0);
    expect(before.remain - after.remain).toBe(spent);
    expect(after.userUsed - before.userUsed).toBe(spent);
    expect(after.tokenUsed - before.tokenUsed).toBe(spent);

    await shipper().drain();
    const rows = await consumeLogs(h, c.userId);
    expect(rows).toHaveLength(2);
    expect(rows.reduce((s, r) => s + Number(r.quota), 0)).toBe(spent);
    expect(new Set(rows.map((r) => r.request_id)).size).toBe(2);
    // Nothing in the main database's own log table; nothing left waiting.
    expect(await mainLogs()).toBe(0);
    expect(await shipper().pending()).toBe(0);

    // The console reads the log database.
    const user = await h.root.get(`/api/log/?p=1&page_size=10&type=2&username=&token_name=&model_name=&start_timestamp=0&end_timestamp=${Math.floor(Date.now() / 1000) + 60}`);
    expect(user.body.success).toBe(true);
    const items = (user.body.data as { items: Array<{ user_id: number; quota: number }> }).items.filter((i) => i.user_id === c.userId);
    expect(items.map((i) => i.quota).reduce((a, b) => a + b, 0)).toBe(spent);
  });

  it('sums the dashboard\'s hourly figures from the log database, into the log database', async () => {
    const c = await addCaller(h);
    await c.client.chat.completions.create({ model: 'gpt-4o-mini', messages });
    await shipper().drain();
    await h.server.ctx.options.set('DataExportEnabled', 'true');
    expect(await runQuotaDataExport(h.server.ctx)).toBeGreaterThan(0);
    const mine = await h.server.ctx.logDb.db.selectFrom('quota_data').selectAll().where('user_id', '=', c.userId).execute();
    expect(mine.map((r) => [Number(r.count), Number(r.quota)])).toEqual([[1, (await consumeLogs(h, c.userId)).reduce((s, r) => s + Number(r.quota), 0)]]);
    expect(await h.server.ctx.db.db.selectFrom('quota_data').select('id').execute()).toHaveLength(0);
    const res = await h.root.get(`/api/data/?start_timestamp=0&end_timestamp=${Math.floor(Date.now() / 1000) + 7200}`);
    expect(res.body.success).toBe(true);
    expect((res.body.data as Array<{ count: number }>).reduce((s, r) => s + r.count, 0)).toBeGreaterThan(0);
  });

  it('applies LogRetentionDays to the log database', async () => {
    const now = Math.floor(Date.now() / 1000);
    const old = { user_id: 999_999, created_at: now - 40 * 86400, type: 2, content: 'old', other: '{}' };
    await h.server.ctx.logDb.db.insertInto('logs').values([old, { ...old, created_at: now, content: 'new' }]).execute();
    await h.server.ctx.options.set('LogRetentionDays', '30');
    try {
      expect(await runLogRetention(h.server.ctx, undefined, now)).toBeGreaterThanOrEqual(1);
      const left = await h.server.ctx.logDb.db.selectFrom('logs').select('content').where('user_id', '=', 999_999).execute();
      expect(left.map((r) => r.content)).toEqual(['new']);
    } finally {
      await h.server.ctx.options.set('LogRetentionDays', '0');
    }
  });

  it('moves top-up and manage rows and audit entries there too', async () => {
    const c = await addCaller(h);
    const res = await h.root.put('/api/user/', { id: c.userId, add_quota: 1234 });
    expect(res.body.success).toBe(true);
    await shipper().drain();
    const manage = await h.server.ctx.logDb.db.selectFrom('logs').selectAll().where('user_id', '=', c.userId).where('type', '=', 3).execute();
    expect(manage).toHaveLength(1);
    // Audit rows leave the request path first (the audit writer), then wait in the outbox.
    const entry = await (async () => {
      for (let i = 0; i < 100; i++) {
        await shipper().drain();
        const rows = await h.server.ctx.logDb.db.selectFrom('audit_logs').selectAll().where('target_id', '=', String(c.userId)).execute();
        if (rows.length) return rows[0];
        await new Promise((r) => setTimeout(r, 50));
      }
      return undefined;
    })();
    expect(entry).toBeDefined();
    expect(await h.server.ctx.db.db.selectFrom('audit_logs').select('id').execute()).toHaveLength(0);
    await waitForAudit(h.root, (e) => e.target_id === String(c.userId));
  });

  it('keeps relaying and charging while the log database is down; the rows arrive once when it is back', async () => {
    await shipper().drain();
    const c = await addCaller(h);
    const before = await balances(h, c);
    proxy.cut();
    for (let i = 0; i < 5; i++) await c.client.chat.completions.create({ model: 'gpt-4o-mini', messages });
    const after = await balances(h, c);
    const spent = before.quota - after.quota;
    expect(spent).toBeGreaterThan(0);
    expect(before.remain - after.remain).toBe(spent);
    expect(after.requests - before.requests).toBe(5);
    // Waiting, not lost: the shipper fails and retries.
    await expect(shipper().shipOnce()).rejects.toThrow();
    expect(await shipper().pending()).toBeGreaterThanOrEqual(5);
    // The log screen cannot answer meanwhile, and says so.
    const down = await h.root.get('/api/log/self?p=1&page_size=10');
    expect(down.body.success).toBe(false);
    expect(down.status).toBe(503);
    expect(down.body.message).toMatch(/log database/);

    proxy.restore();
    await shipper().drain();
    const rows = await consumeLogs(h, c.userId);
    expect(rows).toHaveLength(5);
    expect(rows.reduce((s, r) => s + Number(r.quota), 0)).toBe(spent);
    expect((await reconcile(h.server.ctx.db.db)).ok).toBe(true);
  });

  it('stores a repeated shipment once, and two shippers racing store each row once', async () => {
    await shipper().stop();
    try {
      const c = await addCaller(h);
      for (let i = 0; i < 3; i++) await c.client.chat.completions.create({ model: 'gpt-4o-mini', messages });
      const waiting = await h.server.ctx.db.db.selectFrom('log_outbox').selectAll().orderBy('id').execute();
      expect(waiting.length).toBeGreaterThanOrEqual(3);
      // A shipment whose outbox delete never happened: the same rows, same ids, shipped again.
      const first = new LogShipper(h.server.ctx.db, h.server.ctx.logDb, { warn: () => {} });
      await first.drain();
      await h.server.ctx.db.db.insertInto('log_outbox').values(waiting).execute();
      await first.drain();
      expect(first.stats.repeated).toBe(waiting.length);
      expect(await consumeLogs(h, c.userId)).toHaveLength(3);

      // Two nodes' shippers on the same outbox at once.
      const d = await addCaller(h);
      for (let i = 0; i < 4; i++) await d.client.chat.completions.create({ model: 'gpt-4o-mini', messages });
      const a = new LogShipper(h.server.ctx.db, h.server.ctx.logDb, { warn: () => {} });
      const b = new LogShipper(h.server.ctx.db, h.server.ctx.logDb, { warn: () => {} });
      const settled = await Promise.allSettled([a.shipOnce(), b.shipOnce(), a.shipOnce(), b.shipOnce()]);
      expect(settled.some((s) => s.status === 'fulfilled')).toBe(true);
      await a.drain();
      expect(await consumeLogs(h, d.userId)).toHaveLength(4);
      expect(await h.server.ctx.db.db.selectFrom('log_outbox').select('id').execute()).toHaveLength(0);
    } finally {
      shipper().start();
    }
  });
});
