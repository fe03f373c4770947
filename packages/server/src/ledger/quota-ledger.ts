import { sql, type Kysely, type Transaction } from 'kysely';
import type { Db } from '../db/client.js';
import type { Database } from '../db/schema.js';
import { isTransient } from './retry.js';

/**
 * Every quota movement that is not a relayed request (docs/ledger.md): each one updates the
 * balances and writes one `ledger_entries` row with the deltas it applied, in one transaction, so
 * a reconciliation can recompute every balance. Nothing else in the server writes `quota`,
 * `used_quota`, `aff_quota`, a token's `remain_quota` or `used_quota` (the request side lives in
 * ledger.ts).
 */
export type EntryKind =
  | 'opening'
  | 'signup'
  | 'root'
  | 'admin'
  | 'invitee'
  | 'inviter'
  | 'aff_transfer'
  | 'token_limit'
  | 'redemption'
  | 'topup'
  | 'refund'
  /** A plan bought or renewed from the wallet (`ref` plan:<subscription>:<renewal>). */
  | 'plan'
  | 'test';

export interface Movement {
  kind: EntryKind;
  userId: number;
  /** The token whose counters move (0 = none). */
  tokenId?: number;
  quota?: number;
  used?: number;
  aff?: number;
  tokenRemain?: number;
  tokenUsed?: number;
  /** Who did it (an admin's id), 0 for the system. */
  actorId?: number;
  /** An external reference (trade number, redemption key, task id): a second movement with the same kind and ref is a no-op. */
  ref?: string | null;
}

export type MoveResult = 'applied' | 'duplicate' | 'insufficient';

type Exec = Kysely<Database> | Transaction<Database>;

/** Thrown inside a transaction to roll it back when a balance would go negative. */
class Insufficient extends Error {}

function isInt(n: number): boolean {
  return Number.isSafeInteger(n);
}

export class QuotaLedger {
  constructor(private readonly handle: Db) {}

  /** Runs `fn` in a transaction, or inside the caller's. */
  private async tx<T>(trx: Transaction<Database> | undefined, fn: (t: Transaction<Database>) => Promise<T>): Promise<T> {
    if (trx) return fn(trx);
    for (let attempt = 0; ; attempt++) {
      try {
        return await this.handle.db.transaction().execute(fn);
      } catch (err) {
        // A deadlock aborted the whole transaction (entry included): running it again is safe.
        if (attempt >= 8 || !isTransient(err)) throw err;
        await new Promise((r) => setTimeout(r, 2 + Math.random() * 10 * (attempt + 1)));
      }
    }
  }

  private async insertEntry(t: Exec, m: Movement): Promise<boolean> {
    const values = {
      user_id: m.userId,
      token_id: m.tokenId ?? 0,
      kind: m.kind,
      quota_delta: m.quota ?? 0,
      used_delta: m.used ?? 0,
      aff_delta: m.aff ?? 0,
      token_remain_delta: m.tokenRemain ?? 0,
      token_used_delta: m.tokenUsed ?? 0,
      actor_id: m.actorId ?? 0,
      ref: m.ref ?? null,
      created_at: Math.floor(Date.now() / 1000),
    };
    if (!m.ref) {
      await t.insertInto('ledger_entries').values(values).execute();
      return true;
    }
    const q =
      this.handle.kind === 'mysql'
        ? t.insertInto('ledger_entries').ignore().values(values)
        : t.insertInto('ledger_entries').values(values).onConflict((oc) => oc.columns(['kind', 'ref']).doNothing());
    const r = await q.executeTakeFirst();
    return Number(r.numInsertedOrUpdatedRows ?? 0n) > 0;
  }

  /**
   * Applies one movement: the entry and the balance changes commit together. A user's quota or
   * pending earnings never go below zero ('insufficient', nothing applied); a repeated `ref` is
   * 'duplicate', nothing applied.
   */
  async move(m: Movement, trx?: Transaction<Database>): Promise<MoveResult> {
    for (const v of [m.quota, m.used, m.aff, m.tokenRemain, m.tokenUsed]) {
      if (v !== undefined && !isInt(v)) throw new RangeError(`ledger movement must be a safe integer, got ${v}`);
    }
    try {
      return await this.tx(trx, async (t) => {
        // A `ref` is claimed first (a repeat is a no-op); inside a caller's transaction a refused
        // debit takes its entry back, as the caller's transaction goes on and may commit.
        if (m.ref && !(await this.insertEntry(t, m))) return 'duplicate';
        try {
          await this.applyBalances(t, m);
        } catch (err) {
          if (err instanceof Insufficient && trx && m.ref) await t.deleteFrom('ledger_entries').where('kind', '=', m.kind).where('ref', '=', m.ref).execute();
          throw err;
        }
        if (!m.ref) await this.insertEntry(t, m);
        return 'applied';
      });
    } catch (err) {
      if (err instanceof Insufficient) return 'insufficient';
      throw err;
    }
  }

  /** The balance changes of a movement, each conditional (Insufficient when one would go below zero). */
  private async applyBalances(t: Exec, m: Movement): Promise<void> {
    const q = m.quota ?? 0;
    const u = m.used ?? 0;
    const a = m.aff ?? 0;
    if (q || u || a) {
      const r = await t
        .updateTable('users')
        .set({ quota: sql`quota + ${q}`, used_quota: sql`used_quota + ${u}`, aff_quota: sql`aff_quota + ${a}` })
        .where('id', '=', m.userId)
        .where(sql<boolean>`quota + ${q} >= 0`)
        .where(sql<boolean>`aff_quota + ${a} >= 0`)
        .executeTakeFirst();
      if (Number(r.numUpdatedRows) === 0) throw new Insufficient();
    }
    const tr = m.tokenRemain ?? 0;
    const tu = m.tokenUsed ?? 0;
    if (m.tokenId && (tr || tu)) {
      const r = await t
        .updateTable('tokens')
        .set({ remain_quota: sql`remain_quota + ${tr}`, used_quota: sql`used_quota + ${tu}` })
        .where('id', '=', m.tokenId)
        .where(sql<boolean>`remain_quota + ${tr} >= 0`)
        .executeTakeFirst();
      if (Number(r.numUpdatedRows) === 0) throw new Insufficient();
    }
  }

  /** Sets a user's balance to `quota` (an admin's edit): the difference is the movement. Returns the balance before. */
  async setUserQuota(userId: number, quota: number, actorId: number, trx?: Transaction<Database>): Promise<number> {
    if (!isInt(quota) || quota < 0) throw new RangeError(`quota must be a non-negative safe integer, got ${quota}`);
    return this.tx(trx, async (t) => {
      const row = await this.lock(t, 'users', userId);
      const before = Number(row?.quota ?? 0);
      if (row && quota !== before) await this.move({ kind: 'admin', userId, quota: quota - before, actorId }, t);
      return before;
    });
  }

  /**
   * Adds `delta` (negative: takes) to a user's balance (an admin's "add quota"), read under a row
   * lock so the balances it answers are exact. Null when the balance would go below zero (nothing
   * moved).
   */
  async addUserQuota(userId: number, delta: number, actorId: number, trx?: Transaction<Database>): Promise<{ before: number; after: number } | null> {
    if (!isInt(delta)) throw new RangeError(`quota delta must be a safe integer, got ${delta}`);
    return this.tx(trx, async (t) => {
      const row = await this.lock(t, 'users', userId);
      const before = Number(row?.quota ?? 0);
      if (!row || before + delta < 0) return null;
      if (delta !== 0 && (await this.move({ kind: 'admin', userId, quota: delta, actorId }, t)) !== 'applied') return null;
      return { before, after: before + delta };
    });
  }

  /** Sets a token's spending limit to `remain` (the owner's edit): the difference is the movement. */
  async setTokenRemain(tokenId: number, remain: number, trx?: Transaction<Database>): Promise<void> {
    if (!isInt(remain) || remain < 0) throw new RangeError(`remain_quota must be a non-negative safe integer, got ${remain}`);
    await this.tx(trx, async (t) => {
      const row = await this.lock(t, 'tokens', tokenId);
      if (!row) return;
      const before = Number(row.remain_quota ?? 0);
      if (remain !== before) await this.move({ kind: 'token_limit', userId: Number(row.user_id), tokenId, tokenRemain: remain - before }, t);
    });
  }

  /** Reads a row under a lock (SELECT … FOR UPDATE; SQLite transactions are already exclusive writers). */
  private async lock(t: Transaction<Database>, table: 'users' | 'tokens', id: number): Promise<Record<string, unknown> | undefined> {
    const base =
      table === 'users'
        ? t.selectFrom('users').select(['id', 'quota']).where('id', '=', id)
        : t.selectFrom('tokens').select(['id', 'user_id', 'remain_quota']).where('id', '=', id);
    const q = this.handle.kind === 'sqlite' ? base : base.forUpdate();
    return (await q.executeTakeFirst()) as Record<string, unknown> | undefined;
  }
}
