import type { Kysely } from 'kysely';
import type { SqlKind } from '../../config/config.js';
import { defaultEmpty } from './column-types.js';

/**
 * Discord sign-in and Stripe top-up (issue 33): `users.discord_id` is looked up at every Discord
 * sign-in like the other identity columns, hence the index. `top_ups.gateway_ref` is the payment
 * service's id for the order (the Stripe Checkout Session), so a webhook event about another
 * session cannot complete it; `top_ups.note` records what happened after the payment (a refund, a
 * dispute) in the admin's order list.
 */
export async function up(db: Kysely<unknown>, _kind: SqlKind): Promise<void> {
  await db.schema.alterTable('users').addColumn('discord_id', 'varchar(64)', defaultEmpty).execute();
  await db.schema.createIndex('idx_users_discord_id').on('users').column('discord_id').execute();
  await db.schema.alterTable('top_ups').addColumn('gateway_ref', 'varchar(191)', defaultEmpty).execute();
  await db.schema.alterTable('top_ups').addColumn('note', 'varchar(255)', defaultEmpty).execute();
}
