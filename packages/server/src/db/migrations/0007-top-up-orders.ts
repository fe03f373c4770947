import type { Kysely } from 'kysely';
import type { SqlKind } from '../../config/config.js';
import { defaultEmpty, defaultZero } from './column-types.js';

/**
 * Online top-up orders (`top_ups`): `quota` is what a confirmed payment credits, fixed when the
 * order is made so a later QuotaPerUnit change cannot alter a paid order; `payment_method` and
 * `complete_time` let an admin see how and when an order was paid. Rows of earlier versions keep 0
 * and '' (the payment code credits `amount` × QuotaPerUnit for them, as the reference did).
 */
export async function up(db: Kysely<unknown>, _kind: SqlKind): Promise<void> {
  await db.schema.alterTable('top_ups').addColumn('quota', 'bigint', defaultZero).execute();
  await db.schema.alterTable('top_ups').addColumn('payment_method', 'varchar(32)', defaultEmpty).execute();
  await db.schema.alterTable('top_ups').addColumn('complete_time', 'bigint', defaultZero).execute();
  await db.schema.createIndex('idx_top_ups_status').on('top_ups').column('status').execute();
}
