import type { Kysely } from 'kysely';
import { defaultEmpty } from './column-types.js';

/**
 * A task's ledger request (docs/ledger.md "Windows and plans"): the request id its submit was
 * reserved and settled under, so a failed task's refund finds who paid (the wallet or a plan,
 * `ledger_requests.paid_by`) and the windows it was counted in (`window_charges`). Empty on rows
 * of earlier versions and imported ones: their refund goes to the wallet, as before.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('midjourneys').addColumn('request_id', 'varchar(64)', defaultEmpty).execute();
  await db.schema.alterTable('tasks').addColumn('request_id', 'varchar(64)', defaultEmpty).execute();
}
