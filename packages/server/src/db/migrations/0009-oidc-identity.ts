import type { Kysely } from 'kysely';
import type { SqlKind } from '../../config/config.js';

/**
 * Generic OpenID Connect sign-in (docs/configuration.md): the provider's user id, looked up at
 * every OIDC sign-in like the other identity columns, hence the index.
 */
export async function up(db: Kysely<unknown>, _kind: SqlKind): Promise<void> {
  await db.schema.alterTable('users').addColumn('oidc_id', 'varchar(191)', (c) => c.notNull().defaultTo('')).execute();
  await db.schema.createIndex('idx_users_oidc_id').on('users').column('oidc_id').execute();
}
