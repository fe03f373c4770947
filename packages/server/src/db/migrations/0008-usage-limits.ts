import type { Kysely } from 'kysely';
import type { SqlKind } from '../../config/config.js';

/**
 * Limits users expect (docs/architecture.md#usage-limits): requests and tokens per minute per API
 * token, and requests in flight per user. 0 means no limit.
 */
export async function up(db: Kysely<unknown>, _kind: SqlKind): Promise<void> {
  await db.schema.alterTable('tokens').addColumn('rpm_limit', 'integer', (c) => c.notNull().defaultTo(0)).execute();
  await db.schema.alterTable('tokens').addColumn('tpm_limit', 'bigint', (c) => c.notNull().defaultTo(0)).execute();
  await db.schema.alterTable('users').addColumn('concurrency_limit', 'integer', (c) => c.notNull().defaultTo(0)).execute();
}
