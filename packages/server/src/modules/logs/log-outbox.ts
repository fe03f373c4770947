import type { Insertable } from 'kysely';
import type { Db } from '../../db/client.js';
import type { LogOutboxTable } from '../../db/schema.js';

/** What an outbox row becomes in the log database. */
export type OutboxKind = 'log' | 'audit';
const TARGET = { log: 'logs', audit: 'audit_logs' } as const;

/** An outbox row for a usage-log or audit-log row (its columns as JSON, its time kept for ordering). */
export function outboxRow(kind: OutboxKind, row: object, nodeId = ''): Insertable<LogOutboxTable> {
  return { kind, created_at: Number((row as { created_at?: unknown }).created_at ?? 0), node_id: nodeId, row: JSON.stringify(row) };
}

/** Outbox rows per shipment. */
export const SHIP_BATCH = 500;
/** A shipped id is remembered at least this long, far beyond any gap between a shipment's two commits. */
const KEEP_SHIPPED_SEC = 3600;

interface WarnLog {
  warn(obj: object, msg: string): void;
}

export interface ShipperStats {
  /** Rows stored in the log database. */
  shipped: number;
  /** Rows found already stored (a shipment repeated after its outbox delete was lost): not stored again. */
  repeated: number;
  /** Shipments that failed (the log database or the main one unreachable); retried. */
  failures: number;
}

/**
 * Moves the main database's `log_outbox` to the log database (LOG_SQL_DSN), oldest first, each row
 * exactly once (docs/deployment.md#a-separate-log-database):
 * 1. read a batch of the outbox;
 * 2. in one transaction of the log database: read which of its ids are already stored, insert the
 *    others into `logs` / `audit_logs` and their ids into `log_outbox_shipped`. Its primary key makes
 *    two shippers that race on one batch (two nodes) fail one transaction instead of storing twice;
 * 3. delete the batch from the outbox.
 * A stop between 2 and 3 leaves the batch in the outbox; the next shipment finds its ids in step 2.
 * While the log database is down nothing is lost: the rows wait in the outbox (the relay and the
 * ledger never wait for it) and arrive once it answers again.
 */
export class LogShipper {
  readonly stats: ShipperStats = { shipped: 0, repeated: 0, failures: 0 };
  private timer: NodeJS.Timeout | null = null;
  private running: Promise<unknown> | null = null;
  private stopped = true;
  private lastWarn = 0;
  private shipments = 0;

  constructor(
    private readonly main: Db,
    private readonly logs: Db,
    private readonly log: WarnLog,
    private readonly everyMs = 200,
  ) {}

  start(): void {
    this.stopped = false;
    this.schedule(0);
  }

  /** Waits for the shipment under way; the outbox keeps the rest for the next start. */
  async stop(): Promise<void> {
    this.stopped = true;
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    await this.running;
  }

  /** Rows waiting in the outbox. */
  async pending(): Promise<number> {
    const r = await this.main.db.selectFrom('log_outbox').select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirst();
    return Number(r?.n ?? 0);
  }

  /**
   * Ships until the outbox is empty (what the tests wait on). A shipment that fails — another
   * shipper stored the same batch first, or a database is away — is tried again `attempts` times in
   * all, then its error is thrown.
   */
  async drain(attempts = 5): Promise<number> {
    let n = 0;
    for (let failed = 0; ; ) {
      let moved: number;
      try {
        moved = await this.shipOnce();
      } catch (err) {
        if (++failed >= attempts) throw err;
        await new Promise((resolve) => setTimeout(resolve, 50 * failed));
        continue;
      }
      n += moved;
      if (moved < SHIP_BATCH) return n;
    }
  }

  private schedule(ms: number): void {
    if (this.stopped) return;
    this.timer = setTimeout(() => {
      this.timer = null;
      const run = this.shipOnce().then(
        (moved) => {
          this.stats.failures = 0;
          // A full batch: more are waiting, go on at once.
          this.schedule(moved === SHIP_BATCH ? 0 : this.everyMs);
        },
        (err: unknown) => {
          this.stats.failures += 1;
          const now = Date.now();
          if (now - this.lastWarn > 30_000) {
            this.lastWarn = now;
            this.log.warn({ err }, 'could not move log rows to the log database (LOG_SQL_DSN); they wait in the outbox and are retried');
          }
          this.schedule(Math.min(5_000, this.everyMs * 2 ** Math.min(this.stats.failures, 5)));
        },
      );
      this.running = run;
    }, ms);
    this.timer.unref();
  }

  /** One shipment: returns how many outbox rows it moved (stored now or found already stored). */
  async shipOnce(): Promise<number> {
    const batch = await this.main.db.selectFrom('log_outbox').selectAll().orderBy('id').limit(SHIP_BATCH).execute();
    if (!batch.length) return 0;
    const ids = batch.map((r) => Number(r.id));
    const nowSec = Math.floor(Date.now() / 1000);
    const stored = await this.logs.db.transaction().execute(async (t) => {
      const done = new Set((await t.selectFrom('log_outbox_shipped').select('outbox_id').where('outbox_id', 'in', ids).execute()).map((r) => Number(r.outbox_id)));
      const fresh = batch.filter((r) => !done.has(Number(r.id)));
      for (const kind of ['log', 'audit'] as const) {
        const rows = fresh.filter((r) => r.kind === kind).map((r) => JSON.parse(r.row) as Record<string, unknown>);
        if (rows.length) await t.insertInto(TARGET[kind]).values(rows as never).execute();
      }
      if (fresh.length) await t.insertInto('log_outbox_shipped').values(fresh.map((r) => ({ outbox_id: Number(r.id), shipped_at: nowSec }))).execute();
      return fresh.length;
    });
    await this.main.db.deleteFrom('log_outbox').where('id', 'in', ids).execute();
    this.stats.shipped += stored;
    this.stats.repeated += batch.length - stored;
    if (++this.shipments % 100 === 1) await this.forgetShipped(nowSec);
    return batch.length;
  }

  /**
   * Forgets shipped ids that can never be shipped again: below every id still in the outbox (their
   * rows are deleted) and older than an hour (so an id whose outbox delete is still to come is kept).
   */
  private async forgetShipped(nowSec: number): Promise<void> {
    const r = await this.main.db.selectFrom('log_outbox').select((eb) => eb.fn.min('id').as('m')).executeTakeFirst();
    let q = this.logs.db.deleteFrom('log_outbox_shipped').where('shipped_at', '<', nowSec - KEEP_SHIPPED_SEC);
    if (r?.m != null) q = q.where('outbox_id', '<', Number(r.m));
    await q.execute();
  }
}
