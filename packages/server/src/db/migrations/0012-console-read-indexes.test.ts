import { sql } from 'kysely';
import { describe, expect, it } from 'vitest';
import { testDbKinds, useMigratedDb } from '../../test-support/test-db.js';
import type { Db } from '../client.js';

/** An index's columns in order. */
async function columnsOf(handle: Db, table: string, index: string): Promise<string[]> {
  if (handle.kind === 'sqlite') {
    const r = await sql<{ name: string }>`SELECT name FROM pragma_index_info(${index}) ORDER BY seqno`.execute(handle.db);
    return r.rows.map((x) => x.name);
  }
  if (handle.kind === 'postgres') {
    const r = await sql<{ name: string }>`SELECT a.attname AS name FROM pg_index i
      JOIN pg_class c ON c.oid = i.indexrelid JOIN LATERAL unnest(i.indkey) WITH ORDINALITY AS k(attnum, n) ON true
      JOIN pg_attribute a ON a.attrelid = i.indrelid AND a.attnum = k.attnum
      WHERE c.relname = ${index} ORDER BY k.n`.execute(handle.db);
    return r.rows.map((x) => x.name);
  }
  const r = await sql<{ name: string }>`SELECT column_name AS name FROM information_schema.statistics
    WHERE table_schema = DATABASE() AND table_name = ${table} AND index_name = ${index} ORDER BY seq_in_index`.execute(handle.db);
  return r.rows.map((x) => x.name);
}

describe.each(testDbKinds())('migration 0012 on %s', (kind) => {
  const handle = useMigratedDb(kind);

  it('ends every log filter index in type, and gives SQLite its model index back', async () => {
    const filters: Array<[string, string]> = [
      ['idx_logs_user_created', 'user_id'],
      ['idx_logs_username', 'username'],
      ['idx_logs_model_name', 'model_name'],
      ...(kind === 'sqlite' ? [] : ([['idx_logs_token_name', 'token_name'], ['idx_logs_channel_id', 'channel_id']] as Array<[string, string]>)),
    ];
    // MySQL's partitioned log (0016) names id and quota in each index (db/log-partitions.ts mysqlPartitionStatement);
    // PostgreSQL's carry quota as an included column (0017; indkey lists it after the key columns).
    const tail = kind === 'mysql' ? ['id', 'quota'] : kind === 'postgres' ? ['quota'] : [];
    for (const [index, column] of filters) expect(await columnsOf(handle(), 'logs', index)).toEqual([column, 'created_at', 'type', ...tail]);
    if (kind === 'sqlite') {
      expect(await columnsOf(handle(), 'logs', 'idx_logs_token_name')).toEqual([]);
      expect(await columnsOf(handle(), 'logs', 'idx_logs_channel_id')).toEqual([]);
    }
    expect(await columnsOf(handle(), 'logs', 'idx_logs_created_at')).toEqual(['created_at', 'type', ...tail]);
  });

  it('covers the all-users dashboard read with the per-model hours index, in its order', async () => {
    expect(await columnsOf(handle(), 'quota_data_models', 'idx_quota_data_models_created')).toEqual(['created_at', 'model_name', 'token_used', 'count', 'quota']);
    expect(await columnsOf(handle(), 'quota_data_models', 'idx_quota_data_models_key')).toEqual(['model_name', 'created_at']);
  });
});
