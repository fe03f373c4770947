import type { Kysely } from 'kysely';
import type { SqlKind } from '../../config/config.js';

/**
 * Indexes for the console's heavy reads (bench/log-queries.mjs, docs/performance.md).
 *
 * 1. The log filter indexes end in `type`: `(column, created_at)` becomes
 *    `(column, created_at, type)`.
 *    - A filter with a type (the console's type selector: consume, top-up, …) is checked inside
 *      the index. Before, each row of the window was fetched to read its type: MySQL's 7-day
 *      model-and-consume list counted its (capped) 10 000 rows through 10 000 primary-key lookups,
 *      353 ms p95 on 1 000 000 rows (18 ms now).
 *    - The list's order `created_at DESC, type DESC, id DESC` is the index's own order after the
 *      equality column (SQLite and MySQL keep the row id at the end of every index), so the page
 *      is read off the index's end with or without a type filter.
 *    - SQLite gets the model index back (dropped in 0003 to save one index write per relayed
 *      request): its 7-day model-filtered stat read the whole week through the time index (111 ms
 *      p95 on 1 000 000 rows), and the model is the filter the console is used with most. Token
 *      name and channel stay unindexed there (both under budget through the time index).
 *    - On a large table this rebuilds each index once at upgrade (minutes on 10 000 000 rows).
 *
 * 2. The all-users dashboard reads 90 days of per-model hours (14 400 rows for 20 models) in
 *    `(created_at, model_name)` order. Its index was `(created_at)` alone: each row was fetched
 *    from the table and the whole answer sorted (MySQL: 45 ms of the query's time). The index is
 *    now `(created_at, model_name, token_used, count, quota)`: the answer is read off the index,
 *    in order (16 ms). The table holds one row per model and hour, and the hourly export is its
 *    only writer, so the wider index costs nothing on a request's path.
 */
const EVERYWHERE: Array<[index: string, column: string]> = [
  ['idx_logs_user_created', 'user_id'],
  ['idx_logs_username', 'username'],
  ['idx_logs_model_name', 'model_name'],
];
const NOT_ON_SQLITE: Array<[index: string, column: string]> = [
  ['idx_logs_token_name', 'token_name'],
  ['idx_logs_channel_id', 'channel_id'],
];

export async function up(db: Kysely<unknown>, kind: SqlKind): Promise<void> {
  for (const [index, column] of kind === 'sqlite' ? EVERYWHERE : [...EVERYWHERE, ...NOT_ON_SQLITE]) {
    // MySQL indexes belong to their table; SQLite and PostgreSQL index names are schema-wide.
    await (kind === 'mysql' ? db.schema.dropIndex(index).on('logs') : db.schema.dropIndex(index).ifExists()).execute();
    await db.schema.createIndex(index).on('logs').columns([column, 'created_at', 'type']).execute();
  }
  const models = 'idx_quota_data_models_created';
  await (kind === 'mysql' ? db.schema.dropIndex(models).on('quota_data_models') : db.schema.dropIndex(models).ifExists()).execute();
  await db.schema.createIndex(models).on('quota_data_models').columns(['created_at', 'model_name', 'token_used', 'count', 'quota']).execute();
}
