import type { Bound, Statements } from './statements.js';

/**
 * The group commit's shared machinery (docs/ledger.md "Group commit"): a ledger operation is a
 * generator of steps, run one after another inside a batch's transaction by a sync (SQLite) or an
 * async (PostgreSQL, MySQL) driver in ledger-writer.ts.
 *
 * Balances (`users.quota`, `tokens.remain_quota`) move by **balance steps** rather than SQL: a row
 * that two or more operations of the batch touch is read once under the batch's lock (SQLite's
 * write lock, `SELECT … FOR UPDATE` elsewhere), every conditional debit of the batch is decided
 * against that value in memory — exactly what the conditional UPDATEs would have decided, since no
 * one else can write the row until the commit — and the net change is written back once before the
 * commit. A row only one operation touches is moved by its conditional UPDATE, as before.
 */

export type BalanceTable = 'users' | 'tokens';

/**
 * A conditional move of one balance, the SQL `UPDATE … SET balance = balance - take, used_quota =
 * used_quota + used [, request_count = request_count + count] WHERE id = ? AND balance >= min`:
 * affected 1 when it applied, 0 when the balance was below `min` or the row does not exist. A
 * credit is a negative `take` with no floor (`min` = MIN_SAFE_INTEGER).
 */
export interface BalanceMove {
  t: BalanceTable;
  id: number;
  take: number;
  min: number;
  used: number;
  /** users only: request_count. */
  count: number;
}

/**
 * An unconditional increment summed per row over the batch and written once at its end (a
 * channel's used_quota and response time, an unlimited token's used_quota).
 */
export type Add = { table: 'tokens' | 'channels'; id: number; charge: number; rt: number };

export type Step =
  | { kind: 'sql'; q: Bound; get?: boolean; all?: boolean }
  | { kind: 'move'; m: BalanceMove }
  /** The balance, read under the row's lock (`{ quota }` / `{ remain_quota }`; no row when it does not exist). */
  | { kind: 'read'; t: BalanceTable; id: number }
  | { kind: 'add'; a: Add };
export type StepResult = { affected: number; row?: Record<string, unknown>; rows?: Record<string, unknown>[] };
/** A ledger transaction written once as a generator of steps, run sync (SQLite) or async. */
export type Ops<T> = Generator<Step, T, StepResult>;

export const NO_FLOOR = Number.MIN_SAFE_INTEGER;
export const run = (q: Bound): Step => ({ kind: 'sql', q });
export const get = (q: Bound): Step => ({ kind: 'sql', q, get: true });
/** Every row the query returns (`rows`). */
export const all = (q: Bound): Step => ({ kind: 'sql', q, all: true });
export const move = (t: BalanceTable, id: number, take: number, min: number, used = 0, count = 0): Step => ({ kind: 'move', m: { t, id, take, min, used, count } });
export const read = (t: BalanceTable, id: number): Step => ({ kind: 'read', t, id });
export const add = (a: Add): Step => ({ kind: 'add', a });

/** The rows an operation will move, declared up front so rows shared in a batch are read once, in id order. */
export interface Touches {
  users: number[];
  tokens: number[];
}

export interface BatchItem {
  ops: () => Ops<unknown>;
  touches: Touches;
  resolve: (v: unknown) => void;
  reject: (e: unknown) => void;
}

interface HeldRow {
  /** The balance now, with the batch's moves applied; null: no such row. */
  balance: number | null;
  take: number;
  used: number;
  count: number;
}

/** What the driver must do for a step: nothing more (answered from the batch's rows) or run SQL. */
export type Resolved = { done: StepResult } | { sql: Bound; get: boolean; all?: boolean };

/**
 * One batch's balance rows and summed increments. The driver runs `prefetch()`'s reads first (and
 * hands each row to `loaded`), resolves every step through `resolve`, then runs `writeBack()`.
 */
export class BatchRows {
  private readonly held = new Map<string, HeldRow>();
  private readonly sums = new Map<string, Add>();
  private readonly order: Array<{ t: BalanceTable; id: number }> = [];

  constructor(
    private readonly q: Statements,
    items: readonly { touches: Touches }[],
  ) {
    if (items.length < 2) return;
    // Only rows two or more operations touch are worth holding: the rest move by their own UPDATE.
    const seen = new Map<string, number>();
    for (const item of items) {
      for (const t of ['users', 'tokens'] as const) for (const id of item.touches[t]) seen.set(`${t}:${id}`, (seen.get(`${t}:${id}`) ?? 0) + 1);
    }
    for (const [k, n] of seen) {
      if (n < 2) continue;
      const [t, id] = k.split(':') as [BalanceTable, string];
      this.order.push({ t, id: Number(id) });
    }
    // Locks in one order (users before tokens, ascending ids), so two batches never wait on each other in a cycle.
    this.order.sort((a, b) => (a.t === b.t ? a.id - b.id : a.t === 'users' ? -1 : 1));
  }

  /** The reads that take the held rows' locks, in lock order. */
  prefetch(): Array<{ t: BalanceTable; id: number; sql: Bound }> {
    return this.order.map(({ t, id }) => ({ t, id, sql: t === 'users' ? this.q.userLock({ id }) : this.q.tokenLock({ id }) }));
  }

  loaded(t: BalanceTable, id: number, row: Record<string, unknown> | undefined): void {
    const v = row?.[t === 'users' ? 'quota' : 'remain_quota'];
    this.held.set(`${t}:${id}`, { balance: row ? Number(v ?? 0) : null, take: 0, used: 0, count: 0 });
  }

  resolve(step: Step): Resolved {
    switch (step.kind) {
      case 'sql':
        return { sql: step.q, get: step.get === true, all: step.all === true };
      case 'add': {
        const a = step.a;
        const h = a.table === 'tokens' ? this.held.get(`tokens:${a.id}`) : undefined;
        if (h) {
          if (h.balance !== null) h.used += a.charge;
          return { done: { affected: h.balance === null ? 0 : 1 } };
        }
        const k = `${a.table}:${a.id}`;
        const sum = this.sums.get(k);
        if (sum) {
          sum.charge += a.charge;
          sum.rt = a.rt;
        } else this.sums.set(k, { ...a });
        return { done: { affected: 1 } };
      }
      case 'move': {
        const m = step.m;
        const h = this.held.get(`${m.t}:${m.id}`);
        if (!h) return { sql: moveSql(this.q, m), get: false };
        if (h.balance === null || h.balance < m.min) return { done: { affected: 0 } };
        h.balance -= m.take;
        h.take += m.take;
        h.used += m.used;
        h.count += m.count;
        return { done: { affected: 1 } };
      }
      case 'read': {
        const h = this.held.get(`${step.t}:${step.id}`);
        if (!h) return { sql: step.t === 'users' ? this.q.userLock({ id: step.id }) : this.q.tokenLock({ id: step.id }), get: true };
        if (h.balance === null) return { done: { affected: 0 } };
        return { done: { affected: 0, row: step.t === 'users' ? { quota: h.balance } : { remain_quota: h.balance } } };
      }
    }
  }

  /** The held rows' net changes and the summed increments, written just before the commit. */
  writeBack(): Bound[] {
    const out: Bound[] = [];
    for (const { t, id } of this.order) {
      const h = this.held.get(`${t}:${id}`);
      if (!h || h.balance === null || (h.take === 0 && h.used === 0 && h.count === 0)) continue;
      out.push(moveSql(this.q, { t, id, take: h.take, min: NO_FLOOR, used: h.used, count: h.count }));
    }
    for (const a of this.sums.values()) {
      out.push(a.table === 'channels' ? this.q.channelSettle({ charge: a.charge, rt: a.rt, id: a.id }) : this.q.tokenUsed({ charge: a.charge, id: a.id }));
    }
    return out;
  }
}

function moveSql(q: Statements, m: BalanceMove): Bound {
  return m.t === 'users' ? q.userMove({ take: m.take, min: m.min, used: m.used, count: m.count, id: m.id }) : q.tokenMove({ take: m.take, min: m.min, used: m.used, id: m.id });
}

/**
 * A batch as one sequence of SQL for a driver to run (sync on SQLite, awaited elsewhere): the held
 * rows' reads, every operation's statements in order, then the write-back. Yields each statement
 * and takes its result; returns each operation's value.
 */
export function* batchStatements(rows: BatchRows, batch: readonly BatchItem[]): Generator<{ sql: Bound; get: boolean; all?: boolean }, unknown[], StepResult> {
  for (const p of rows.prefetch()) rows.loaded(p.t, p.id, (yield { sql: p.sql, get: true }).row);
  const values: unknown[] = [];
  for (const item of batch) {
    const g = item.ops();
    let step = g.next();
    while (!step.done) {
      const r = rows.resolve(step.value);
      step = g.next('done' in r ? r.done : yield r);
    }
    values.push(step.value);
  }
  for (const b of rows.writeBack()) yield { sql: b, get: false };
  return values;
}
