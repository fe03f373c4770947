import type { Kysely } from 'kysely';
import type { SqlKind } from '../../config/config.js';
import { defaultZero } from './column-types.js';

/**
 * The relay's reservation ledger (docs/architecture.md#the-ledger). A row exists only between reserve and settle:
 * settle deletes it in the same transaction that charges and writes the consume log, so after a
 * crash the table holds exactly the reservations to give back, and start-up releases them.
 */
export async function up(db: Kysely<unknown>, _kind: SqlKind): Promise<void> {
  await db.schema
    .createTable('reservations')
    .addColumn('request_id', 'varchar(64)', (c) => c.primaryKey())
    .addColumn('user_id', 'bigint', defaultZero)
    .addColumn('token_id', 'bigint', defaultZero)
    .addColumn('user_amount', 'bigint', defaultZero)
    .addColumn('token_amount', 'bigint', defaultZero)
    .addColumn('created_at', 'bigint', defaultZero)
    .execute();
  await db.schema.createIndex('idx_reservations_created').on('reservations').column('created_at').execute();
  // Channel selection reads enabled abilities by (group, model); the list screen sorts by priority.
  await db.schema.createIndex('idx_abilities_lookup').on('abilities').columns(['group', 'model', 'enabled', 'priority']).execute();
  await db.schema.createIndex('idx_channels_priority').on('channels').columns(['priority', 'id']).execute();
}
