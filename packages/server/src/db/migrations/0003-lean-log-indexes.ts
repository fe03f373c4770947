import { sql, type Kysely } from 'kysely';
import type { SqlKind } from '../../config/config.js';
import { defaultZero } from './column-types.js';

/**
 * Fewer indexes on the two tables every relayed request writes (docs/architecture.md#principles, docs/performance.md).
 *
 * logs: every consume row is inserted inside the settle transaction, so each secondary index is
 * paid on the hot path. idx_logs_token_id served no query at all. On SQLite the log screens'
 * queries (always a time window) stay under the 100 ms p95 budget on 1 000 000 rows with
 * (created_at, type) + (user_id, created_at) + (username, created_at) alone — a model, token-name
 * or channel filter scans the window through (created_at, type) — see `bench/log-queries.mjs`.
 *
 * reservations: holds only in-flight requests, so the start-up / sweep scan by created_at needs no
 * index; each reserve and settle saved one index write. On SQLite the table is also rebuilt
 * WITHOUT ROWID: keyed by request_id alone, a reserve / settle touches one B-tree instead of the
 * rowid table plus the primary-key index. (MySQL's InnoDB already clusters on the primary key.)
 */
const DROPPED: Array<[index: string, table: string]> = [
  ['idx_logs_token_id', 'logs'],
  ['idx_reservations_created', 'reservations'],
];

/**
 * SQLite only. PostgreSQL counts a filtered window through the heap (no index-only count without
 * a vacuumed visibility map), so there a 7-day model or channel filter took 150–260 ms p95 on
 * 1 000 000 rows without these indexes: PostgreSQL and MySQL keep them, and their relay writes
 * are network round trips where an index entry is a small share.
 */
const DROPPED_ON_SQLITE: Array<[index: string, table: string]> = [
  ['idx_logs_model_name', 'logs'],
  ['idx_logs_token_name', 'logs'],
  ['idx_logs_channel_id', 'logs'],
];

export async function up(db: Kysely<unknown>, kind: SqlKind): Promise<void> {
  if (kind === 'sqlite') {
    // Rows left by a crash are kept: start-up recovery (after migrations) releases them.
    await db.schema
      .createTable('reservations_next')
      .addColumn('request_id', 'varchar(64)', (c) => c.primaryKey())
      .addColumn('user_id', 'bigint', defaultZero)
      .addColumn('token_id', 'bigint', defaultZero)
      .addColumn('user_amount', 'bigint', defaultZero)
      .addColumn('token_amount', 'bigint', defaultZero)
      .addColumn('created_at', 'bigint', defaultZero)
      .modifyEnd(sql`WITHOUT ROWID`)
      .execute();
    await sql`INSERT INTO reservations_next (request_id, user_id, token_id, user_amount, token_amount, created_at)
      SELECT request_id, user_id, token_id, user_amount, token_amount, created_at FROM reservations`.execute(db);
    await db.schema.dropTable('reservations').execute();
    await db.schema.alterTable('reservations_next').renameTo('reservations').execute();
  }
  for (const [index, table] of kind === 'sqlite' ? [...DROPPED, ...DROPPED_ON_SQLITE] : DROPPED) {
    // MySQL indexes belong to their table; SQLite and PostgreSQL index names are schema-wide.
    const drop = db.schema.dropIndex(index).ifExists();
    await (kind === 'mysql' ? db.schema.dropIndex(index).on(table) : drop).execute();
  }
}
