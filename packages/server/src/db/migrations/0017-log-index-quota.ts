import { sql, type Kysely } from 'kysely';
import type { SqlKind } from '../../config/config.js';
import { createLogIndexPg, listLogPartitions, LOG_INDEXES, staleLogIndexesPg } from '../log-partitions.js';

type AnyDb = Kysely<any>; // eslint-disable-line @typescript-eslint/no-explicit-any

/**
 * The log indexes carry `quota`, so a stat sums it from the index alone (issue 36, docs/performance.md):
 *
 * - PostgreSQL: each of the six log indexes is rebuilt with `INCLUDE (quota)` (db/log-partitions.ts,
 *   PG_LOG_INDEX_INCLUDE), on a plain or a partitioned `logs` alike (on a partitioned one the
 *   CREATE INDEX reaches every partition). A plain table gets the shape too: `npm run logs:partition`
 *   then attaches its indexes as they are. A new install's 0016 already made them so: nothing to do.
 * - MySQL / MariaDB: a `logs` partitioned before the indexes named `id, quota`
 *   (mysqlPartitionStatement) gets them; a plain table is left alone (its conversion rebuilds the
 *   indexes anyway).
 * - SQLite: unchanged.
 *
 * On a large existing log this rebuilds the indexes once at the upgrade, with the table's inserts
 * waiting meanwhile (minutes at 10 000 000 rows): docs/deployment.md says how to plan it.
 */
export async function up(db: Kysely<unknown>, kind: SqlKind): Promise<void> {
  const d = db as AnyDb;
  if (kind === 'postgres') {
    const stale = await staleLogIndexesPg(d);
    for (const [name, cols] of LOG_INDEXES.filter(([n]) => stale.includes(n))) {
      await sql`DROP INDEX IF EXISTS ${sql.id(name)}`.execute(d);
      await createLogIndexPg(name, cols).execute(d);
    }
    return;
  }
  if (kind !== 'mysql' || !(await listLogPartitions({ db: d, kind }))) return;
  const r = await sql<{ name: string; cols: string }>`
    SELECT INDEX_NAME AS name, GROUP_CONCAT(COLUMN_NAME ORDER BY SEQ_IN_INDEX) AS cols FROM information_schema.STATISTICS
    WHERE TABLE_SCHEMA = DATABASE() AND TABLE_NAME = 'logs' GROUP BY INDEX_NAME`.execute(d);
  const have = new Map(r.rows.map((row) => [row.name, row.cols]));
  const changes = LOG_INDEXES.filter(([name, cols]) => have.get(name) !== [...cols, 'id', 'quota'].join(',')).map(
    ([name, cols]) => sql`${have.has(name) ? sql`DROP INDEX ${sql.id(name)}, ` : sql``}ADD INDEX ${sql.id(name)} (${sql.join([...cols, 'id', 'quota'].map((c) => sql.id(c)))})`,
  );
  if (changes.length) await sql`ALTER TABLE logs ${sql.join(changes)}`.execute(d);
}
