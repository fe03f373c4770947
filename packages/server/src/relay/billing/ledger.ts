import { CompiledQuery, sql, type Kysely, type QueryResult } from 'kysely';
import type { Db } from '../../db/client.js';
import type { Database } from '../../db/schema.js';

/**
 * The money ledger (DESIGN.md §1.2): reserve → settle or release, each one transaction.
 *
 * - reserve: a conditional debit of the user AND the token (`… WHERE quota >= x`), plus a
 *   reservation row keyed by the request id. Balances can never go below zero: the database
 *   refuses the debit rather than the application checking first.
 * - settle: deletes the reservation, charges the actual cost (releasing the rest), moves
 *   used_quota / request_count on user, token and channel, and inserts the consume log row, all in
 *   one transaction. The log's UNIQUE request_id means a second settle of the same request fails
 *   whole instead of charging twice.
 * - release: gives a reservation back (every channel failed, or start-up after a crash).
 *
 * The statements are compiled once per dialect and re-bound per request: the hot path skips the
 * query builder.
 */

export interface ReserveInput {
  requestId: string;
  userId: number;
  tokenId: number;
  /** False for unlimited tokens: only the user is debited. */
  tokenLimited: boolean;
  amount: number;
  now: number;
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

export interface SettleInput {
  requestId: string;
  userId: number;
  tokenId: number;
  tokenLimited: boolean;
  /** What reserve() took (0 when nothing was reserved). */
  reserved: number;
  /** The actual cost. */
  charge: number;
  channelId: number;
  responseTimeMs: number;
  /** The consume log row; `quota` and `other` are filled with the amount really charged. */
  log: ((charged: number, shortfall: number) => LogValues) | null;
}

export type ReserveResult = 'ok' | 'user' | 'token';

type Args = Record<string, unknown>;
/** SQL text and bound parameters; turned into a Kysely CompiledQuery only on the async path. */
type Bound = { sql: string; parameters: unknown[] };
type Bind = (args: Args) => Bound;

/** Marks a parameter by name so the compiled parameter order can be recovered. */
const P = (name: string) => `\u0000${name}` as never;

function prepare(cq: { sql: string; parameters: readonly unknown[] }): Bind {
  const order = cq.parameters.map((p) => {
    if (typeof p !== 'string' || !p.startsWith('\u0000')) throw new Error(`unnamed parameter in ${cq.sql}`);
    return p.slice(1);
  });
  return (args) => ({ sql: cq.sql, parameters: order.map((k) => args[k]) });
}

function affected(r: QueryResult<unknown>): boolean {
  return Number(r.numAffectedRows ?? 0n) > 0;
}

const LOG_COLUMNS: Array<keyof LogValues> = [
  'user_id', 'created_at', 'type', 'content', 'username', 'token_name', 'model_name', 'quota', 'prompt_tokens',
  'completion_tokens', 'use_time', 'is_stream', 'channel_id', 'token_id', 'group', 'other', 'request_id',
];

function buildStatements(db: Kysely<Database>) {
  const reserveUser = db
    .updateTable('users')
    .set({ quota: sql`quota - ${P('amt')}` })
    .where('id', '=', P('id'))
    .where('quota', '>=', P('amt2'));
  const reserveToken = db
    .updateTable('tokens')
    .set({ remain_quota: sql`remain_quota - ${P('amt')}` })
    .where('id', '=', P('id'))
    .where('remain_quota', '>=', P('amt2'));
  const insertReservation = db.insertInto('reservations').values({
    request_id: P('rid'),
    user_id: P('uid'),
    token_id: P('tid'),
    user_amount: P('ua'),
    token_amount: P('ta'),
    created_at: P('now'),
  });
  const deleteReservation = db.deleteFrom('reservations').where('request_id', '=', P('rid'));
  const selectReservation = db.selectFrom('reservations').selectAll().where('request_id', '=', P('rid'));
  const userSettle = db
    .updateTable('users')
    .set({
      quota: sql`quota - ${P('delta')}`,
      used_quota: sql`used_quota + ${P('charge')}`,
      request_count: sql`request_count + 1`,
    })
    .where('id', '=', P('id'))
    .where('quota', '>=', P('min'));
  const userQuota = db.selectFrom('users').select('quota').where('id', '=', P('id'));
  const userRelease = db.updateTable('users').set({ quota: sql`quota + ${P('amt')}` }).where('id', '=', P('id'));
  const tokenSettle = db
    .updateTable('tokens')
    .set({
      // Token remain is a spending limit, not money: an overrun clamps it at zero.
      remain_quota: sql`CASE WHEN remain_quota >= ${P('delta')} THEN remain_quota - ${P('delta2')} ELSE 0 END`,
      used_quota: sql`used_quota + ${P('charge')}`,
    })
    .where('id', '=', P('id'));
  const tokenUsed = db.updateTable('tokens').set({ used_quota: sql`used_quota + ${P('charge')}` }).where('id', '=', P('id'));
  const tokenRelease = db.updateTable('tokens').set({ remain_quota: sql`remain_quota + ${P('amt')}` }).where('id', '=', P('id'));
  const channelSettle = db
    .updateTable('channels')
    .set({ used_quota: sql`used_quota + ${P('charge')}`, response_time: P('rt') })
    .where('id', '=', P('id'));
  const logValues = Object.fromEntries(LOG_COLUMNS.map((c) => [c, P(c)])) as never;
  const insertLog = db.insertInto('logs').values(logValues);
  return {
    reserveUser: prepare(reserveUser.compile()),
    reserveToken: prepare(reserveToken.compile()),
    insertReservation: prepare(insertReservation.compile()),
    deleteReservation: prepare(deleteReservation.compile()),
    selectReservation: prepare(selectReservation.compile()),
    userSettle: prepare(userSettle.compile()),
    userQuota: prepare(userQuota.compile()),
    userRelease: prepare(userRelease.compile()),
    tokenSettle: prepare(tokenSettle.compile()),
    tokenUsed: prepare(tokenUsed.compile()),
    tokenRelease: prepare(tokenRelease.compile()),
    channelSettle: prepare(channelSettle.compile()),
    insertLog: prepare(insertLog.compile()),
  };
}

/**
 * `add`: an unconditional counter increment (token used_quota of an unlimited token, channel
 * used_quota / response_time). In a SQLite group commit these are summed per row and written
 * once at the end of the batch, inside the same transaction: a batch of N settles on one channel
 * costs one channel UPDATE instead of N.
 */
type Add = { table: 'tokens' | 'channels'; id: number; charge: number; rt: number };
type Step = { q: Bound; get?: boolean; add?: Add };
type StepResult = { affected: number; row?: Record<string, unknown> };
/** A ledger transaction written once as a generator of statements, run sync (SQLite) or async. */
type Ops<T> = Generator<Step, T, StepResult>;

const run = (q: Bound): Step => ({ q });
const get = (q: Bound): Step => ({ q, get: true });
const add = (q: Bound, a: Add): Step => ({ q, add: a });

export class Ledger {
  private readonly q: ReturnType<typeof buildStatements>;
  private readonly statements = new Map<string, import('better-sqlite3').Statement>();

  constructor(private readonly handle: Db) {
    this.q = buildStatements(handle.db);
  }

  /**
   * SQLite: one synchronous BEGIN IMMEDIATE … COMMIT on the shared connection with cached prepared
   * statements — nothing else runs in between, so concurrent requests never queue behind an open
   * transaction. If an async (Kysely) transaction is open on the connection right now, wait for it
   * through Kysely instead of joining it. PostgreSQL / MySQL: an ordinary async transaction.
   */
  private queue: Array<{ ops: () => Ops<unknown>; resolve: (v: unknown) => void; reject: (e: unknown) => void }> = [];
  private flushScheduled = false;
  /** Requests of this process between reserve and settle: with none other, batching only adds latency. */
  private readonly open = new Set<string>();

  /**
   * SQLite: synchronous transactions on the shared connection with cached prepared statements —
   * nothing else runs in between, so concurrent requests never queue behind an open transaction.
   * Under load the ledger operations of one event-loop turn are group-committed: one
   * BEGIN IMMEDIATE … COMMIT. If an async (Kysely) transaction is open on the connection, wait for it through Kysely
   * instead of joining it. PostgreSQL / MySQL: an ordinary async transaction per operation.
   */
  private transact<T>(ops: () => Ops<T>): Promise<T> {
    if (this.handle.sqlite) {
      return new Promise<T>((resolve, reject) => {
        this.queue.push({ ops, resolve: resolve as (v: unknown) => void, reject });
        if (this.flushScheduled) return;
        if (this.open.size === 0) {
          this.flush();
          return;
        }
        this.flushScheduled = true;
        setImmediate(() => this.flush());
      });
    }
    return this.transactAsync(ops);
  }

  private flush(): void {
    this.flushScheduled = false;
    const batch = this.queue;
    this.queue = [];
    const sqlite = this.handle.sqlite!;
    if (sqlite.inTransaction) {
      for (const item of batch) this.transactAsync(item.ops).then(item.resolve, item.reject);
      return;
    }
    const runOps = (ops: () => Ops<unknown>): unknown => {
      const g = ops();
      let step = g.next();
      while (!step.done) step = g.next(this.execSync(step.value));
      return step.value;
    };
    let values: unknown[];
    try {
      // Operations never throw by design (a short reserve undoes its own debit), so a whole batch
      // commits or fails together without a savepoint per operation.
      values = this.immediate(() => this.summing(() => batch.map((item) => runOps(item.ops))));
    } catch {
      // A real database error (e.g. a duplicate request id): redo each on its own to isolate it.
      for (const item of batch) {
        try {
          item.resolve(this.immediate(() => this.summing(() => runOps(item.ops))));
        } catch (err) {
          item.reject(err);
        }
      }
      return;
    }
    for (let i = 0; i < batch.length; i++) batch[i]!.resolve(values[i]);
  }

  private txStatements?: { begin: import('better-sqlite3').Statement; commit: import('better-sqlite3').Statement; rollback: import('better-sqlite3').Statement };

  /**
   * BEGIN IMMEDIATE … COMMIT with statements prepared once: `sqlite.transaction(fn)` builds a
   * wrapper function per call, which cost about as much as a settle's statements at one connection.
   */
  private immediate<T>(fn: () => T): T {
    const sqlite = this.handle.sqlite!;
    const tx = (this.txStatements ??= {
      begin: sqlite.prepare('BEGIN IMMEDIATE'),
      commit: sqlite.prepare('COMMIT'),
      rollback: sqlite.prepare('ROLLBACK'),
    });
    tx.begin.run();
    try {
      const value = fn();
      tx.commit.run();
      return value;
    } catch (err) {
      if (sqlite.inTransaction) tx.rollback.run();
      throw err;
    }
  }

  private transactAsync<T>(ops: () => Ops<T>): Promise<T> {
    return this.handle.db.transaction().execute(async (trx) => {
      const g = ops();
      let step = g.next();
      while (!step.done) {
        const r = await trx.executeQuery(CompiledQuery.raw(step.value.q.sql, step.value.q.parameters));
        step = g.next({ affected: affected(r) ? Number(r.numAffectedRows) : 0, row: r.rows[0] as Record<string, unknown> | undefined });
      }
      return step.value;
    });
  }

  /** Increments collected by the running SQLite batch (see `Add`); undefined outside one. */
  private sums: Map<string, Add> | undefined;

  private summing<T>(fn: () => T): T {
    const sums = new Map<string, Add>();
    this.sums = sums;
    try {
      const value = fn();
      this.sums = undefined;
      for (const a of sums.values()) {
        this.execSync(a.table === 'channels' ? run(this.q.channelSettle({ charge: a.charge, rt: a.rt, id: a.id })) : run(this.q.tokenUsed({ charge: a.charge, id: a.id })));
      }
      return value;
    } finally {
      this.sums = undefined;
    }
  }

  private execSync(step: Step): StepResult {
    const a = step.add;
    if (a && this.sums) {
      const k = `${a.table}:${a.id}`;
      const sum = this.sums.get(k);
      if (sum) {
        sum.charge += a.charge;
        sum.rt = a.rt;
      } else this.sums.set(k, { ...a });
      return { affected: 1 };
    }
    let stmt = this.statements.get(step.q.sql);
    if (!stmt) {
      stmt = this.handle.sqlite!.prepare(step.q.sql);
      this.statements.set(step.q.sql, stmt);
    }
    const params = step.q.parameters;
    if (step.get) return { affected: 0, row: stmt.get(...params) as Record<string, unknown> | undefined };
    return { affected: stmt.run(...params).changes };
  }

  /** Debits `amount` from the user and (if limited) the token; says who could not cover it. */
  async reserve(r: ReserveInput): Promise<ReserveResult> {
    if (r.amount <= 0) {
      this.open.add(r.requestId);
      return 'ok';
    }
    const q = this.q;
    const result = await this.transact(function* (): Ops<ReserveResult> {
      if (!(yield run(q.reserveUser({ amt: r.amount, amt2: r.amount, id: r.userId }))).affected) return 'user';
      if (r.tokenLimited && !(yield run(q.reserveToken({ amt: r.amount, amt2: r.amount, id: r.tokenId }))).affected) {
        // Undo the user's debit inside the same transaction: nobody ever sees it.
        yield run(q.userRelease({ amt: r.amount, id: r.userId }));
        return 'token';
      }
      yield run(q.insertReservation({ rid: r.requestId, uid: r.userId, tid: r.tokenId, ua: r.amount, ta: r.tokenLimited ? r.amount : 0, now: r.now }));
      return 'ok';
    });
    if (result === 'ok') this.open.add(r.requestId);
    return result;
  }

  /**
   * Charges the actual cost and writes the log row in one transaction; returns what was charged.
   * If the user cannot cover an overrun beyond the reservation, the balance goes to zero and the
   * unpaid rest is recorded as `shortfall` in the log's `other` — never a negative balance.
   */
  async settle(s: SettleInput): Promise<number> {
    this.open.delete(s.requestId);
    const q = this.q;
    return this.transact(function* (): Ops<number> {
      let reserved = s.reserved;
      // Zero rows: start-up recovery already gave this reservation back, so charge afresh.
      if (reserved > 0 && !(yield run(q.deleteReservation({ rid: s.requestId }))).affected) reserved = 0;
      let charge = s.charge;
      const delta = charge - reserved;
      const settled = yield run(q.userSettle({ delta, charge, id: s.userId, min: delta > 0 ? delta : Number.MIN_SAFE_INTEGER }));
      if (!settled.affected) {
        const row = (yield get(q.userQuota({ id: s.userId }))).row as { quota: number } | undefined;
        const available = Math.max(0, Number(row?.quota ?? 0));
        charge = reserved + Math.min(available, delta);
        yield run(q.userSettle({ delta: charge - reserved, charge, id: s.userId, min: charge - reserved }));
      }
      if (s.tokenId > 0) {
        const tDelta = charge - reserved;
        if (s.tokenLimited) yield run(q.tokenSettle({ delta: tDelta, delta2: tDelta, charge, id: s.tokenId }));
        else yield add(q.tokenUsed({ charge, id: s.tokenId }), { table: 'tokens', id: s.tokenId, charge, rt: 0 });
      }
      if (s.channelId > 0) yield add(q.channelSettle({ charge, rt: s.responseTimeMs, id: s.channelId }), { table: 'channels', id: s.channelId, charge, rt: s.responseTimeMs });
      if (s.log) yield run(q.insertLog(s.log(charge, s.charge - charge) as unknown as Args));
      return charge;
    });
  }

  /** Gives a reservation back; a no-op when it was already settled or released. */
  async release(requestId: string): Promise<boolean> {
    this.open.delete(requestId);
    const q = this.q;
    return this.transact(function* (): Ops<boolean> {
      const row = (yield get(q.selectReservation({ rid: requestId }))).row;
      if (!row) return false;
      if (!(yield run(q.deleteReservation({ rid: requestId }))).affected) return false;
      if (Number(row.user_amount) > 0) yield run(q.userRelease({ amt: Number(row.user_amount), id: Number(row.user_id) }));
      if (Number(row.token_amount) > 0) yield run(q.tokenRelease({ amt: Number(row.token_amount), id: Number(row.token_id) }));
      return true;
    });
  }

  /** Releases reservations created before `beforeSec` (start-up recovery); returns how many. */
  async releaseStale(beforeSec: number): Promise<number> {
    const rows = await this.handle.db.selectFrom('reservations').select('request_id').where('created_at', '<', beforeSec).execute();
    let n = 0;
    for (const r of rows) if (await this.release(r.request_id)) n += 1;
    return n;
  }
}
