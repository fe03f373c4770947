import { CompiledQuery, type QueryResult, type Transaction } from 'kysely';
import type { Statement } from 'better-sqlite3';
import type { Db } from '../db/client.js';
import type { Database } from '../db/schema.js';
import { BatchRows, batchStatements, type BatchItem, type Ops, type StepResult, type Touches } from './batch.js';
import { retryTransient } from './retry.js';
import { isDbUnavailable } from '../db/db-unavailable.js';
import type { Bound, Statements } from './statements.js';

function affected(r: QueryResult<unknown>): number {
  return Number(r.numAffectedRows ?? 0n);
}

/**
 * The process's one ledger writer (docs/ledger.md "Group commit"): the durable writes of
 * concurrent requests — reservations, settlements, releases and their log rows — are committed
 * together, one transaction per turn, and each request's promise resolves only once the
 * transaction holding its write has committed. A lone request is never kept waiting: with nothing
 * else in flight its batch is itself, at once.
 *
 * - SQLite: the batch runs synchronously (BEGIN IMMEDIATE … COMMIT, statements prepared once). Under
 *   load, the operations that arrive within one event-loop turn form the batch.
 * - PostgreSQL / MySQL: one transaction at a time per process; the operations that arrive while
 *   it runs form the next batch. A deadlock or serialisation failure re-runs the batch.
 *
 * Operations do not throw by design (a short reserve undoes its own debit), so a whole batch
 * commits or fails together without a savepoint per operation; when a batch fails on a real
 * database error (a duplicate key, a lost connection), each of its operations is run again on its
 * own, so one bad operation fails alone.
 */
export class LedgerWriter {
  private queue: BatchItem[] = [];
  private flushScheduled = false;
  private draining = false;
  private readonly prepared = new Map<string, Statement>();
  private tx?: { begin: Statement; commit: Statement; rollback: Statement };
  /** Batches committed and the operations they held (tests and metrics read these). */
  readonly stats = { batches: 0, operations: 0 };

  constructor(
    private readonly handle: Db,
    private readonly q: Statements,
    /** Whether other requests are in flight (SQLite: only then is waiting a turn worth it). */
    private readonly busy: () => boolean,
  ) {}

  /**
   * `committed` runs synchronously once the operation's transaction has committed, before any later
   * batch: what it learns (the outage's window cache) is applied in commit order.
   */
  submit<T>(ops: () => Ops<T>, touches: Touches, committed?: (v: T) => void): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      const done = committed
        ? (v: unknown) => {
            committed(v as T);
            resolve(v as T);
          }
        : (resolve as (v: unknown) => void);
      this.queue.push({ ops, touches, resolve: done, reject });
      if (!this.handle.sqlite) {
        if (!this.draining) void this.drain();
        return;
      }
      if (this.flushScheduled) return;
      if (!this.busy()) return this.flushSync();
      this.flushScheduled = true;
      setImmediate(() => this.flushSync());
    });
  }

  private takeBatch(): BatchItem[] {
    const batch = this.queue;
    this.queue = [];
    return batch;
  }

  // ---- PostgreSQL / MySQL (and SQLite while a Kysely transaction holds the connection) ----

  private async drain(): Promise<void> {
    this.draining = true;
    try {
      while (this.queue.length) await this.runAsync(this.takeBatch());
    } finally {
      this.draining = false;
    }
  }

  private async runAsync(batch: BatchItem[]): Promise<void> {
    let values: unknown[];
    try {
      values = await retryTransient(() => this.transactAsync(batch));
    } catch (err) {
      // The database is away: running each operation on its own would only wait for it again, per operation.
      if (batch.length === 1 || isDbUnavailable(err)) {
        for (const item of batch) item.reject(err);
        return;
      }
      for (const item of batch) {
        await retryTransient(() => this.transactAsync([item])).then(
          (v) => item.resolve(v[0]),
          (e: unknown) => item.reject(e),
        );
      }
      return;
    }
    this.committed(batch, values);
  }

  private committed(batch: readonly BatchItem[], values: readonly unknown[]): void {
    this.stats.batches += 1;
    this.stats.operations += batch.length;
    for (let i = 0; i < batch.length; i++) batch[i]!.resolve(values[i]);
  }

  private transactAsync(batch: readonly BatchItem[]): Promise<unknown[]> {
    return this.handle.db.transaction().execute(async (trx) => {
      const it = batchStatements(new BatchRows(this.q, batch), batch);
      let s = it.next();
      while (!s.done) s = it.next(await execAsync(trx, s.value.sql));
      return s.value;
    });
  }

  // ---- SQLite ----

  private flushSync(): void {
    this.flushScheduled = false;
    const batch = this.takeBatch();
    if (this.handle.sqlite!.inTransaction) {
      // An async (Kysely) transaction is open on the connection: wait for it through Kysely instead of joining it.
      this.queue = batch.concat(this.queue);
      if (!this.draining) void this.drain();
      return;
    }
    let values: unknown[];
    try {
      values = this.immediate(batch);
    } catch (err) {
      // A locked or failing file: each operation alone would block the event loop for the busy timeout again.
      if (isDbUnavailable(err)) {
        for (const item of batch) item.reject(err);
        return;
      }
      for (const item of batch) {
        try {
          item.resolve(this.immediate([item])[0]);
        } catch (err) {
          item.reject(err);
        }
      }
      return;
    }
    this.committed(batch, values);
  }

  /** BEGIN IMMEDIATE … COMMIT with statements prepared once (`sqlite.transaction(fn)` costs a wrapper per call). */
  private immediate(batch: readonly BatchItem[]): unknown[] {
    const sqlite = this.handle.sqlite!;
    const tx = (this.tx ??= { begin: sqlite.prepare('BEGIN IMMEDIATE'), commit: sqlite.prepare('COMMIT'), rollback: sqlite.prepare('ROLLBACK') });
    tx.begin.run();
    try {
      const it = batchStatements(new BatchRows(this.q, batch), batch);
      let s = it.next();
      while (!s.done) s = it.next(this.execSync(s.value.sql, s.value.get, s.value.all === true));
      const values = s.value;
      tx.commit.run();
      return values;
    } catch (err) {
      if (sqlite.inTransaction) tx.rollback.run();
      throw err;
    }
  }

  private execSync(b: Bound, get: boolean, all = false): StepResult {
    let stmt = this.prepared.get(b.sql);
    if (!stmt) {
      stmt = this.handle.sqlite!.prepare(b.sql);
      this.prepared.set(b.sql, stmt);
    }
    if (all) return { affected: 0, rows: stmt.all(...b.parameters) as Record<string, unknown>[] };
    if (get) return { affected: 0, row: stmt.get(...b.parameters) as Record<string, unknown> | undefined };
    return { affected: stmt.run(...b.parameters).changes };
  }
}

/** One statement in a Kysely transaction: the async driver, and window steps run in a caller's transaction (refund-ops.ts). */
export async function execAsync(trx: Transaction<Database>, b: Bound): Promise<StepResult> {
  const r = await trx.executeQuery(CompiledQuery.raw(b.sql, b.parameters));
  return { affected: affected(r), row: r.rows[0] as Record<string, unknown> | undefined, rows: r.rows as Record<string, unknown>[] };
}
