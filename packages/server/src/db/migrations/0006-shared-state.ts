import type { Kysely } from 'kysely';
import type { SqlKind } from '../../config/config.js';
import { TEXT } from './column-types.js';

/**
 * Multi-node state without Redis (docs/architecture.md#several-nodes): short-lived values such as
 * verification codes and OAuth states (`shared_state`, expired rows removed lazily and by a
 * periodic cleanup), and job locks so one node runs each background job (`job_locks`).
 * Times are Unix milliseconds.
 */
export async function up(db: Kysely<unknown>, _kind: SqlKind): Promise<void> {
  await db.schema
    .createTable('shared_state')
    .addColumn('key', 'varchar(64)', (c) => c.primaryKey())
    .addColumn('value', TEXT, (c) => c.notNull())
    .addColumn('expires_at', 'bigint', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('idx_shared_state_expires').on('shared_state').column('expires_at').execute();
  await db.schema
    .createTable('job_locks')
    .addColumn('name', 'varchar(100)', (c) => c.primaryKey())
    .addColumn('owner', 'varchar(100)', (c) => c.notNull())
    .addColumn('expires_at', 'bigint', (c) => c.notNull())
    .execute();
}
