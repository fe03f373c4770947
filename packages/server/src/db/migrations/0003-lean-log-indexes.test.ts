import { sql } from 'kysely';
import { describe, expect, it } from 'vitest';
import { testDbKinds, useMigratedDb } from '../../test-support/test-db.js';
import type { Db } from '../client.js';

async function indexNames(handle: Db, table: string): Promise<string[]> {
  const q =
    handle.kind === 'sqlite'
      ? sql<{ name: string }>`SELECT name FROM sqlite_master WHERE type = 'index' AND tbl_name = ${table} AND name NOT LIKE 'sqlite_autoindex%'`
      : handle.kind === 'postgres'
        ? sql<{ name: string }>`SELECT indexname AS name FROM pg_indexes WHERE tablename = ${table} AND indexname NOT LIKE '%_pkey' AND indexname NOT LIKE '%_key'`
        : sql<{ name: string }>`SELECT DISTINCT index_name AS name FROM information_schema.statistics WHERE table_schema = DATABASE() AND table_name = ${table} AND index_name <> 'PRIMARY' AND non_unique = 1`;
  return (await q.execute(handle.db)).rows.map((r) => r.name).sort();
}

describe.each(testDbKinds())('migration 0003 on %s', (kind) => {
  const handle = useMigratedDb(kind);

  it('drops the unused token-id index everywhere, and the filter indexes SQLite does not need', async () => {
    // The model index, dropped on SQLite here, is back since 0012.
    const lean = ['idx_logs_created_at', 'idx_logs_model_name', 'idx_logs_user_created', 'idx_logs_username'];
    const kept = kind === 'sqlite' ? lean : [...lean, 'idx_logs_channel_id', 'idx_logs_token_name'].sort();
    expect(await indexNames(handle(), 'logs')).toEqual(kept);
    expect(await indexNames(handle(), 'reservations')).toEqual([]);
  });

  it('keeps the reservation ledger working (SQLite: rebuilt WITHOUT ROWID, rows kept)', async () => {
    await handle().db.insertInto('reservations').values({ request_id: 'r-1', user_id: 1, token_id: 2, user_amount: 3, token_amount: 4, created_at: 5 }).execute();
    // A complete row, so only the duplicate request_id can be the reason it is refused.
    const again = { request_id: 'r-1', user_id: 9, token_id: 9, user_amount: 1, token_amount: 1, created_at: 6 };
    await expect(handle().db.insertInto('reservations').values(again).execute()).rejects.toThrow();
    expect(await handle().db.selectFrom('reservations').selectAll().execute()).toEqual([{ request_id: 'r-1', user_id: 1, token_id: 2, user_amount: 3, token_amount: 4, created_at: 5, node_id: '', lease_until: 0, paid_by: 0, windows: 0 }]);
    if (kind === 'sqlite') {
      const ddl = await sql<{ sql: string }>`SELECT sql FROM sqlite_master WHERE name = 'reservations'`.execute(handle().db);
      expect(ddl.rows[0]!.sql).toMatch(/WITHOUT ROWID/i);
    }
  });

  it('keeps request_id unique, so a request can never be logged (and charged) twice', async () => {
    await handle().db.insertInto('logs').values({ request_id: 'dup-1', other: '{}' }).execute();
    await expect(handle().db.insertInto('logs').values({ request_id: 'dup-1', other: '{}' }).execute()).rejects.toThrow();
  });
});
