import type { Kysely } from 'kysely';
import type { SqlKind } from '../../config/config.js';
import { defaultEmpty } from './column-types.js';

/**
 * A plan paid online (issue 32; docs/ledger.md "Plans paid online"): an order in `top_ups` whose
 * `plan_id` names the plan it pays for (NULL: a plain top-up, as every earlier order). When the
 * payment is confirmed the amount is credited and the plan bought from it in one transaction:
 * `subscription_id` is the subscription bought; `plan_error` the server message code of why the
 * plan could not be bought (the credit then stays in the wallet), '' otherwise.
 */
export async function up(db: Kysely<unknown>, _kind: SqlKind): Promise<void> {
  await db.schema.alterTable('top_ups').addColumn('plan_id', 'bigint').execute();
  await db.schema.alterTable('top_ups').addColumn('subscription_id', 'bigint').execute();
  await db.schema.alterTable('top_ups').addColumn('plan_error', 'varchar(64)', defaultEmpty).execute();
}
