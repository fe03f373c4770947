import { CompiledQuery, sql, type Transaction } from 'kysely';
import type { Db } from '../db/client.js';
import { isDbUnavailable, withDbDeadline } from '../db/db-unavailable.js';
import { DbOutage, type OutageConfig, type OutageLog } from './outage/db-outage.js';
import type { SpoolEntry } from './outage/spool.js';
import { LedgerWriter } from './ledger-writer.js';
import { LOOKUP, releaseOps, reserveOps, settleOps, type ReserveInput, type ReserveResult, type SettleInput, type SettleResult } from './request-ops.js';
import { buildStatements, type Statements } from './statements.js';
import type { WindowMove, WindowState } from './window-ops.js';
import type { Database } from '../db/schema.js';
import type { QuotaLedger } from './quota-ledger.js';
import { refundOps, type RefundInput, type RefundResult } from './refund-ops.js';

export type { LogValues } from './statements.js';
export type { ReserveInput, ReserveResult, SettleInput, SettleResult } from './request-ops.js';
export type { PlanSpec, WindowBlock, WindowSpec } from './window-ops.js';

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
 * clamped to what is left, the row is read under a lock (SELECT … FOR UPDATE) first. The
 * operations of concurrent requests are group-committed by the process's one writer
 * (ledger-writer.ts); a balance that several of them move is read once and decided in memory
 * under the batch's lock (batch.ts), with the same outcome as the conditional writes.
 */

/** A release learns its rows from the reservation it reads: none declared. */
const NO_TOUCHES = { users: [], tokens: [] };

/** A ledger write that found the database away (the outage fallback takes over). */
const AWAY = Symbol('database away');

/** The log row's `other` JSON with the unpaid rest of a replayed charge (shared/log-billing.ts `shortfall`). */
function withShortfall(other: string, shortfall: number): string {
  if (shortfall <= 0) return other;
  try {
    return JSON.stringify({ ...(JSON.parse(other) as object), shortfall });
  } catch {
    return other;
  }
}

export class Ledger {
  private readonly q: Statements;
  private readonly writer: LedgerWriter;
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
    this.q = buildStatements(handle.db, handle.kind, handle.logsElsewhere ? { nodeId } : undefined);
    this.writer = new LedgerWriter(handle, this.q, () => this.open.size > 0);
  }

  /**
   * The database-outage fallback (ledger/outage): once attached, a ledger write that finds the
   * database away — or takes longer than its timeout — is served from this node's caches and
   * spooled instead of failing the request.
   */
  outage: DbOutage | undefined;

  attachOutage(config: OutageConfig, log: OutageLog): DbOutage {
    const sqlite = this.handle.sqlite;
    // SQLite: a read succeeds while another process holds the write lock, so the probe takes the lock (without waiting) and lets it go.
    const probe = sqlite
      ? async () => {
          // A transaction of this process holds the connection: the file is writable.
          if (sqlite.inTransaction) return;
          const busy = sqlite.pragma('busy_timeout', { simple: true }) as number;
          sqlite.pragma('busy_timeout = 0');
          try {
            sqlite.exec('BEGIN IMMEDIATE');
            sqlite.exec('ROLLBACK');
          } finally {
            sqlite.pragma(`busy_timeout = ${busy}`);
          }
        }
      : () => withDbDeadline(sql`select 1`.execute(this.handle.db), config.timeoutMs, 'the database');
    this.outage = new DbOutage(config, probe, (e) => this.replayEntry(e), log);
    return this.outage;
  }

  /** Runs a database write under the outage timeout; a failure that means "the database is away" starts the outage. */
  private async guarded<T>(write: () => Promise<T>): Promise<T | typeof AWAY> {
    const o = this.outage;
    if (!o) return write();
    try {
      // SQLite writes run synchronously (busy_timeout bounds a lock wait): only a networked database needs a deadline.
      return await (this.handle.sqlite ? write() : withDbDeadline(write(), o.config.timeoutMs, 'a ledger write'));
    } catch (err) {
      if (!isDbUnavailable(err)) throw err;
      o.enter(err);
      return AWAY;
    }
  }

  /** Debits the user and (if limited) the token; says who could not cover it. */
  async reserve(r: ReserveInput): Promise<ReserveResult> {
    const o = this.outage;
    if (o?.active) return this.reserveLocal(o, r);
    const result = await this.guarded(() => this.reserveDb(r));
    return result === AWAY ? this.reserveLocal(o!, r) : result;
  }

  /**
   * A reservation while the database is away: against the cached balances and, for a caller with
   * periodic limits or plans, the window counters shared through Redis, else the ones this node
   * has seen (a window known to neither: 503).
   */
  private reserveLocal(o: DbOutage, r: ReserveInput): ReserveResult | Promise<ReserveResult> {
    if (r.windows?.length || r.plans?.length) return o.reserveWindows(r);
    return o.reserve(r.requestId, r.userId, r.tokenId, r.tokenLimited, r.amount, r.min);
  }

  private async reserveDb(r: ReserveInput): Promise<ReserveResult> {
    const q = this.q;
    const lease = r.now + this.leaseSec;
    const node = this.nodeId;
    // Held from before the row commits until it is known open: a sweep in between must not take it for a dead run's.
    this.reserving.add(r.requestId);
    const touches = { users: [r.userId], tokens: r.tokenLimited ? [r.tokenId] : [] };
    const o = this.outage;
    // A caller with windows: the states the reservation reads are what an outage decides on (no extra query).
    const cache = (r.windows?.length || r.plans?.length) && o?.config.mode === 'serve' ? o.windows : undefined;
    let seen: WindowState[];
    const result = await this.writer
      .submit(
        cache ? () => reserveOps(q, r, node, lease, (seen = [])) : () => reserveOps(q, r, node, lease),
        touches,
        // A write that timed out and committed late, after the request was reserved locally: the local hold counts.
        cache ? (v) => void (o!.isLocal(r.requestId) || cache.reserved(r, seen, v)) : undefined,
      )
      .finally(() => this.reserving.delete(r.requestId));
    if (result.ok) this.open.add(r.requestId);
    return result;
  }

  /**
   * Charges the actual cost and writes the log row in one transaction. If the user (or a limited
   * token) cannot cover an overrun beyond the reservation, it is taken to zero and the unpaid rest
   * is recorded as `shortfall` — never a negative balance.
   */
  async settle(s: SettleInput): Promise<SettleResult> {
    this.open.delete(s.requestId);
    const o = this.outage;
    if (!o) return this.settleDb(s);
    // A reservation made during the outage exists only here; the database may still hold one from a write that timed out.
    const local = o.unhold(s.requestId);
    // Its windows, if any, are charged by this settle (at replay): the database never saw them held.
    const input = local ? { ...s, reserved: LOOKUP, held: local.wins } : s;
    if (!o.active) {
      const settled = await this.guarded(() => this.settleDb(input));
      if (settled !== AWAY) {
        // A subscription paid: the wallet's cached balance stays.
        if (!settled.duplicate) o.spent(s.paidBy ? 0 : s.userId, s.tokenLimited ? s.tokenId : 0, settled.charged);
        return settled;
      }
    }
    if (s.windows) o.windows.settled(s.requestId, s.charge);
    await o.write({
      op: 'settle',
      rid: s.requestId,
      uid: s.userId,
      tid: s.tokenId,
      limited: s.tokenLimited,
      charge: s.charge,
      ch: s.channelId,
      rt: s.responseTimeMs,
      log: s.log ? s.log(s.charge, 0) : null,
      ...(s.paidBy ? { paid: s.paidBy } : {}),
      ...(local?.wins ? { wins: [...local.wins] } : {}),
    });
    return { charged: s.charge, duplicate: false };
  }

  private async settleDb(s: SettleInput): Promise<SettleResult> {
    const q = this.q;
    const now = Math.floor(Date.now() / 1000);
    const touches = { users: [s.userId], tokens: s.tokenLimited && s.tokenId > 0 ? [s.tokenId] : [] };
    const cache = s.windows ? this.outage?.windows : undefined;
    return this.writer.submit(() => settleOps(q, s, now), touches, cache ? (v) => void (v.duplicate || cache.settled(s.requestId, v.charged)) : undefined);
  }

  /** Gives a reservation back and records the outcome; a no-op when already settled or released. */
  async release(requestId: string): Promise<boolean> {
    this.open.delete(requestId);
    const o = this.outage;
    if (!o) return this.releaseDb(requestId);
    const local = o.unhold(requestId);
    if (!o.active) {
      const released = await this.guarded(() => this.releaseDb(requestId, o));
      if (released !== AWAY) return released || !!local;
    }
    o.windows.released(requestId);
    await o.write({ op: 'release', rid: requestId });
    return true;
  }

  /** One spooled entry into the database: a settle that finds its own reservation, or a release. */
  private async replayEntry(e: SpoolEntry): Promise<void> {
    if (e.op === 'release') {
      await this.releaseDb(e.rid);
      return;
    }
    const log = e.log;
    await this.settleDb({
      requestId: e.rid,
      userId: e.uid,
      tokenId: e.tid,
      tokenLimited: e.limited,
      reserved: LOOKUP,
      charge: e.charge,
      channelId: e.ch,
      responseTimeMs: e.rt,
      log: log ? (charged, shortfall) => ({ ...log, quota: charged, other: withShortfall(log.other, shortfall) }) : null,
      paidBy: e.paid,
      held: e.wins,
    });
  }

  /** `o`: the windows this node counted for the request get back what it held (a replay's were given back when spooled). */
  private async releaseDb(requestId: string, o?: DbOutage): Promise<boolean> {
    const q = this.q;
    const now = Math.floor(Date.now() / 1000);
    // The windows this node held for it move by what it held; another node's (a lease sweep) by what the database moved.
    const done = await this.writer.submit(() => releaseOps(q, requestId, now), NO_TOUCHES, o ? (v) => void (o.windows.released(requestId) || o.windows.moved(v.moves)) : undefined);
    return done.released;
  }

  /** The group commit's batches and operations so far. */
  get batchStats(): Readonly<{ batches: number; operations: number }> {
    return this.writer.stats;
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

  /**
   * Gives a settled request's charge back where it came from (a failed task's refund), inside the
   * caller's transaction and claimed by `r.ref`: the wallet or the plan that paid, and its windows.
   */
  refund(trx: Transaction<Database>, quotaLedger: QuotaLedger, r: RefundInput): Promise<RefundResult> {
    return refundOps(trx, this.q, quotaLedger, r);
  }

  /** Once a refund's transaction committed: the window counters it gave back, in this node's view and the shared one. */
  refunded(moves: readonly WindowMove[]): void {
    if (moves.length) this.outage?.windows.moved(moves);
  }

}
