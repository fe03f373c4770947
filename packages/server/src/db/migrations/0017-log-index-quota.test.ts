import { LogType } from '@modelgate/shared';
import { sql } from 'kysely';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { loadConfig } from '../../config/config.js';
import { createTestDatabase, type TestDatabase } from '../../test-support/test-db.js';
import { openDb, type Db } from '../client.js';
import { listLogPartitions, LOG_INDEXES } from '../log-partitions.js';
import { migrateToLatest, migrateUpTo } from '../migrate.js';

const kinds = (['postgres', 'mysql'] as const).filter((k) => (k === 'postgres' ? process.env.TEST_PG_URL : process.env.TEST_MYSQL_URL));

/**
 * The log indexes of `table` as `key columns | included columns` by index name (MySQL has no
 * included columns: everything is a key column).
 */
async function shapes(handle: Db, table = 'logs'): Promise<Record<string, string>> {
  if (handle.kind === 'postgres') {
    const r = await sql<{ name: string; cols: string[]; keys: number }>`
      SELECT c.relname AS name, x.indnkeyatts AS keys,
        array(SELECT a.attname::text FROM unnest(x.indkey::int2[]) WITH ORDINALITY k(attnum, n)
              JOIN pg_attribute a ON a.attrelid = x.indrelid AND a.attnum = k.attnum ORDER BY k.n) AS cols
      FROM pg_index x JOIN pg_class c ON c.oid = x.indexrelid WHERE x.indrelid = to_regclass(${table}) AND NOT x.indisunique`.execute(handle.db);
    return Object.fromEntries(r.rows.map((x) => [x.name, `${x.cols.slice(0, x.keys).join(',')} | ${x.cols.slice(x.keys).join(',')}`]));
  }
  const r = await sql<{ name: string; cols: string }>`
    SELECT INDEX_NAME AS name, GROUP_CONCAT(COLUMN_NAME ORDER BY SEQ_IN_INDEX) AS cols FROM information_schema.STATISTICS
    WHERE TABLE_SCHEMA = DATABASE() AND TABLE_NAME = ${table} AND NON_UNIQUE = 1 GROUP BY INDEX_NAME`.execute(handle.db);
  return Object.fromEntries(r.rows.map((x) => [x.name, `${x.cols} | `]));
}

/** What 0017 leaves: PostgreSQL includes quota, MySQL's partitioned log names id and quota. */
const wanted = (kind: 'postgres' | 'mysql') =>
  Object.fromEntries(LOG_INDEXES.map(([name, cols]) => [name, kind === 'postgres' ? `${cols.join(',')} | quota` : `${[...cols, 'id', 'quota'].join(',')} | `]));

/** The shape the partitioned log had before 0017 (PostgreSQL: no quota; MySQL: before the indexes named id and quota). */
async function oldShape(handle: Db): Promise<void> {
  const columns = (cols: string[]) => sql.join(cols.map((c) => sql.id(c)));
  if (handle.kind === 'mysql') {
    // One ALTER: each one rebuilds the indexes of every partition.
    const changes = LOG_INDEXES.map(([name, cols]) => sql`DROP INDEX ${sql.id(name)}, ADD INDEX ${sql.id(name)} (${columns(cols)})`);
    await sql`ALTER TABLE logs ${sql.join(changes)}`.execute(handle.db);
    return;
  }
  for (const [name, cols] of LOG_INDEXES) {
    await sql`DROP INDEX ${sql.id(name)}`.execute(handle.db);
    await sql`CREATE INDEX ${sql.id(name)} ON logs (${columns(cols)})`.execute(handle.db);
  }
}

describe.each(kinds)('migration 0017 on %s', (kind) => {
  let database: TestDatabase;
  let handle: Db;
  const now = Math.floor(Date.now() / 1000);
  const row = (created_at: number, quota: number, request_id: string) => ({ user_id: 5, created_at, type: LogType.Consume, model_name: 'm', quota, other: '{}', request_id });

  beforeEach(async () => {
    database = await createTestDatabase(kind);
    handle = await openDb(loadConfig(database.env));
  });
  afterEach(async () => {
    await handle?.destroy();
    await database?.drop();
  });

  it('gives a new install\'s partitioned log, and each of its partitions, the indexes that carry quota', async () => {
    await migrateToLatest(handle);
    expect(await shapes(handle)).toEqual(wanted(kind));
    if (kind === 'postgres') {
      // Every partition's indexes have the parent's shape (their names are PostgreSQL's own).
      for (const p of (await listLogPartitions(handle))!) {
        const own = Object.values(await shapes(handle, p.name)).sort();
        expect(own).toEqual(Object.values(wanted(kind)).sort());
      }
    }
  });

  // Index DDL over a month of partitions: seconds on a quiet machine, more beside other suites.
  it('rebuilds the indexes of a log partitioned before it, keeping the rows', { timeout: 120_000 }, async () => {
    await migrateUpTo(handle, '0016-log-partitions');
    await oldShape(handle);
    expect(await shapes(handle)).not.toEqual(wanted(kind));
    await handle.db.insertInto('logs').values([row(now - 86_400, 7, 'r-1'), row(now, 11, 'r-2')]).execute();
    await migrateToLatest(handle);
    expect(await shapes(handle)).toEqual(wanted(kind));
    const sum = await handle.db.selectFrom('logs').select((eb) => eb.fn.sum<number>('quota').as('q')).executeTakeFirstOrThrow();
    expect(Number(sum.q)).toBe(18);
  });

  it(kind === 'postgres' ? 'gives a plain log with rows the same shape, so a conversion attaches its indexes as they are' : 'leaves a plain log with rows to its conversion', async () => {
    await migrateUpTo(handle, '0015-log-outbox');
    await handle.db.insertInto('logs').values(row(now, 3, 'r-1')).execute();
    await migrateToLatest(handle);
    expect(await listLogPartitions(handle)).toBeNull();
    const plain = Object.fromEntries(LOG_INDEXES.map(([name, cols]) => [name, `${cols.join(',')} | `]));
    expect(await shapes(handle)).toEqual(kind === 'postgres' ? wanted(kind) : plain);
  });
});
