import { LogType } from '@modelgate/shared';
import { startFakeOpenAI } from '@modelgate/testkit';
import { CompiledQuery, sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { SqlKind } from '../../config/config.js';
import type { Db } from '../../db/client.js';
import { dropLogPartitionsBefore, ensureLogPartitions, listLogPartitions, LOG_PARTITION_AHEAD_DAYS, periodOf, type LogPartition } from '../../db/log-partitions.js';
import { runLogPartitions } from '../../jobs/log-partitions.job.js';
import { runLogRetention } from '../../jobs/log-retention.job.js';
import { reconcile } from '../../ledger/reconcile.js';
import { rootClient } from '../../test-support/api-client.js';
import { multiNodeDbKinds } from '../../test-support/multinode.js';
import { addCaller, addChannel, balances, consumeLogs, type RelayHarness } from '../../test-support/relay-fixtures.js';
import { startTestServer } from '../../test-support/test-server.js';
import { LogsRepository } from './logs.repository.js';

/**
 * Time partitions of the usage log (issue 36, db/log-partitions.ts) on PostgreSQL and MySQL: in
 * the main database, and in a separate log database (LOG_SQL_DSN) beside a SQLite main one.
 */
const DAY = 86_400;
const serverKinds = multiNodeDbKinds();
const setups: Array<[string, { kind: SqlKind; logKind?: Exclude<SqlKind, 'sqlite'> }]> = [
  ...serverKinds.map((k): [string, { kind: SqlKind }] => [`${k} (main database)`, { kind: k }]),
  ...serverKinds.map((k): [string, { kind: SqlKind; logKind: Exclude<SqlKind, 'sqlite'> }] => [`${k} (LOG_SQL_DSN beside SQLite)`, { kind: 'sqlite', logKind: k }]),
];

const dayName = (kind: SqlKind, t: number) => `${kind === 'postgres' ? 'logs_p' : 'p'}${periodOf('day', t).label}`;

/** The contents of one partition's rows (`content` column), read from that partition alone. */
async function contentsIn(handle: Db, partition: string): Promise<string[]> {
  const q = handle.kind === 'postgres' ? sql<{ content: string }>`SELECT content FROM ${sql.id(partition)}` : sql<{ content: string }>`SELECT content FROM logs PARTITION (${sql.id(partition)})`;
  return (await q.execute(handle.db)).rows.map((r) => r.content).sort();
}

/** The partitions of `logs` a query reads, from the database's EXPLAIN. */
async function partitionsScanned(handle: Db, query: { compile(): CompiledQuery }): Promise<string[]> {
  const c = query.compile();
  if (handle.kind === 'postgres') {
    const r = await handle.db.executeQuery<{ 'QUERY PLAN': unknown }>(CompiledQuery.raw(`EXPLAIN (FORMAT JSON) ${c.sql}`, [...c.parameters]));
    const names = new Set<string>();
    const walk = (node: unknown): void => {
      if (Array.isArray(node)) return node.forEach(walk);
      if (node && typeof node === 'object') {
        const rel = (node as Record<string, unknown>)['Relation Name'];
        if (typeof rel === 'string' && rel.startsWith('logs')) names.add(rel);
        Object.values(node).forEach(walk);
      }
    };
    walk(r.rows[0]!['QUERY PLAN']);
    return [...names].sort();
  }
  // MariaDB keeps `EXPLAIN PARTITIONS`; MySQL 8 shows the column in a plain EXPLAIN.
  const plain = await handle.db.executeQuery<Record<string, unknown>>(CompiledQuery.raw(`EXPLAIN ${c.sql}`, [...c.parameters]));
  const rows = plain.rows.some((r) => 'partitions' in r) ? plain.rows : (await handle.db.executeQuery<Record<string, unknown>>(CompiledQuery.raw(`EXPLAIN PARTITIONS ${c.sql}`, [...c.parameters]))).rows;
  const names = new Set<string>();
  for (const r of rows) if (r.table && String(r.table).startsWith('logs') && r.partitions) for (const p of String(r.partitions).split(',')) names.add(p);
  return [...names].sort();
}

describe.each(setups)('usage log partitions on %s', (_label, setup) => {
  let h: RelayHarness;
  let logs: Db;
  const now = Math.floor(Date.now() / 1000);
  const today = periodOf('day', now).start;

  beforeAll(async () => {
    const server = await startTestServer({ kind: setup.kind, logKind: setup.logKind });
    const fake = await startFakeOpenAI();
    h = { server, fake, root: await rootClient(server.url), close: async () => (await fake.close(), await server.close()) };
    logs = server.ctx.logDb;
    await addChannel(h.root, { name: 'main', base_url: h.fake.url, models: 'gpt-4o-mini' });
  });
  afterAll(() => h?.close());

  const partitions = async () => (await listLogPartitions(logs))!;
  const bounded = (parts: LogPartition[]) => parts.filter((p) => p.to !== null);

  it('makes a new install\'s usage log partitioned, a week of days ahead, and the master node\'s job goes on from there', async () => {
    const parts = await partitions();
    expect(parts.map((p) => p.name)).toContain(dayName(logs.kind, today));
    expect(parts.map((p) => p.name)).toContain(dayName(logs.kind, today + LOG_PARTITION_AHEAD_DAYS * DAY));
    // History first, the catch-all last, and the days between them contiguous.
    expect(parts[0]!.from).toBeNull();
    expect(parts.at(-1)!.to).toBeNull();
    const ranges = bounded(parts);
    for (let i = 1; i < ranges.length; i++) expect(ranges[i]!.from).toBe(ranges[i - 1]!.to);
    // Nothing is made twice; three days later the job adds the three days that came into its week.
    expect(await runLogPartitions(h.server.ctx, now)).toEqual([]);
    const later = [8, 9, 10].map((d) => dayName(logs.kind, today + d * DAY));
    expect(await runLogPartitions(h.server.ctx, now + 3 * DAY)).toEqual(later);
    expect(bounded(await partitions()).slice(-3).map((p) => p.name)).toEqual(later);
    if (setup.logKind) expect(await listLogPartitions(h.server.ctx.db)).toBeNull(); // SQLite: one plain table
  });

  it('builds ten days of past partitions the way the job builds the next ones', async () => {
    // Start over from the catch-all alone, so the history does not depend on today's day of the month.
    await dropLogPartitionsBefore(logs, today + 30 * DAY);
    expect(bounded(await partitions())).toEqual([]);
    expect((await ensureLogPartitions(logs, 'day', now - 10 * DAY)).length).toBe(LOG_PARTITION_AHEAD_DAYS + 1);
    expect(await ensureLogPartitions(logs, 'day', now)).toHaveLength(10);
    const names = bounded(await partitions()).map((p) => p.name);
    expect(names).toEqual(Array.from({ length: 10 + LOG_PARTITION_AHEAD_DAYS + 1 }, (_, i) => dayName(logs.kind, today + (i - 10) * DAY)));
  });

  it('stores each row in the partition of its day, and the catch-all stays empty', async () => {
    await logs.db.insertInto('logs').values([
      { user_id: 777, created_at: today - 5 * DAY + 3600, type: LogType.System, content: 'five-days-ago', other: '{}' },
      { user_id: 777, created_at: today + 60, type: LogType.System, content: 'today-early', other: '{}' },
      { user_id: 777, created_at: today + DAY - 1, type: LogType.System, content: 'today-late', other: '{}' },
    ]).execute();
    expect(await contentsIn(logs, dayName(logs.kind, today - 5 * DAY))).toEqual(['five-days-ago']);
    expect((await contentsIn(logs, dayName(logs.kind, today))).filter((c) => c.startsWith('today'))).toEqual(['today-early', 'today-late']);
    expect(await contentsIn(logs, (await partitions()).at(-1)!.name)).toEqual([]);
    // Ids still come from one sequence / auto-increment: unique across partitions.
    const ids = (await logs.db.selectFrom('logs').select('id').where('user_id', '=', 777).execute()).map((r) => Number(r.id));
    expect(new Set(ids).size).toBe(3);
  });

  it('reads one partition for a one-day list, stat and count (EXPLAIN)', async () => {
    const repo = new LogsRepository(logs);
    const day = { start: today - 5 * DAY, end: today - 4 * DAY - 1 };
    const one = [dayName(logs.kind, today - 5 * DAY)];
    expect(await partitionsScanned(logs, repo.pageQuery(day, 0, 10))).toEqual(one);
    expect(await partitionsScanned(logs, repo.pageQuery({ ...day, type: LogType.System, modelName: '' }, 0, 10))).toEqual(one);
    expect(await partitionsScanned(logs, repo.statQuery({ ...day, userId: 777 }))).toEqual(one);
    const page = await repo.page({ ...day, userId: 777 }, 0, 10);
    expect(page.items.map((r) => r.content)).toEqual(['five-days-ago']);
    // The keyword search's 30-day window leaves out what is older (here: the history before the cut).
    const searched = await partitionsScanned(logs, repo.searchQuery('x', { now: today - 5 * DAY + 30 * DAY }));
    expect(searched).toContain(dayName(logs.kind, today - 5 * DAY));
    expect(searched).not.toContain(dayName(logs.kind, today - 6 * DAY));
  });

  it('retention drops the days older than the cut-off, deletes the rest of the boundary day, keeps the consume log exact', async () => {
    const c = await addCaller(h);
    const before = await balances(h, c);
    for (let i = 0; i < 2; i++) await c.client.chat.completions.create({ model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'Hello there friend' }] });
    const spent = before.quota - (await balances(h, c)).quota;
    expect(spent).toBeGreaterThan(0);
    await h.server.ctx.logShipper?.drain();

    const cutoff = now - 3 * DAY;
    const row = (created_at: number, content: string) => ({ user_id: 778, created_at, type: LogType.System, content, other: '{}' });
    const olds = [row(today - 8 * DAY, 'old-8'), row(today - 6 * DAY + 10, 'old-6'), row(today - 6 * DAY + 20, 'old-6')];
    await logs.db.insertInto('logs').values([...olds, row(cutoff - 30, 'boundary-old'), row(cutoff + 30, 'boundary-new'), row(now, 'now')]).execute();
    const oldDays = [dayName(logs.kind, today - 8 * DAY), dayName(logs.kind, today - 6 * DAY), dayName(logs.kind, today - 5 * DAY)];
    expect((await partitions()).map((p) => p.name)).toEqual(expect.arrayContaining(oldDays));

    await h.server.ctx.options.set('LogRetentionDays', '3');
    try {
      expect(await runLogRetention(h.server.ctx, undefined, now)).toBeGreaterThanOrEqual(1);
    } finally {
      await h.server.ctx.options.set('LogRetentionDays', '0');
    }
    const names = (await partitions()).map((p) => p.name);
    for (const gone of oldDays) expect(names).not.toContain(gone);
    // Every whole day before the cut-off went as a partition; the boundary day and the days after stay.
    expect(bounded(await partitions())[0]!.from ?? periodOf('day', cutoff).start).toBeGreaterThanOrEqual(periodOf('day', cutoff).start);
    expect(names).toContain(dayName(logs.kind, cutoff));
    const left = (await logs.db.selectFrom('logs').select('content').where('user_id', 'in', [777, 778]).execute()).map((r) => r.content).sort();
    expect(left).toEqual(['boundary-new', 'now', 'today-early', 'today-late']);

    // Today's consume rows are whole: they add up to what the ledger charged, and it reconciles.
    const consumed = await consumeLogs(h, c.userId);
    expect(consumed).toHaveLength(2);
    expect(consumed.reduce((s, r) => s + Number(r.quota), 0)).toBe(spent);
    expect((await reconcile(h.server.ctx.db.db)).ok).toBe(true);
  });
});
