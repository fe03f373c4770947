import { sql, type Kysely } from 'kysely';
import type { SqlKind } from '../config/config.js';
import type { Database } from '../db/schema.js';
import { outboxRow } from '../modules/logs/log-outbox.js';

/**
 * The ledger's SQL, compiled once per dialect and re-bound per request: the hot path skips the
 * query builder. Parameters are marked by name (`P`; one name may stand more than once) so their
 * compiled order can be recovered.
 */
export type Args = Record<string, unknown>;
/** SQL text and bound parameters; turned into a Kysely CompiledQuery only on the async path. */
export type Bound = { sql: string; parameters: unknown[] };
export type Bind = (args: Args) => Bound;

export const P = (name: string) => `\u0000${name}` as never;

function prepare(cq: { sql: string; parameters: readonly unknown[] }): Bind {
  const order = cq.parameters.map((p) => {
    if (typeof p !== 'string' || !p.startsWith('\u0000')) throw new Error(`unnamed parameter in ${cq.sql}`);
    return p.slice(1);
  });
  return (args) => ({ sql: cq.sql, parameters: order.map((k) => args[k]) });
}

export interface LogValues {
  user_id: number;
  created_at: number;
  type: number;
  content: string;
  username: string;
  token_name: string;
  model_name: string;
  quota: number;
  prompt_tokens: number;
  completion_tokens: number;
  use_time: number;
  is_stream: number;
  channel_id: number;
  token_id: number;
  group: string;
  other: string;
  request_id: string;
}

const LOG_COLUMNS: Array<keyof LogValues> = [
  'user_id', 'created_at', 'type', 'content', 'username', 'token_name', 'model_name', 'quota', 'prompt_tokens',
  'completion_tokens', 'use_time', 'is_stream', 'channel_id', 'token_id', 'group', 'other', 'request_id',
];

export const SETTLED = 2;
export const RELEASED = 3;

/**
 * `outbox`: the logs live in another database (LOG_SQL_DSN), so a consume-log row goes to this
 * database's `log_outbox` in the settle's transaction, named after the node that wrote it.
 */
export function buildStatements(db: Kysely<Database>, kind: SqlKind, outbox?: { nodeId: string }) {
  const locking = kind !== 'sqlite';
  // Every balance step of the ledger (batch.ts BalanceMove): a conditional move of the balance and
  // the used counters. A reserve is (take = amount, min = amount), a release (take = -amount, no
  // floor), a settle (take = what is still owed, used = the charge, count = 1).
  const userMove = db
    .updateTable('users')
    .set({
      quota: sql`quota - ${P('take')}`,
      used_quota: sql`used_quota + ${P('used')}`,
      request_count: sql`request_count + ${P('count')}`,
    })
    .where('id', '=', P('id'))
    .where('quota', '>=', P('min'));
  const tokenMove = db
    .updateTable('tokens')
    .set({ remain_quota: sql`remain_quota - ${P('take')}`, used_quota: sql`used_quota + ${P('used')}` })
    .where('id', '=', P('id'))
    .where('remain_quota', '>=', P('min'));
  // A request id that already reached a terminal state is never reserved again.
  const notFinished = sql`NOT EXISTS (SELECT 1 FROM ledger_requests WHERE request_id = ${P('rid')})`;
  const cols = sql`(request_id, user_id, token_id, user_amount, token_amount, created_at, node_id, lease_until, paid_by, windows)`;
  const values =
    kind === 'postgres'
      ? sql`CAST(${P('rid')} AS varchar), CAST(${P('uid')} AS bigint), CAST(${P('tid')} AS bigint), CAST(${P('ua')} AS bigint), CAST(${P('ta')} AS bigint), CAST(${P('now')} AS bigint), CAST(${P('node')} AS varchar), CAST(${P('lease')} AS bigint), CAST(${P('paid')} AS bigint), CAST(${P('wins')} AS integer)`
      : sql`${P('rid')}, ${P('uid')}, ${P('tid')}, ${P('ua')}, ${P('ta')}, ${P('now')}, ${P('node')}, ${P('lease')}, ${P('paid')}, ${P('wins')}`;
  const insertReservation = sql`INSERT INTO reservations ${cols} SELECT ${values}${kind === 'mysql' ? sql` FROM DUAL` : sql``} WHERE ${notFinished}`;
  const deleteReservation = db.deleteFrom('reservations').where('request_id', '=', P('rid'));
  const selectReservation = db.selectFrom('reservations').selectAll().where('request_id', '=', P('rid'));
  const requestValues = {
    request_id: P('rid'),
    state: P('state'),
    user_id: P('uid'),
    token_id: P('tid'),
    charge: P('charge'),
    token_taken: P('tt'),
    shortfall: P('sf'),
    created_at: P('now'),
    paid_by: P('paid'),
  };
  const insertRequest =
    kind === 'mysql'
      ? db.insertInto('ledger_requests').ignore().values(requestValues)
      : db.insertInto('ledger_requests').values(requestValues).onConflict((oc) => oc.column('request_id').doNothing());
  const selectRequest = db.selectFrom('ledger_requests').select(['state', 'charge', 'paid_by']).where('request_id', '=', P('rid'));
  const setPaidBy = db.updateTable('ledger_requests').set({ paid_by: P('paid') }).where('request_id', '=', P('rid'));
  const releasedToSettled = db
    .updateTable('ledger_requests')
    .set({ state: sql.lit(SETTLED), charge: P('charge'), token_taken: P('tt'), shortfall: P('sf') })
    .where('request_id', '=', P('rid'))
    .where('state', '=', sql.lit(RELEASED));
  const fixRequest = db
    .updateTable('ledger_requests')
    .set({ charge: P('charge'), token_taken: P('tt'), shortfall: P('sf') })
    .where('request_id', '=', P('rid'));
  const userLockBase = db.selectFrom('users').select('quota').where('id', '=', P('id'));
  const tokenLockBase = db.selectFrom('tokens').select('remain_quota').where('id', '=', P('id'));
  const tokenUsed = db.updateTable('tokens').set({ used_quota: sql`used_quota + ${P('charge')}` }).where('id', '=', P('id'));
  const channelSettle = db
    .updateTable('channels')
    .set({ used_quota: sql`used_quota + ${P('charge')}`, response_time: P('rt') })
    .where('id', '=', P('id'));
  const logValues = Object.fromEntries(LOG_COLUMNS.map((c) => [c, P(c)])) as never;
  const insertLog = db.insertInto('logs').values(logValues);
  const renewLeases = db
    .updateTable('reservations')
    .set({ lease_until: P('until') })
    .where('node_id', '=', P('node'))
    .where('created_at', '>=', P('since'));
  const windows = windowStatements(db, kind);
  return {
    ...windows,
    setPaidBy: prepare(setPaidBy.compile()),
    userMove: prepare(userMove.compile()),
    tokenMove: prepare(tokenMove.compile()),
    insertReservation: prepare(insertReservation.compile(db)),
    deleteReservation: prepare(deleteReservation.compile()),
    selectReservation: prepare(selectReservation.compile()),
    insertRequest: prepare(insertRequest.compile()),
    selectRequest: prepare(selectRequest.compile()),
    releasedToSettled: prepare(releasedToSettled.compile()),
    fixRequest: prepare(fixRequest.compile()),
    // A row lock where the database has them; SQLite transactions are already serial (IMMEDIATE).
    userLock: prepare((locking ? userLockBase.forUpdate() : userLockBase).compile()),
    tokenLock: prepare((locking ? tokenLockBase.forUpdate() : tokenLockBase).compile()),
    tokenUsed: prepare(tokenUsed.compile()),
    channelSettle: prepare(channelSettle.compile()),
    insertLog: outbox ? outboxInsert(db, outbox.nodeId) : prepare(insertLog.compile()),
    renewLeases: prepare(renewLeases.compile()),
  };
}

/**
 * Window counters and charges (docs/ledger.md "Windows and plans"): a counter is read under its
 * row lock, decided in memory, then written; a request's charge to each window is its own row.
 */
function windowStatements(db: Kysely<Database>, kind: SqlKind) {
  const lockBase = db
    .selectFrom('window_counters')
    .select(['period_start', 'period_end', 'quota_used', 'requests_used'])
    .where('account', '=', P('acct'))
    .where('win', '=', P('win'));
  const counterValues = { account: P('acct'), win: P('win'), period_start: P('start'), period_end: P('end'), quota_used: P('q'), requests_used: P('r') };
  const insertCounter =
    kind === 'mysql'
      ? db.insertInto('window_counters').ignore().values(counterValues)
      : db.insertInto('window_counters').values(counterValues).onConflict((oc) => oc.columns(['account', 'win']).doNothing());
  const setCounter = db
    .updateTable('window_counters')
    .set({ period_start: P('start'), period_end: P('end'), quota_used: P('q'), requests_used: P('r') })
    .where('account', '=', P('acct'))
    .where('win', '=', P('win'));
  // Only the period the charge was made in: a counter that has rolled over since is left alone.
  const addCounter = db
    .updateTable('window_counters')
    .set({ quota_used: sql`quota_used + ${P('q')}`, requests_used: sql`requests_used + ${P('r')}` })
    .where('account', '=', P('acct'))
    .where('win', '=', P('win'))
    .where('period_start', '=', P('start'));
  const insertCharge = db
    .insertInto('window_charges')
    .values({ request_id: P('rid'), account: P('acct'), win: P('win'), period_start: P('start'), quota: P('q'), requests: P('r'), created_at: P('now') });
  const chargesOf = db.selectFrom('window_charges').select(['account', 'win', 'period_start', 'quota', 'requests']).where('request_id', '=', P('rid'));
  const setCharge = db
    .updateTable('window_charges')
    .set({ quota: P('q'), requests: P('r') })
    .where('request_id', '=', P('rid'))
    .where('account', '=', P('acct'))
    .where('win', '=', P('win'));
  return {
    windowLock: prepare((kind === 'sqlite' ? lockBase : lockBase.forUpdate()).compile()),
    windowInsert: prepare(insertCounter.compile()),
    windowSet: prepare(setCounter.compile()),
    windowAdd: prepare(addCounter.compile()),
    chargeInsert: prepare(insertCharge.compile()),
    chargesOf: prepare(chargesOf.compile()),
    chargeSet: prepare(setCharge.compile()),
  };
}

/** The consume-log insert as an outbox row (modules/logs/log-outbox.ts `outboxRow`), compiled once. */
function outboxInsert(db: Kysely<Database>, nodeId: string): Bind {
  const insert = prepare(db.insertInto('log_outbox').values({ kind: P('kind'), created_at: P('created_at'), node_id: P('node_id'), row: P('row') }).compile());
  return (log) => insert(outboxRow('log', log, nodeId) as Args);
}

export type Statements = ReturnType<typeof buildStatements>;
