import { sql, type Kysely } from 'kysely';
import type { SqlKind } from '../../config/config.js';
import { createPartitionedShellPg, createPartitions, finishPartitionedLogsPg, monthStart, mysqlPartitionStatement, plannedPartitions } from '../log-partitions.js';

/**
 * Time partitions for the usage log (issue 36, db/log-partitions.ts,
 * docs/deployment.md#time-partitions-of-the-usage-log), on PostgreSQL and MySQL; SQLite unchanged.
 *
 * Only an empty `logs` (a new install, or a main database whose logs live in LOG_SQL_DSN) is made
 * partitioned here: history before the current month in one partition, the days from the month's
 * start to a week ahead (so the first requests, before the master node's job has run, already find
 * their day; with LOG_PARTITION=month the job goes on with months after them), and a catch-all. A `logs` that already
 * holds rows is left as it is — converting it builds an index over it (PostgreSQL) or copies it
 * (MySQL), which must not happen unannounced at start-up: the operator runs `npm run logs:partition`.
 */
export async function up(db: Kysely<unknown>, kind: SqlKind): Promise<void> {
  if (kind === 'sqlite') return;
  const now = Math.floor(Date.now() / 1000);
  const cut = monthStart(now);
  const days = plannedPartitions(kind, 'day', cut, now);
  if (kind === 'postgres') {
    // The migration runs in a transaction: no row can arrive between the check and the swap.
    await sql`LOCK TABLE logs IN ACCESS EXCLUSIVE MODE`.execute(db);
    if ((await sql`SELECT 1 FROM logs LIMIT 1`.execute(db)).rows.length) return;
    await sql`ALTER SEQUENCE logs_id_seq OWNED BY NONE`.execute(db);
    await sql`ALTER TABLE logs RENAME TO logs_unpartitioned`.execute(db);
    await createPartitionedShellPg(db, 'logs_unpartitioned');
    await sql`DROP TABLE logs_unpartitioned`.execute(db);
    await finishPartitionedLogsPg(db);
    await sql`CREATE TABLE logs_p_past PARTITION OF logs FOR VALUES FROM (MINVALUE) TO (${sql.lit(cut)})`.execute(db);
    await createPartitions(db, kind, days);
    return;
  }
  if ((await sql`SELECT 1 FROM logs LIMIT 1`.execute(db)).rows.length) return;
  await mysqlPartitionStatement(cut).execute(db);
  await createPartitions(db, kind, days);
}
