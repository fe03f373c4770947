/**
 * `runImport`: brings a new-api database into ModelGate's (docs/deployment.md, "Moving over from
 * new-api"). A real run migrates the target, then writes every table in ONE transaction — a failure
 * anywhere rolls everything back, so a table is never half imported. A dry run reads the same
 * rows, makes the same decisions and writes nothing (not even migrations: an empty, unmigrated
 * target is stood in for by an empty in-memory database). new-api's logs may come from its
 * LOG_SQL_DSN database (`logSource`), and ModelGate's may go to its own (`logTarget`): then the logs
 * and the hourly usage are written in a second transaction, after the first has committed.
 */
import { sql, type Kysely } from 'kysely';
import type { SecretBox } from '../crypto/secret-box.js';
import { openDb, type Db } from '../db/client.js';
import { migrateToLatest, pendingMigrations } from '../db/migrate.js';
import type { Database } from '../db/schema.js';
import { QuotaLedger } from '../ledger/quota-ledger.js';
import { importTokens, importUsers } from './accounts.js';
import { importAbilities, importChannels } from './channels.js';
import type { ImportContext } from './copy.js';
import { importOptions } from './options.js';
import { importLogs, importQuotaData, importRedemptions, importTopUps } from './records.js';
import { ImportReport } from './report.js';
import { checkLogSource, checkSourceSchema, type SourceTableName } from './source-schema.js';
import { ImportError, type Source } from './source.js';

type Step = [SourceTableName, (ctx: ImportContext) => Promise<void>];

/** In dependency order: tokens need their users, abilities their channels. */
const ACCOUNT_STEPS: Step[] = [
  ['options', importOptions],
  ['users', importUsers],
  ['tokens', importTokens],
  ['channels', importChannels],
  ['abilities', importAbilities],
  ['redemptions', importRedemptions],
  ['top_ups', importTopUps],
];

/** What ModelGate keeps in its log database when LOG_SQL_DSN is set. */
const LOG_STEPS: Step[] = [
  ['logs', importLogs],
  ['quota_data', importQuotaData],
];

/** Tables whose ids are copied: PostgreSQL's sequences must move past them. */
const ACCOUNT_ID_TABLES = ['users', 'tokens', 'channels', 'redemptions', 'top_ups'] as const;
const LOG_ID_TABLES = ['logs'] as const;

async function runSteps(ctx: ImportContext, steps: Step[], absent: ReadonlySet<string>): Promise<void> {
  for (const [table, step] of steps) {
    if (absent.has(table)) continue;
    try {
      // new-api's LOG_SQL_DSN holds its `logs` only (quota_data stays in its main database).
      await step(table === 'logs' && ctx.logSource ? { ...ctx, source: ctx.logSource } : ctx);
    } catch (err) {
      if (err instanceof ImportError) throw err;
      const why = err instanceof Error ? err.message : String(err);
      throw new ImportError(
        ctx.write
          ? `importing ${table} failed: ${why}. ${ctx.rolledBack}`
          : `the dry run failed reading ${table}: ${why}`,
      );
    }
  }
}

async function resetSequences(t: Kysely<Database>, tables: readonly string[]): Promise<void> {
  for (const table of tables) {
    await sql`SELECT setval(pg_get_serial_sequence(${table}, 'id'), COALESCE((SELECT MAX(id) FROM ${sql.table(table)}), 0) + 1, false)`.execute(t);
  }
}

export interface ImportOptions {
  dryRun: boolean;
  /** The target's key ring (the importer writes channel keys and secret options sealed). */
  secrets: SecretBox;
  /** new-api's LOG_SQL_DSN database: its `logs` are read from there instead of the main one. */
  logSource?: Source;
  /** ModelGate's LOG_SQL_DSN database: logs and quota data are written there. */
  logTarget?: Db;
}

const ROLLED_BACK = 'Nothing was written: the import is one transaction and was rolled back.';
/** A second database cannot share the first one's transaction: the accounts are committed by then. */
const LOGS_ROLLED_BACK =
  'The accounts, channels and codes were imported; the logs were not (their transaction was rolled back): run the same command again, which finds the imported rows present and imports the logs.';

/** Says where logs come from and go to; tables new-api has not got are reported. */
async function describeSources(source: Source, target: Db, opts: ImportOptions): Promise<{ report: ImportReport; absent: Set<string> }> {
  const check = checkSourceSchema(source);
  const logColumns = opts.logSource ? checkLogSource(opts.logSource) : [];
  const report = new ImportReport(opts.dryRun, source.display, target.kind);
  const absent = new Set<string>(check.absent);
  if (opts.logSource) absent.delete('logs');
  for (const table of absent) {
    report.notImported.push(`${table}: the new-api database has no such table${table === 'logs' ? ' (new-api keeps it in LOG_SQL_DSN when that is set: name it with --from-logs)' : ''}`);
  }
  for (const o of check.otherTables) {
    const n = await source.count(o.table);
    report.notImported.push(`${o.table} (${n} row${n === 1 ? '' : 's'}): ${o.why}`);
  }
  for (const u of check.unknownColumns) {
    if (!(u.table === 'logs' && opts.logSource)) report.issue(u.table, '', `column ${u.column} has no ModelGate field: not imported`);
  }
  if (opts.logSource) {
    for (const column of logColumns) report.issue('logs', '', `column ${column} has no ModelGate field: not imported`);
    report.notes.push(`logs read from ${opts.logSource.display} (new-api's LOG_SQL_DSN)`);
    const stale = source.tables.has('logs') ? await source.count('logs') : 0;
    if (stale) {
      report.notImported.push(
        `logs in ${source.display} (${stale} row${stale === 1 ? '' : 's'}): written before new-api's LOG_SQL_DSN was set; --from-logs names where its logs are, and these rows would reuse its ids`,
      );
    }
  }
  if (opts.logTarget) report.notes.push("logs and quota data written to ModelGate's log database (LOG_SQL_DSN)");
  return { report, absent };
}

/**
 * A dry run against a database whose migrations are pending: an empty one is stood in for by an
 * empty in-memory database (nothing is created); one with tables is read as it is.
 */
async function dryRunTarget(target: Db, report: ImportReport, what: string): Promise<{ db: Db; standIn: boolean }> {
  const pending = await pendingMigrations(target);
  if (!pending.length) return { db: target, standIn: false };
  const tables = await target.db.introspection.getTables();
  if (tables.some((t) => t.name === 'users')) {
    report.notes.push(`the ModelGate ${what} has ${pending.length} migration(s) to apply; a real run applies them first`);
    return { db: target, standIn: false };
  }
  const standIn = await openDb({ sqlDsn: '', sqlitePath: ':memory:', sqlMaxOpenConns: 1 });
  await migrateToLatest(standIn);
  report.notes.push(`the ModelGate ${what} is empty and not migrated yet: the dry run compared against an empty database`);
  return { db: standIn, standIn: true };
}

async function migrateTarget(target: Db, report: ImportReport, what: string): Promise<void> {
  const applied = await migrateToLatest(target);
  if (applied.length) report.notes.push(`migrated the ModelGate ${what} first: ${applied.join(', ')}`);
}

export async function runImport(source: Source, target: Db, opts: ImportOptions): Promise<ImportReport> {
  const { report, absent } = await describeSources(source, target, opts);
  const base = { source, logSource: opts.logSource, kind: target.kind, report, users: new Set<number>(), channels: new Set<number>(), secrets: opts.secrets, rolledBack: ROLLED_BACK };
  const logTarget = opts.logTarget;

  if (!opts.dryRun) {
    await migrateTarget(target, report, 'database');
    const ledger = new QuotaLedger(target);
    await target.db.transaction().execute(async (trx) => {
      await runSteps({ ...base, t: trx, write: true, ledger }, logTarget ? ACCOUNT_STEPS : [...ACCOUNT_STEPS, ...LOG_STEPS], absent);
      if (target.kind === 'postgres') await resetSequences(trx, logTarget ? ACCOUNT_ID_TABLES : [...ACCOUNT_ID_TABLES, ...LOG_ID_TABLES]);
    });
    if (!logTarget) return report;
    await migrateTarget(logTarget, report, 'log database (LOG_SQL_DSN)');
    await logTarget.db.transaction().execute(async (trx) => {
      await runSteps({ ...base, kind: logTarget.kind, t: trx, write: true, ledger, rolledBack: LOGS_ROLLED_BACK }, LOG_STEPS, absent);
      if (logTarget.kind === 'postgres') await resetSequences(trx, LOG_ID_TABLES);
    });
    return report;
  }

  const main = await dryRunTarget(target, report, 'database');
  const logs = logTarget ? await dryRunTarget(logTarget, report, 'log database (LOG_SQL_DSN)') : undefined;
  try {
    const ledger = new QuotaLedger(main.db);
    await runSteps({ ...base, t: main.db.db, write: false, ledger }, logs ? ACCOUNT_STEPS : [...ACCOUNT_STEPS, ...LOG_STEPS], absent);
    if (logs) await runSteps({ ...base, kind: logs.db.kind, t: logs.db.db, write: false, ledger }, LOG_STEPS, absent);
  } finally {
    if (main.standIn) await main.db.destroy();
    if (logs?.standIn) await logs.db.destroy();
  }
  return report;
}
