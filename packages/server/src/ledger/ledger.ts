import { CompiledQuery, type QueryResult } from 'kysely';
import type { Db } from '../db/client.js';
import { buildStatements, RELEASED, SETTLED, type Args, type Bound, type LogValues, type Statements } from './statements.js';

export type { LogValues } from './statements.js';

/**
 * The request side of the money ledger (docs/ledger.md): reserve → settle | release.
 *
 * - reserve: a conditional debit of the user AND the token (`… WHERE quota >= x`) and a
 *   reservation row stamped with this node and a lease. Balances never go below zero: the
 *   database refuses the debit rather than the application checking first. With `min`, a request
 *   that cannot get its full amount takes what remains (under a row lock) if that is at least `min`.
 * - settle: writes the request's durable outcome row first — its primary key makes a second
 *   settle (a retry, another node, a replay) a no-op — then charges the actual cost against what
 *   was held, moves used_quota / request_count, and inserts the consume log row, in one transaction.
 *   Settling after a release (a lease expired while the request still ran) charges afresh, once.
 * - release: gives a reservation back and records the outcome; a no-op after a settle.
 *
 * Every branch checks the affected-row count of its conditional writes; where a debit must be
 * clamped to what is left, the row is read under a lock (SELECT … FOR UPDATE) first.
 */

export interface ReserveInput {
  requestId: string;
  userId: number;
  tokenId: number;
  /** False for unlimited tokens: only the user is debited. */
  tokenLimited: boolean;
  amount: number;
  /** When set, take what remains if the full amount does not fit, as long as it is at least this. */
  min?: number;
  now: number;
}

export type ReserveResult =
  | { ok: true; amount: number }
  /** `available`: what the account that fell short could still pay (-1 when not read). */
  | { ok: false; who: 'user' | 'token'; available: number }
  /** The request id already has a terminal outcome: nothing was taken. */
  | { ok: false; who: 'finished'; available: number };

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

export interface SettleResult {
  /** What the user was charged (≤ charge: a user who cannot cover an overrun is taken to zero). */
  charged: number;
  /** True when this request had already been settled: nothing moved. */
  duplicate: boolean;
}

/**
 * `add`: an unconditional counter increment (token used_quota of an unlimited token, channel
 * used_quota / response_time). In a SQLite group commit these are summed per row and written
 * once at the end of the batch, inside the same transaction.
 */
type Add = { table: 'tokens' | 'channels'; id: number; charge: number; rt: number };
type Step = { q: Bound; get?: boolean; add?: Add };
type StepResult = { affected: number; row?: Record<string, unknown> };
/** A ledger transaction written once as a generator of statements, run sync (SQLite) or async. */
type Ops<T> = Generator<Step, T, StepResult>;

const run = (q: Bound): Step => ({ q });
const get = (q: Bound): Step => ({ q, get: true });
const add = (q: Bound, a: Add): Step => ({ q, add: a });
const num = (v: unknown): number => Number(v ?? 0);

/** Deadlock or serialisation failure (PostgreSQL 40P01 / 40001, MySQL 1213 / 1205): safe to retry. */
export function isTransient(err: unknown): boolean {
  const e = err as { code?: unknown; errno?: unknown };
  return e?.code === '40P01' || e?.code === '40001' || e?.errno === 1213 || e?.errno === 1205;
}

function affected(r: QueryResult<unknown>): number {
  return Number(r.numAffectedRows ?? 0n);
}

export class Ledger {
  private readonly q: Statements;
  private readonly statements = new Map<string, import('better-sqlite3').Statement>();
  private queue: Array<{ ops: () => Ops<unknown>; resolve: (v: unknown) => void; reject: (e: unknown) => void }> = [];
  private flushScheduled = false;
  /** Requests of this process between reserve and settle: with none other, batching only adds latency. */
  private readonly open = new Set<string>();
  /** Requests of this process whose reserve transaction is under way (not yet in `open`). */
  private readonly reserving = new Set<string>();
  /** Unix seconds this process started: its leases cover reservations made since. */
  readonly startedAt = Math.floor(Date.now() / 1000);

  constructor(
    private readonly handle: Db,
    readonly nodeId = 'local',
    readonly leaseSec = 60,
  ) {
    this.q = buildStatements(handle.db, handle.kind);
  }

  /**
   * SQLite: synchronous transactions on the shared connection with cached prepared statements —
   * nothing else runs in between, so concurrent requests never queue behind an open transaction.
   * Under load the ledger operations of one event-loop turn are group-committed: one
   * BEGIN IMMEDIATE … COMMIT. If an async (Kysely) transaction is open on the connection, wait for
   * it through Kysely instead of joining it. PostgreSQL / MySQL: an async transaction per operation.
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
      // Operations do not throw by design (a short reserve undoes its own debit), so a whole batch
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

  /** BEGIN IMMEDIATE … COMMIT with statements prepared once (`sqlite.transaction(fn)` costs a wrapper per call). */
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

  /**
   * PostgreSQL / MySQL. Two transactions claiming one request id (or InnoDB's duplicate-key
   * locks) can deadlock; the database aborts one and it is simply run again — the operations are
   * idempotent, so a retry ends in the same single outcome.
   */
  private async transactAsync<T>(ops: () => Ops<T>): Promise<T> {
    for (let attempt = 0; ; attempt++) {
      try {
        return await this.transactOnce(ops);
      } catch (err) {
        if (attempt >= 8 || !isTransient(err)) throw err;
        await new Promise((r) => setTimeout(r, 2 + Math.random() * 10 * (attempt + 1)));
      }
    }
  }

  private transactOnce<T>(ops: () => Ops<T>): Promise<T> {
    return this.handle.db.transaction().execute(async (trx) => {
      const g = ops();
      let step = g.next();
      while (!step.done) {
        const r = await trx.executeQuery(CompiledQuery.raw(step.value.q.sql, step.value.q.parameters));
        step = g.next({ affected: affected(r), row: r.rows[0] as Record<string, unknown> | undefined });
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

  /** Debits the user and (if limited) the token; says who could not cover it. */
  async reserve(r: ReserveInput): Promise<ReserveResult> {
    const q = this.q;
    const lease = r.now + this.leaseSec;
    const node = this.nodeId;
    // Held from before the row commits until it is known open: a sweep in between must not take it for a dead run's.
    this.reserving.add(r.requestId);
    const result = await this.transact(function* (): Ops<ReserveResult> {
      let amount = r.amount;
      if (amount > 0) {
        const userOk = (yield run(q.reserveUser({ amt: amount, id: r.userId }))).affected > 0;
        const tokenOk = userOk && (!r.tokenLimited || (yield run(q.reserveToken({ amt: amount, id: r.tokenId }))).affected > 0);
        if (userOk && !tokenOk) yield run(q.userRelease({ amt: amount, id: r.userId }));
        if (!tokenOk) {
          if (r.min === undefined || r.min >= amount) return { ok: false, who: userOk ? 'token' : 'user', available: -1 };
          // Clamp: read both balances under a lock and take what remains, if that covers `min`.
          const userAvail = Math.max(0, num((yield get(q.userLock({ id: r.userId }))).row?.quota));
          const tokenAvail = r.tokenLimited ? Math.max(0, num((yield get(q.tokenLock({ id: r.tokenId }))).row?.remain_quota)) : Infinity;
          const avail = Math.min(userAvail, tokenAvail);
          if (avail < r.min || avail <= 0) return { ok: false, who: userAvail <= tokenAvail ? 'user' : 'token', available: avail };
          amount = Math.min(amount, avail);
          yield run(q.reserveUser({ amt: amount, id: r.userId }));
          if (r.tokenLimited) yield run(q.reserveToken({ amt: amount, id: r.tokenId }));
        }
      }
      const inserted = yield run(
        q.insertReservation({ rid: r.requestId, uid: r.userId, tid: r.tokenId, ua: amount, ta: r.tokenLimited ? amount : 0, now: r.now, node, lease }),
      );
      if (!inserted.affected) {
        // Already settled or released: give back what was just taken.
        if (amount > 0) {
          yield run(q.userRelease({ amt: amount, id: r.userId }));
          if (r.tokenLimited) yield run(q.tokenRelease({ amt: amount, id: r.tokenId }));
        }
        return { ok: false, who: 'finished', available: -1 };
      }
      return { ok: true, amount };
    });
    if (result.ok) this.open.add(r.requestId);
    this.reserving.delete(r.requestId);
    return result;
  }

  /**
   * Charges the actual cost and writes the log row in one transaction. If the user (or a limited
   * token) cannot cover an overrun beyond the reservation, it is taken to zero and the unpaid rest
   * is recorded as `shortfall` — never a negative balance.
   */
  async settle(s: SettleInput): Promise<SettleResult> {
    this.open.delete(s.requestId);
    const q = this.q;
    const now = Math.floor(Date.now() / 1000);
    return this.transact(function* (): Ops<SettleResult> {
      const tokenTaken0 = s.tokenLimited ? s.charge : 0;
      const ins = yield run(q.insertRequest({ rid: s.requestId, state: SETTLED, uid: s.userId, tid: s.tokenId, charge: s.charge, tt: tokenTaken0, sf: 0, now }));
      let held = 0;
      if (ins.affected) {
        if (s.reserved > 0 && (yield run(q.deleteReservation({ rid: s.requestId }))).affected) held = s.reserved;
      } else {
        const row = (yield get(q.selectRequest({ rid: s.requestId }))).row;
        if (!row || num(row.state) !== RELEASED) return { charged: num(row?.charge), duplicate: true };
        // Released earlier (its lease ran out): charge afresh, exactly once.
        if (!(yield run(q.releasedToSettled({ rid: s.requestId, charge: s.charge, tt: tokenTaken0, sf: 0 }))).affected) {
          return { charged: 0, duplicate: true };
        }
      }
      const delta = s.charge - held;
      let charged = s.charge;
      if (!(yield run(q.userSettle({ delta, charge: s.charge, id: s.userId, min: delta > 0 ? delta : Number.MIN_SAFE_INTEGER }))).affected) {
        const quota = Math.max(0, num((yield get(q.userLock({ id: s.userId }))).row?.quota));
        const take = Math.min(quota, delta);
        charged = held + take;
        if (!(yield run(q.userSettle({ delta: take, charge: charged, id: s.userId, min: take }))).affected) charged = held;
      }
      let tokenTaken = 0;
      if (s.tokenId > 0) {
        if (s.tokenLimited) {
          const td = charged - held;
          tokenTaken = charged;
          if (!(yield run(q.tokenSettle({ delta: td, charge: charged, id: s.tokenId, min: td > 0 ? td : Number.MIN_SAFE_INTEGER }))).affected) {
            // A token's limit is a spending cap, not money: an overrun takes it to zero.
            const remain = Math.max(0, num((yield get(q.tokenLock({ id: s.tokenId }))).row?.remain_quota));
            const take = Math.min(remain, td);
            tokenTaken = held + take;
            yield run(q.tokenSettle({ delta: take, charge: charged, id: s.tokenId, min: take }));
          }
        } else yield add(q.tokenUsed({ charge: charged, id: s.tokenId }), { table: 'tokens', id: s.tokenId, charge: charged, rt: 0 });
      }
      if (charged !== s.charge || tokenTaken !== tokenTaken0) {
        yield run(q.fixRequest({ rid: s.requestId, charge: charged, tt: tokenTaken, sf: s.charge - charged }));
      }
      if (s.channelId > 0) yield add(q.channelSettle({ charge: charged, rt: s.responseTimeMs, id: s.channelId }), { table: 'channels', id: s.channelId, charge: charged, rt: s.responseTimeMs });
      if (s.log) yield run(q.insertLog(s.log(charged, s.charge - charged) as unknown as Args));
      return { charged, duplicate: false };
    });
  }

  /** Gives a reservation back and records the outcome; a no-op when already settled or released. */
  async release(requestId: string): Promise<boolean> {
    this.open.delete(requestId);
    const q = this.q;
    const now = Math.floor(Date.now() / 1000);
    return this.transact(function* (): Ops<boolean> {
      const row = (yield get(q.selectReservation({ rid: requestId }))).row;
      if (!row) return false;
      // The outcome row first, as settle does: both claim the request id in the same order
      // (ledger_requests, then reservations, users, tokens), so they serialise instead of deadlocking.
      if (!(yield run(q.insertRequest({ rid: requestId, state: RELEASED, uid: num(row.user_id), tid: num(row.token_id), charge: 0, tt: 0, sf: 0, now }))).affected) return false;
      if (!(yield run(q.deleteReservation({ rid: requestId }))).affected) return true;
      if (num(row.user_amount) > 0) yield run(q.userRelease({ amt: num(row.user_amount), id: num(row.user_id) }));
      if (num(row.token_amount) > 0) yield run(q.tokenRelease({ amt: num(row.token_amount), id: num(row.token_id) }));
      return true;
    });
  }

  /** Reservations this process holds right now (requests in flight). */
  get openCount(): number {
    return this.open.size;
  }

  /**
   * At shutdown, once every request handler has returned: gives back what this process still holds
   * (a request that could not settle). Returns how many were released.
   */
  async releaseOpen(): Promise<number> {
    let n = 0;
    for (const requestId of [...this.open]) if (await this.release(requestId)) n += 1;
    return n;
  }

  /** Extends the leases of this process's open reservations (a no-op when it holds none). */
  async renewLeases(nowSec = Math.floor(Date.now() / 1000)): Promise<void> {
    if (this.open.size === 0) return;
    const b = this.q.renewLeases({ until: nowSec + this.leaseSec, node: this.nodeId, since: this.startedAt });
    await this.handle.db.executeQuery(CompiledQuery.raw(b.sql, b.parameters));
  }

  /**
   * Recovery: releases this node's reservations from before this process started (it crashed or
   * was killed) and any node's reservations whose lease expired (that node is gone). Live nodes'
   * in-flight reservations are left alone. Returns how many were released.
   */
  async recover(nowSec = Math.floor(Date.now() / 1000)): Promise<number> {
    // Whether a row of this node belongs to this process is known exactly from `open`, not from a
    // timestamp: a restart within the same second as the kill left rows that `created_at` cannot tell apart.
    const rows = await this.handle.db
      .selectFrom('reservations')
      .select(['request_id', 'node_id', 'lease_until'])
      .where((eb) => eb.or([eb('node_id', '=', this.nodeId), eb('lease_until', '<', nowSec)]))
      .execute();
    let n = 0;
    for (const r of rows) {
      const expired = Number(r.lease_until) < nowSec;
      const mine = r.node_id === this.nodeId && (this.open.has(r.request_id) || this.reserving.has(r.request_id));
      if (mine && !expired) continue;
      if (await this.release(r.request_id)) n += 1;
    }
    return n;
  }

}
