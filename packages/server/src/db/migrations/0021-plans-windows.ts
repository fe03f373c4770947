import { sql, type Kysely } from 'kysely';
import type { SqlKind } from '../../config/config.js';
import { defaultEmpty, defaultZero, withId } from './column-types.js';

/**
 * Periodic limits and plans (docs/ledger.md "Windows and plans").
 *
 * - `users.period_limits`, `tokens.period_limits`: caps per window (JSON, '' = none).
 * - `plans`: what the admin sells; `user_plans`: a user's subscriptions, each a snapshot of the
 *   plan's allowances, price and duration when it was bought or granted, drawn in `priority` order.
 * - `window_counters`: one row per account (`u<user>`, `t<token>`, `s<subscription>`) and window,
 *   holding the current period and what it has used so far (held requests included). The ledger
 *   moves it in the request's own transactions.
 * - `window_charges`: what each request charged each window (`quota`, `requests`), kept after the
 *   request ends so the reconciliation can add a period's charges up to its counter.
 * - `reservations.paid_by` / `ledger_requests.paid_by`: the subscription that paid (0: the wallet);
 *   `reservations.windows`: how many windows the request holds.
 */
export async function up(db: Kysely<unknown>, kind: SqlKind): Promise<void> {
  const s = db.schema;
  await s.alterTable('users').addColumn('period_limits', 'varchar(1024)', defaultEmpty).execute();
  await s.alterTable('tokens').addColumn('period_limits', 'varchar(1024)', defaultEmpty).execute();
  await s.alterTable('reservations').addColumn('paid_by', 'bigint', defaultZero).execute();
  await s.alterTable('reservations').addColumn('windows', 'integer', defaultZero).execute();
  await s.alterTable('ledger_requests').addColumn('paid_by', 'bigint', defaultZero).execute();

  await withId(kind, s.createTable('plans'))
    .addColumn('name', 'varchar(64)', defaultEmpty)
    .addColumn('description', 'varchar(512)', defaultEmpty)
    .addColumn('price', 'bigint', defaultZero)
    .addColumn('duration_days', 'integer', defaultZero)
    .addColumn('allowances', 'varchar(1024)', defaultEmpty)
    .addColumn('models', 'varchar(1024)', defaultEmpty)
    .addColumn('groups', 'varchar(1024)', defaultEmpty)
    .addColumn('fall_through', 'smallint', (c) => c.notNull().defaultTo(1))
    .addColumn('status', 'smallint', (c) => c.notNull().defaultTo(1))
    .addColumn('created_at', 'bigint', defaultZero)
    .addColumn('updated_at', 'bigint', defaultZero)
    .execute();

  await withId(kind, s.createTable('user_plans'))
    .addColumn('user_id', 'bigint', defaultZero)
    .addColumn('plan_id', 'bigint', defaultZero)
    .addColumn('name', 'varchar(64)', defaultEmpty)
    .addColumn('allowances', 'varchar(1024)', defaultEmpty)
    .addColumn('models', 'varchar(1024)', defaultEmpty)
    .addColumn('groups', 'varchar(1024)', defaultEmpty)
    .addColumn('fall_through', 'smallint', (c) => c.notNull().defaultTo(1))
    .addColumn('price', 'bigint', defaultZero)
    .addColumn('duration_days', 'integer', defaultZero)
    .addColumn('status', 'smallint', (c) => c.notNull().defaultTo(1))
    .addColumn('auto_renew', 'smallint', defaultZero)
    .addColumn('priority', 'integer', defaultZero)
    .addColumn('starts_at', 'bigint', defaultZero)
    .addColumn('expires_at', 'bigint', defaultZero)
    .addColumn('renewals', 'integer', defaultZero)
    .addColumn('granted_by', 'bigint', defaultZero)
    .addColumn('created_at', 'bigint', defaultZero)
    .addColumn('ended_at', 'bigint', defaultZero)
    .execute();
  await s.createIndex('idx_user_plans_user').on('user_plans').columns(['user_id', 'status']).execute();
  await s.createIndex('idx_user_plans_expiry').on('user_plans').columns(['status', 'expires_at']).execute();

  let counters = s
    .createTable('window_counters')
    .addColumn('account', 'varchar(32)', (c) => c.notNull())
    .addColumn('win', 'varchar(8)', (c) => c.notNull())
    .addColumn('period_start', 'bigint', defaultZero)
    .addColumn('period_end', 'bigint', defaultZero)
    .addColumn('quota_used', 'bigint', defaultZero)
    .addColumn('requests_used', 'bigint', defaultZero)
    .addPrimaryKeyConstraint('pk_window_counters', ['account', 'win']);
  if (kind === 'sqlite') counters = counters.modifyEnd(sql`WITHOUT ROWID`);
  await counters.execute();

  let charges = s
    .createTable('window_charges')
    .addColumn('request_id', 'varchar(64)', (c) => c.notNull())
    .addColumn('account', 'varchar(32)', (c) => c.notNull())
    .addColumn('win', 'varchar(8)', (c) => c.notNull())
    .addColumn('period_start', 'bigint', defaultZero)
    .addColumn('quota', 'bigint', defaultZero)
    .addColumn('requests', 'integer', defaultZero)
    .addColumn('created_at', 'bigint', defaultZero)
    .addPrimaryKeyConstraint('pk_window_charges', ['request_id', 'account', 'win']);
  if (kind === 'sqlite') charges = charges.modifyEnd(sql`WITHOUT ROWID`);
  await charges.execute();
  await s.createIndex('idx_window_charges_period').on('window_charges').columns(['account', 'win', 'period_start']).execute();
  await s.createIndex('idx_window_charges_created').on('window_charges').column('created_at').execute();
}
