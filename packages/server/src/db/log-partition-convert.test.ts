import { LogType } from '@modelgate/shared';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../config/config.js';
import { createTestDatabase, type TestDatabase } from '../test-support/test-db.js';
import { openDb, type Db } from './client.js';
import { convertLogsToPartitions } from './log-partition-convert.js';
import { dropLogPartitionsBefore, listLogPartitions, LOG_PARTITION_AHEAD_DAYS, PARTITION_LOCK_WAIT_SEC, periodOf } from './log-partitions.js';
import { migrateToLatest, migrateUpTo } from './migrate.js';

/**
 * An install made before 0016 keeps a plain `logs` with its rows through the upgrade; the
 * operator's `npm run logs:partition` then converts it (db/log-partition-convert.ts).
 */
const DAY = 86_400;
const kinds = (['postgres', 'mysql'] as const).filter((k) => (k === 'postgres' ? process.env.TEST_PG_URL : process.env.TEST_MYSQL_URL));

describe.each(kinds)('converting an existing usage log on %s', (kind) => {
  let database: TestDatabase;
  let handle: Db;
  const now = Math.floor(Date.now() / 1000);
  const today = periodOf('day', now).start;
  const row = (created_at: number, content: string, request_id: string | null = null) => ({ user_id: 5, created_at, type: LogType.Consume, content, quota: 10, other: '{}', request_id });

  beforeAll(async () => {
    database = await createTestDatabase(kind);
    handle = await openDb(loadConfig(database.env));
  });
  afterAll(async () => {
    await handle?.destroy();
    await database?.drop();
  });

  it('leaves a log that holds rows as a plain table at the upgrade', async () => {
    await migrateUpTo(handle, '0015-log-outbox');
    await handle.db.insertInto('logs').values([row(today - 400 * DAY, 'ancient', 'r-1'), row(today - 3 * DAY, 'recent', 'r-2'), row(now, 'now', 'r-3')]).execute();
    await migrateToLatest(handle);
    expect(await listLogPartitions(handle)).toBeNull();
    if (kind === 'postgres') {
      // 0017 gave the plain table's indexes INCLUDE (quota); one without it (made by hand, say) must
      // be rebuilt by the conversion before the swap, not built under the swap's exclusive lock.
      await sql`DROP INDEX idx_logs_model_name`.execute(handle.db);
      await sql`CREATE INDEX idx_logs_model_name ON logs (model_name, created_at, type)`.execute(handle.db);
    }
  });

  it('converts it: every row kept in the history partition, ids go on, new days partitioned', async () => {
    const said: string[] = [];
    const made = await convertLogsToPartitions(handle, 'day', (l) => said.push(l), now);
    expect(made!.length).toBeGreaterThanOrEqual(LOG_PARTITION_AHEAD_DAYS - 2);
    expect(said.length).toBeGreaterThan(1);
    const parts = (await listLogPartitions(handle))!;
    const past = parts[0]!;
    expect(past).toMatchObject({ name: kind === 'postgres' ? 'logs_p_past' : 'p_past', from: null });
    expect(past.to!).toBeGreaterThanOrEqual(today + 2 * DAY);
    expect(parts.at(-1)!.to).toBeNull();
    expect((await handle.db.selectFrom('logs').select('content').orderBy('id').execute()).map((r) => r.content)).toEqual(['ancient', 'recent', 'now']);
    if (kind === 'postgres') {
      // Nothing was built again at the swap: the old table's indexes became the partition's ones.
      const idx = await sql<{ name: string; attached: boolean }>`
        SELECT c.relname AS name, EXISTS (SELECT 1 FROM pg_inherits i WHERE i.inhrelid = c.oid) AS attached
        FROM pg_index x JOIN pg_class c ON c.oid = x.indexrelid WHERE x.indrelid = to_regclass('logs_p_past')`.execute(handle.db);
      const attached = idx.rows.filter((r) => r.attached).map((r) => r.name).sort();
      expect(attached).toEqual(['idx_logs_p_past_channel_id', 'idx_logs_p_past_created_at', 'idx_logs_p_past_model_name', 'idx_logs_p_past_token_name', 'idx_logs_p_past_user_created', 'idx_logs_p_past_username', 'logs_p_past_id_created', 'logs_p_past_request_created']);
      expect(idx.rows.length).toBe(attached.length + 2); // + the old key on id and unique request id
      expect(said.some((l) => l.includes('rebuilding the index idx_logs_model_name'))).toBe(true);
      // The history partition's log indexes are those of a new day partition: quota included in each.
      const defs = async (table: string) => {
        const r = await sql<{ def: string }>`SELECT regexp_replace(pg_get_indexdef(x.indexrelid), '^.* USING ', '') AS def
          FROM pg_index x WHERE x.indrelid = to_regclass(${table}) AND NOT x.indisunique`.execute(handle.db);
        return r.rows.map((x) => x.def).sort();
      };
      expect(await defs('logs_p_past')).toEqual(await defs(parts[1]!.name));
      expect((await defs('logs_p_past')).every((d) => d.endsWith('INCLUDE (quota)'))).toBe(true);
    }

    // A new row takes the next id and lands in its day's partition, after the history.
    await handle.db.insertInto('logs').values(row(past.to! + 3600, 'later', 'r-4')).execute();
    const later = await handle.db.selectFrom('logs').select('id').where('content', '=', 'later').executeTakeFirstOrThrow();
    expect(Number(later.id)).toBe(4);
    const q = kind === 'postgres' ? sql<{ p: string }>`SELECT tableoid::regclass::text AS p FROM logs WHERE content = 'later'` : sql<{ p: string }>`SELECT 'p' AS p FROM logs PARTITION (${sql.id(parts[1]!.name)}) WHERE content = 'later'`;
    const where = (await q.execute(handle.db)).rows;
    expect(where).toHaveLength(1);
    if (kind === 'postgres') expect(where[0]!.p).toBe(parts[1]!.name);
    // A second run finds it done.
    expect(await convertLogsToPartitions(handle, 'day', undefined, now)).toBeNull();
  });

  it('gives up a drop that would wait on a long log query, instead of holding up the inserts queued behind it', async () => {
    const past = (await listLogPartitions(handle))![0]!;
    const started = Date.now();
    await handle.db.transaction().execute(async (t) => {
      // A reader in an open transaction holds the table's shared lock until it ends.
      await t.selectFrom('logs').select('id').limit(1).execute();
      await expect(dropLogPartitionsBefore(handle, past.to!)).rejects.toThrow(/lock/i);
    });
    expect(Date.now() - started).toBeGreaterThanOrEqual(PARTITION_LOCK_WAIT_SEC * 1000 - 500);
    expect((await listLogPartitions(handle))![0]!.name).toBe(past.name);
  });

  it('drops the history partition whole once the retention cut-off passes it', async () => {
    const past = (await listLogPartitions(handle))![0]!;
    const { dropped } = await dropLogPartitionsBefore(handle, past.to!);
    expect(dropped).toEqual([past.name]);
    expect((await handle.db.selectFrom('logs').select('content').execute()).map((r) => r.content)).toEqual(['later']);
  });
});
