import type { Kysely } from 'kysely';
import type { SqlKind } from '../../config/config.js';
import { defaultEmpty, defaultZero, TEXT, withId } from './column-types.js';

/**
 * A separate log database (LOG_SQL_DSN, issue 36). Every database gets both tables (the log
 * database runs the same migrations as the main one); each side uses one:
 * - `log_outbox`, in the main database: a usage-log or audit row written in the same transaction
 *   as the money it describes, until the shipper has stored it in the log database. `kind` is
 *   `log` or `audit`; `row` the row's columns as JSON.
 * - `log_outbox_shipped`, in the log database: the outbox ids already stored there, written in the
 *   same transaction as the rows, so a batch shipped again (the shipper stopped between the log
 *   database's commit and the outbox's delete) is recognised and not stored twice.
 */
export async function up(db: Kysely<unknown>, kind: SqlKind): Promise<void> {
  await withId(kind, db.schema.createTable('log_outbox'))
    .addColumn('kind', 'varchar(8)', defaultEmpty)
    .addColumn('created_at', 'bigint', defaultZero)
    .addColumn('node_id', 'varchar(64)', defaultEmpty)
    .addColumn('row', TEXT, (c) => c.notNull())
    .execute();
  await db.schema
    .createTable('log_outbox_shipped')
    .addColumn('outbox_id', 'bigint', (c) => c.primaryKey())
    .addColumn('shipped_at', 'bigint', defaultZero)
    .execute();
}
