/**
 * `runImport`: brings a new-api database into ModelGate's (docs/deployment.md, "Moving over from
 * new-api"). A real run migrates the target, then writes every table in ONE transaction — a failure
 * anywhere rolls everything back, so a table is never half imported. A dry run reads the same
 * rows, makes the same decisions and writes nothing (not even migrations: an empty, unmigrated
 * target is stood in for by an empty in-memory database).
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
import { checkSourceSchema, type SourceTableName } from './source-schema.js';
import { ImportError, type Source } from './source.js';

/** In dependency order: tokens need their users, abilities their channels. */
const STEPS: Array<[SourceTableName, (ctx: ImportContext) => Promise<void>]> = [
  ['options', importOptions],
  ['users', importUsers],
  ['tokens', importTokens],
  ['channels', importChannels],
  ['abilities', importAbilities],
  ['redemptions', importRedemptions],
  ['top_ups', importTopUps],
  ['logs', importLogs],
  ['quota_data', importQuotaData],
];

/** Tables whose ids are copied: PostgreSQL's sequences must move past them. */
const ID_TABLES = ['users', 'tokens', 'channels', 'redemptions', 'top_ups', 'logs'] as const;

async function runSteps(ctx: ImportContext, absent: ReadonlySet<string>): Promise<void> {
  for (const [table, step] of STEPS) {
    if (absent.has(table)) continue;
    try {
      await step(ctx);
    } catch (err) {
      if (err instanceof ImportError) throw err;
      const why = err instanceof Error ? err.message : String(err);
      throw new ImportError(
        ctx.write
          ? `importing ${table} failed: ${why}. Nothing was written: the import is one transaction and was rolled back.`
          : `the dry run failed reading ${table}: ${why}`,
      );
    }
  }
}

async function resetSequences(t: Kysely<Database>): Promise<void> {
  for (const table of ID_TABLES) {
    await sql`SELECT setval(pg_get_serial_sequence(${table}, 'id'), COALESCE((SELECT MAX(id) FROM ${sql.table(table)}), 0) + 1, false)`.execute(t);
  }
}

/** `secrets`: the target's key ring (the importer writes channel keys and secret options sealed). */
export async function runImport(source: Source, target: Db, opts: { dryRun: boolean; secrets: SecretBox }): Promise<ImportReport> {
  const check = checkSourceSchema(source);
  const report = new ImportReport(opts.dryRun, source.display, target.kind);
  for (const table of check.absent) {
    report.notImported.push(`${table}: the new-api database has no such table${table === 'logs' ? ' (new-api keeps it in LOG_SQL_DSN when that is set)' : ''}`);
  }
  for (const o of check.otherTables) {
    const n = await source.count(o.table);
    report.notImported.push(`${o.table} (${n} row${n === 1 ? '' : 's'}): ${o.why}`);
  }
  for (const u of check.unknownColumns) report.issue(u.table, '', `column ${u.column} has no ModelGate field: not imported`);
  const absent = new Set<string>(check.absent);
  const base = { source, kind: target.kind, report, users: new Set<number>(), channels: new Set<number>(), secrets: opts.secrets };

  if (!opts.dryRun) {
    const applied = await migrateToLatest(target);
    if (applied.length) report.notes.push(`migrated the ModelGate database first: ${applied.join(', ')}`);
    const ledger = new QuotaLedger(target);
    await target.db.transaction().execute(async (trx) => {
      await runSteps({ ...base, t: trx, write: true, ledger }, absent);
      if (target.kind === 'postgres') await resetSequences(trx);
    });
    return report;
  }

  const pending = await pendingMigrations(target);
  let standIn: Db | null = null;
  if (pending.length) {
    const tables = await target.db.introspection.getTables();
    if (!tables.some((t) => t.name === 'users')) {
      standIn = await openDb({ sqlDsn: '', sqlitePath: ':memory:', sqlMaxOpenConns: 1 });
      await migrateToLatest(standIn);
      report.notes.push('the ModelGate database is empty and not migrated yet: the dry run compared against an empty database');
    } else {
      report.notes.push(`the ModelGate database has ${pending.length} migration(s) to apply; a real run applies them first`);
    }
  }
  const t = standIn ?? target;
  try {
    await runSteps({ ...base, t: t.db, write: false, ledger: new QuotaLedger(t) }, absent);
  } finally {
    await standIn?.destroy();
  }
  return report;
}
