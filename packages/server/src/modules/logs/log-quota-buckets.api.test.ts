import { LogType } from '@modelgate/shared';
import { startFakeOpenAI } from '@modelgate/testkit';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { SqlKind } from '../../config/config.js';
import { loadConfig } from '../../config/config.js';
import { openDb, type Db } from '../../db/client.js';
import { dropLogPartitionsBefore, listLogPartitions, periodOf } from '../../db/log-partitions.js';
import { BUCKET_SEC, BUCKET_SHARDS, logQuotaBucketsReady, splitWindow } from '../../db/log-quota-buckets.js';
import { migrateToLatest, migrateUpTo } from '../../db/migrate.js';
import { reconcile } from '../../ledger/reconcile.js';
import { rootClient } from '../../test-support/api-client.js';
import { multiNodeDbKinds } from '../../test-support/multinode.js';
import { addCaller, addChannel, balances, consumeLogs, type RelayHarness } from '../../test-support/relay-fixtures.js';
import { createTestDatabase } from '../../test-support/test-db.js';
import { startTestServer } from '../../test-support/test-server.js';
import { LogsRepository, type LogFilter } from './logs.repository.js';

/**
 * Hourly quota totals kept by triggers on MySQL's `logs` (db/log-quota-buckets.ts, issue 36): a
 * stat that sums whole hours from them must equal the sum of the rows, whoever wrote or deleted
 * the rows. PostgreSQL has no triggers: the same stats read the log there, and must agree too.
 */
const H = BUCKET_SEC;
const DAY = 86_400;
const kinds = multiNodeDbKinds();
const setups: Array<[string, { kind: SqlKind; logKind?: Exclude<SqlKind, 'sqlite'> }]> = [
  ...kinds.map((k): [string, { kind: SqlKind }] => [`${k} (main database)`, { kind: k }]),
  ...kinds.filter((k) => k === 'mysql').map((k): [string, { kind: SqlKind; logKind: 'mysql' }] => [`${k} (LOG_SQL_DSN beside SQLite)`, { kind: 'sqlite', logKind: k }]),
];

/** The sum of the consume rows in the filter, read from the log itself. */
async function rowSum(repo: LogsRepository, f: LogFilter): Promise<number> {
  return Number((await repo.statQuery(f).executeTakeFirstOrThrow()).q ?? 0);
}

/** Every total, as `bucket/model → quota` with the shards added up and zero totals left out. */
async function totals(handle: Db): Promise<Record<string, number>> {
  const r = await sql<{ bucket: number; model_name: string; q: number | string }>`
    SELECT bucket, model_name, SUM(quota) AS q FROM log_quota_buckets GROUP BY bucket, model_name`.execute(handle.db);
  return Object.fromEntries(r.rows.filter((x) => Number(x.q) !== 0).map((x) => [`${x.bucket}/${x.model_name}`, Number(x.q)]));
}

/** The same, computed from the log's consume rows. */
async function totalsFromRows(handle: Db): Promise<Record<string, number>> {
  const r = await sql<{ b: number; model_name: string; q: number | string }>`
    SELECT FLOOR(created_at / ${sql.lit(H)}) * ${sql.lit(H)} AS b, model_name, SUM(quota) AS q FROM logs WHERE type = 2 GROUP BY b, model_name`.execute(handle.db);
  return Object.fromEntries(r.rows.filter((x) => Number(x.q) !== 0).map((x) => [`${Number(x.b)}/${x.model_name}`, Number(x.q)]));
}

describe('splitWindow', () => {
  it('keeps whole hours for the totals and the partial edges for the log', () => {
    expect(splitWindow(10 * H + 5, 14 * H + 9, 20 * H)).toEqual({ from: 11 * H, to: 14 * H, head: { start: 10 * H + 5, end: 11 * H - 1 }, tail: { start: 14 * H, end: 14 * H + 9 } });
    // Edges on hour bounds read nothing from the log; an end is inclusive.
    expect(splitWindow(10 * H, 12 * H - 1, 20 * H)).toEqual({ from: 10 * H, to: 12 * H });
    // An open end runs to the current hour, its tail unbounded; no start means from the first hour.
    expect(splitWindow(undefined, undefined, 20 * H + 7)).toEqual({ from: 0, to: 20 * H, tail: { start: 20 * H } });
    // Less than one whole hour: the log alone.
    expect(splitWindow(10 * H + 1, 11 * H + 5, 20 * H)).toBeNull();
    expect(splitWindow(10 * H, 11 * H - 2, 20 * H)).toBeNull();
  });
});

describe.each(setups)('hourly quota totals on %s', (_label, setup) => {
  let h: RelayHarness;
  let logs: Db;
  let repo: LogsRepository;
  const now = Math.floor(Date.now() / 1000);
  const today = periodOf('day', now).start;
  const mysql = (setup.logKind ?? setup.kind) === 'mysql';

  beforeAll(async () => {
    const server = await startTestServer({ kind: setup.kind, logKind: setup.logKind });
    const fake = await startFakeOpenAI();
    h = { server, fake, root: await rootClient(server.url), close: async () => (await fake.close(), await server.close()) };
    logs = server.ctx.logDb;
    repo = new LogsRepository(logs);
    await addChannel(h.root, { name: 'main', base_url: h.fake.url, models: 'gpt-4o-mini' });
  });
  afterAll(() => h?.close());

  it('is on exactly where the log is on MySQL', async () => {
    expect(await logQuotaBucketsReady(logs)).toBe(mysql);
  });

  it('counts what the ledger logs for relayed requests, and the stat equals the rows', async () => {
    const c = await addCaller(h);
    const before = await balances(h, c);
    for (let i = 0; i < 3; i++) await c.client.chat.completions.create({ model: 'gpt-4o-mini', messages: [{ role: 'user', content: `Hello number ${i}` }] });
    await h.server.ctx.logShipper?.drain();
    const spent = before.quota - (await balances(h, c)).quota;
    const rows = await consumeLogs(h, c.userId);
    expect(rows).toHaveLength(3);
    expect(rows.reduce((s, r) => s + Number(r.quota), 0)).toBe(spent);
    const day = { start: today - 2 * DAY, modelName: 'gpt-4o-mini' };
    expect((await repo.stat(day, now + 60)).quota).toBe(await rowSum(repo, day));
    expect((await repo.stat(day, now + 60)).quota).toBeGreaterThanOrEqual(spent);
    if (mysql) expect(await totals(logs)).toEqual(await totalsFromRows(logs));
    expect((await reconcile(h.server.ctx.db.db)).ok).toBe(true);
  });

  it('agrees with the rows over windows cut anywhere, with edges on and off the hours, of all models or one', async () => {
    const base = today - 3 * DAY;
    const models = ['bk-a', 'bk-b', 'bk-c'];
    const offsets = [0, 1, H - 1, H, H + 1, 2 * H - 1, 5 * H + 17, 23 * H + 59, DAY - 1, DAY, DAY + H / 2, 2 * DAY + 3 * H];
    const rows = offsets.flatMap((o, i) => [
      { user_id: 900, created_at: base + o, type: LogType.Consume, model_name: models[i % 3]!, quota: 1000 + i * 7, content: '', other: '{}' },
      // Not consumption: never in a stat.
      { user_id: 900, created_at: base + o, type: LogType.Topup, model_name: models[i % 3]!, quota: 99_999, content: '', other: '{}' },
    ]);
    await logs.db.insertInto('logs').values(rows).execute();
    const cuts = [undefined, base - 5, base, base + 1, base + H - 1, base + H, base + 3 * H + 11, base + DAY, base + DAY + 1, base + 2 * DAY + 3 * H];
    let compared = 0;
    for (const start of cuts) {
      for (const end of cuts) {
        if (start !== undefined && end !== undefined && end < start) continue;
        for (const modelName of [undefined, 'bk-b']) {
          const f: LogFilter = { start, end, modelName };
          expect((await repo.stat(f, now)).quota, JSON.stringify(f)).toBe(await rowSum(repo, f));
          compared++;
        }
      }
    }
    expect(compared).toBeGreaterThan(100);
    // A user's own stat reads the log (no totals per user) and agrees as well.
    expect((await repo.stat({ userId: 900, start: base }, now)).quota).toBe(offsets.reduce((s, _o, i) => s + 1000 + i * 7, 0));
    if (mysql) expect(await totals(logs)).toEqual(await totalsFromRows(logs));
  });

  it('takes deleted rows out: the console\'s clear and retention\'s batched delete', async () => {
    await repo.deleteBefore(today - 3 * DAY + DAY + 1);
    const f = { start: today - 4 * DAY };
    expect((await repo.stat(f, now)).quota).toBe(await rowSum(repo, f));
    if (mysql) expect(await totals(logs)).toEqual(await totalsFromRows(logs));
  });

  it('keeps exact totals under concurrent writers on several connections', async () => {
    const t = today - DAY + 7 * H + 5;
    await Promise.all(
      Array.from({ length: 40 }, (_, i) =>
        logs.db.transaction().execute((tx) => tx.insertInto('logs').values({ user_id: 901, created_at: t + (i % 3), type: LogType.Consume, model_name: 'bk-c', quota: 10 + i, content: '', other: '{}' }).execute()),
      ),
    );
    const f = { start: today - DAY, end: today - 1, modelName: 'bk-c' };
    expect((await repo.stat(f, now)).quota).toBe(await rowSum(repo, f));
    expect(await rowSum(repo, { ...f, userId: 901 })).toBe(Array.from({ length: 40 }, (_, i) => 10 + i).reduce((a, b) => a + b, 0));
    if (!mysql) return;
    expect(await totals(logs)).toEqual(await totalsFromRows(logs));
    const shards = await sql<{ shard: number }>`SELECT shard FROM log_quota_buckets WHERE bucket = ${today - DAY + 7 * H} AND model_name = 'bk-c'`.execute(logs.db);
    expect(shards.rows.every((r) => r.shard >= 0 && r.shard < BUCKET_SHARDS)).toBe(true);
  });

  it('drops the totals of the partitions retention drops', async () => {
    if (!(await listLogPartitions(logs))) return;
    const cut = today - 2 * DAY;
    await dropLogPartitionsBefore(logs, cut);
    const f = { start: today - 10 * DAY };
    expect((await repo.stat(f, now)).quota).toBe(await rowSum(repo, f));
    if (!mysql) return;
    expect(await totals(logs)).toEqual(await totalsFromRows(logs));
    const below = await sql<{ n: number }>`SELECT COUNT(*) AS n FROM log_quota_buckets WHERE bucket < ${cut}`.execute(logs.db);
    expect(Number(below.rows[0]!.n)).toBe(0);
  });
});

describe.runIf(kinds.includes('mysql'))('migration 0024 on an existing MySQL log', () => {
  it('totals the rows already there, and the triggers count the rows after', async () => {
    const database = await createTestDatabase('mysql');
    const handle = await openDb(loadConfig(database.env));
    try {
      await migrateUpTo(handle, '0023-task-request-ids');
      const t = 1_700_000_000;
      await handle.db.insertInto('logs').values([
        { user_id: 1, created_at: t, type: LogType.Consume, model_name: 'm1', quota: 5, content: '', other: '{}' },
        { user_id: 1, created_at: t + 10, type: LogType.Consume, model_name: 'm1', quota: 6, content: '', other: '{}' },
        { user_id: 1, created_at: t + 2 * H, type: LogType.Consume, model_name: 'm2', quota: 7, content: '', other: '{}' },
        { user_id: 1, created_at: t + 2 * H, type: LogType.System, model_name: 'm2', quota: 100, content: '', other: '{}' },
      ]).execute();
      await migrateToLatest(handle);
      expect(await logQuotaBucketsReady(handle)).toBe(true);
      const b = (x: number) => Math.floor(x / H) * H;
      expect(await totals(handle)).toEqual({ [`${b(t)}/m1`]: 11, [`${b(t + 2 * H)}/m2`]: 7 });
      await handle.db.insertInto('logs').values({ user_id: 1, created_at: t + 2 * H + 1, type: LogType.Consume, model_name: 'm2', quota: 8, content: '', other: '{}' }).execute();
      expect(await totals(handle)).toEqual({ [`${b(t)}/m1`]: 11, [`${b(t + 2 * H)}/m2`]: 15 });
      const repo = new LogsRepository(handle);
      expect((await repo.stat({ start: t - DAY, end: t + DAY }, t + 2 * DAY)).quota).toBe(26);
      expect((await repo.stat({ start: t - DAY, end: t + DAY, modelName: 'm2' }, t + 2 * DAY)).quota).toBe(15);
    } finally {
      await handle.destroy();
      await database.drop();
    }
  });
});
