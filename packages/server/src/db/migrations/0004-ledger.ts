import { sql, type Kysely } from 'kysely';
import type { SqlKind } from '../../config/config.js';
import { defaultEmpty, defaultZero, withId } from './column-types.js';

/**
 * The exact ledger (docs/ledger.md). A request's money moves through three states:
 *
 * - reserved: a row in `reservations` (in-flight only, so recovery scans stay small), now stamped
 *   with the node that holds it and a lease the node renews;
 * - settled | released: one durable row in `ledger_requests`, keyed by the request id. Its primary
 *   key is what makes settle and release idempotent across retries, crashes and nodes.
 *
 * Every other quota movement (sign-up gifts, admin edits, token limits, invite earnings, top-ups,
 * redemptions, refunds) is one row in `ledger_entries` with the deltas it applied, so each user's
 * and token's balances can be recomputed from the ledger alone (reconciliation). Existing
 * installations get an `opening` entry per user and token holding the balances found now.
 */
export async function up(db: Kysely<unknown>, kind: SqlKind): Promise<void> {
  const s = db.schema;
  let requests = s
    .createTable('ledger_requests')
    .addColumn('request_id', 'varchar(64)', (c) => c.primaryKey())
    .addColumn('state', 'integer', defaultZero)
    .addColumn('user_id', 'bigint', defaultZero)
    .addColumn('token_id', 'bigint', defaultZero)
    .addColumn('charge', 'bigint', defaultZero)
    .addColumn('token_taken', 'bigint', defaultZero)
    .addColumn('shortfall', 'bigint', defaultZero)
    .addColumn('created_at', 'bigint', defaultZero);
  // Keyed by the request id alone: one B-tree per insert on SQLite, as `reservations` (0003).
  if (kind === 'sqlite') requests = requests.modifyEnd(sql`WITHOUT ROWID`);
  await requests.execute();

  await s.alterTable('reservations').addColumn('node_id', 'varchar(64)', defaultEmpty).execute();
  await s.alterTable('reservations').addColumn('lease_until', 'bigint', defaultZero).execute();

  await withId(kind, s.createTable('ledger_entries'))
    .addColumn('user_id', 'bigint', defaultZero)
    .addColumn('token_id', 'bigint', defaultZero)
    .addColumn('kind', 'varchar(32)', defaultEmpty)
    .addColumn('quota_delta', 'bigint', defaultZero)
    .addColumn('used_delta', 'bigint', defaultZero)
    .addColumn('aff_delta', 'bigint', defaultZero)
    .addColumn('token_remain_delta', 'bigint', defaultZero)
    .addColumn('token_used_delta', 'bigint', defaultZero)
    .addColumn('actor_id', 'bigint', defaultZero)
    .addColumn('ref', 'varchar(128)')
    .addColumn('created_at', 'bigint', defaultZero)
    .execute();
  await s.createIndex('idx_ledger_entries_user').on('ledger_entries').columns(['user_id', 'id']).execute();
  // An external reference (trade number, redemption key, request id of a refund) applies once.
  await s.createIndex('uq_ledger_entries_ref').on('ledger_entries').columns(['kind', 'ref']).unique().execute();

  const now = Math.floor(Date.now() / 1000);
  // Opening balances: what users and tokens hold now, plus what open reservations took from them
  // (those are converted below and given back by recovery, which then lands on the opening).
  await sql`INSERT INTO ledger_entries (user_id, token_id, kind, quota_delta, used_delta, aff_delta, token_remain_delta, token_used_delta, actor_id, created_at)
    SELECT u.id, 0, 'opening', u.quota + COALESCE((SELECT SUM(r.user_amount) FROM reservations r WHERE r.user_id = u.id), 0), u.used_quota, u.aff_quota, 0, 0, 0, ${now}
    FROM users u`.execute(db);
  await sql`INSERT INTO ledger_entries (user_id, token_id, kind, quota_delta, used_delta, aff_delta, token_remain_delta, token_used_delta, actor_id, created_at)
    SELECT t.user_id, t.id, 'opening', 0, 0, 0, t.remain_quota + COALESCE((SELECT SUM(r.token_amount) FROM reservations r WHERE r.token_id = t.id), 0), t.used_quota, 0, ${now}
    FROM tokens t`.execute(db);
}
