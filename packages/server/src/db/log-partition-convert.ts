import { sql, type Kysely } from 'kysely';
import type { Db } from './client.js';
import {
  createLogIndexPg,
  createPartitionedShellPg,
  ensureLogPartitions,
  finishPartitionedLogsPg,
  listLogPartitions,
  LOG_INDEXES,
  mysqlPartitionStatement,
  periodOf,
  staleLogIndexesPg,
  type LogPartitionMode,
} from './log-partitions.js';

type AnyDb = Kysely<any>; // eslint-disable-line @typescript-eslint/no-explicit-any

/** Progress lines for the operator (`npm run logs:partition`). */
export type Say = (line: string) => void;

/**
 * Converts an existing plain `logs` (one made before 0016, with rows) into the partitioned table
 * (docs/deployment.md#time-partitions-of-the-usage-log); returns the partitions it made, or null
 * when `logs` already was partitioned. Everything up to a cut at least two days ahead becomes one
 * history partition (`logs_p_past` / `p_past`); the day (or month) partitions start at the cut.
 *
 * PostgreSQL — no rewrite, writes go on except for a moment:
 * 1. the keys the partitioned table needs, (id, created_at) and (request_id, created_at), are built
 *    with CREATE INDEX CONCURRENTLY (one pass over the table each; inserts continue), and so is any
 *    log index not yet of the partitioned table's shape (INCLUDE (quota), normally made by
 *    migration 0017 already) — else the ATTACH below would build it under the exclusive lock;
 * 2. a CHECK (created_at < cut) is added NOT VALID and then validated (a read of the table; inserts
 *    continue), so ATTACH can prove the bound without scanning again;
 * 3. in one short transaction: the table is renamed `logs_p_past` (its indexes too), the partitioned
 *    `logs` is created beside it with the same columns and id sequence, and the old table attached
 *    as the partition FROM (MINVALUE) TO (cut); its existing indexes become the partitions' ones.
 * MySQL / MariaDB — one ALTER TABLE … PARTITION BY, which copies the table (writes wait meanwhile).
 */
export async function convertLogsToPartitions(handle: Pick<Db, 'db' | 'kind'>, mode: LogPartitionMode, say: Say = () => {}, now = Math.floor(Date.now() / 1000)): Promise<string[] | null> {
  if (handle.kind === 'sqlite') throw new Error('SQLite keeps the usage log in one table: there is nothing to partition');
  if (await listLogPartitions(handle)) return null;
  const period = mode === 'off' ? 'day' : mode;
  const cut = periodOf(period, now + 2 * 86_400).end;
  const db = handle.db as AnyDb;
  if (handle.kind === 'mysql') {
    say(`rebuilding logs as a partitioned table (history before ${new Date(cut * 1000).toISOString()} in p_past): this copies the table`);
    await mysqlPartitionStatement(cut).execute(db);
  } else {
    for (const [name, cols] of [['logs_id_created_key', ['id', 'created_at']], ['logs_request_created_idx', ['request_id', 'created_at']]] as const) {
      // An index left invalid by an interrupted earlier run is built again.
      await sql`DO $$ BEGIN IF EXISTS (SELECT 1 FROM pg_index WHERE indexrelid = to_regclass(${sql.lit(name)}) AND NOT indisvalid) THEN EXECUTE 'DROP INDEX ' || ${sql.lit(name)}; END IF; END $$`.execute(db);
      say(`building the unique index ${name} (${cols.join(', ')}) concurrently`);
      await sql`CREATE UNIQUE INDEX CONCURRENTLY IF NOT EXISTS ${sql.id(name)} ON logs (${sql.join(cols.map((c) => sql.id(c)))})`.execute(db);
    }
    await reshapeLogIndexesPg(db, say);
    say(`checking that every row is older than ${new Date(cut * 1000).toISOString()} (a read of the table; writes go on)`);
    await sql`ALTER TABLE logs DROP CONSTRAINT IF EXISTS logs_p_past_bound`.execute(db);
    await sql`ALTER TABLE logs ADD CONSTRAINT logs_p_past_bound CHECK (created_at < ${sql.lit(cut)}) NOT VALID`.execute(db);
    await sql`ALTER TABLE logs VALIDATE CONSTRAINT logs_p_past_bound`.execute(db);
    say('swapping in the partitioned table and attaching the old one as logs_p_past');
    await db.transaction().execute(async (t) => {
      await sql`LOCK TABLE logs IN ACCESS EXCLUSIVE MODE`.execute(t);
      await sql`ALTER TABLE logs RENAME TO logs_p_past`.execute(t);
      await sql`ALTER TABLE logs_p_past RENAME CONSTRAINT logs_pkey TO logs_p_past_pkey`.execute(t);
      for (const [name] of LOG_INDEXES) await sql`ALTER INDEX IF EXISTS ${sql.id(name)} RENAME TO ${sql.id(name.replace('idx_logs_', 'idx_logs_p_past_'))}`.execute(t);
      await sql`ALTER TABLE logs_p_past ADD CONSTRAINT logs_p_past_id_created UNIQUE USING INDEX logs_id_created_key`.execute(t);
      await sql`ALTER TABLE logs_p_past ADD CONSTRAINT logs_p_past_request_created UNIQUE USING INDEX logs_request_created_idx`.execute(t);
      await createPartitionedShellPg(t, 'logs_p_past');
      await finishPartitionedLogsPg(t);
      await sql`ALTER TABLE logs ATTACH PARTITION logs_p_past FOR VALUES FROM (MINVALUE) TO (${sql.lit(cut)})`.execute(t);
      // The partition's own bound says the same from now on.
      await sql`ALTER TABLE logs_p_past DROP CONSTRAINT logs_p_past_bound`.execute(t);
    });
  }
  const made = mode === 'off' ? [] : await ensureLogPartitions(handle, mode, now);
  say(`made ${made.length} partition(s) from ${new Date(cut * 1000).toISOString()} on`);
  return made;
}

/**
 * PostgreSQL: rebuilds, without blocking inserts, each of the plain table's log indexes that is not
 * of the shape the partitioned table's index has (createLogIndexPg), so that ATTACH takes the old
 * table's indexes as they are instead of building new ones while it holds the table.
 */
async function reshapeLogIndexesPg(db: AnyDb, say: Say): Promise<void> {
  const stale = await staleLogIndexesPg(db, 'logs');
  for (const [name, cols] of LOG_INDEXES.filter(([n]) => stale.includes(n))) {
    const next = `${name}_next`;
    // One left by an interrupted earlier run (valid or not) is built again.
    await sql`DROP INDEX CONCURRENTLY IF EXISTS ${sql.id(next)}`.execute(db);
    say(`rebuilding the index ${name} with INCLUDE (quota) concurrently`);
    await createLogIndexPg(next, cols, 'logs', { concurrently: true }).execute(db);
    await sql`DROP INDEX CONCURRENTLY IF EXISTS ${sql.id(name)}`.execute(db);
    await sql`ALTER INDEX ${sql.id(next)} RENAME TO ${sql.id(name)}`.execute(db);
  }
}
