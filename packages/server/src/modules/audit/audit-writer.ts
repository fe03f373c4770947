import type { Insertable } from 'kysely';
import type { Db } from '../../db/client.js';
import type { AuditLogsTable } from '../../db/schema.js';
import { retryTransient } from '../../ledger/retry.js';
import { outboxRow } from '../logs/log-outbox.js';

export type NewAuditRow = Insertable<AuditLogsTable>;

/** Rows per insert statement. */
const BATCH = 50;

interface ErrorLog {
  error(obj: object, msg: string): void;
}

/**
 * Writes audit rows off the request path: `write` queues a row and returns at once; rows queued in
 * the same turn of the event loop go in one insert. A failed insert is retried while the database
 * calls it transient, then logged (with the actions, never the details) and dropped: an audit
 * failure never fails the admin's call. `flush` (app close) waits until every queued row is stored.
 */
export class AuditWriter {
  private queue: NewAuditRow[] = [];
  private running: Promise<void> | null = null;

  constructor(
    private readonly handle: Db,
    private readonly log: ErrorLog,
  ) {}

  get pending(): number {
    return this.queue.length;
  }

  write(row: NewAuditRow): void {
    this.queue.push(row);
    this.kick();
  }

  private kick(): void {
    if (this.running) return;
    this.running = this.drain().finally(() => {
      this.running = null;
      if (this.queue.length) this.kick();
    });
  }

  private async drain(): Promise<void> {
    // Let the rest of this turn queue its rows too.
    await new Promise((resolve) => setImmediate(resolve));
    while (this.queue.length) {
      const batch = this.queue.splice(0, BATCH);
      try {
        // A separate log database: the rows wait in this one's outbox for the log shipper.
        if (this.handle.logsElsewhere) await retryTransient(() => this.handle.db.insertInto('log_outbox').values(batch.map((r) => outboxRow('audit', r))).execute());
        else await retryTransient(() => this.handle.db.insertInto('audit_logs').values(batch).execute());
      } catch (err) {
        this.log.error({ err, actions: batch.map((r) => r.action) }, `could not write ${batch.length} audit log entr${batch.length === 1 ? 'y' : 'ies'}`);
      }
    }
  }

  /** Resolves once every row queued so far is written (or its failure logged). */
  async flush(): Promise<void> {
    while (this.running || this.queue.length) {
      if (!this.running) this.kick();
      await this.running;
    }
  }
}
