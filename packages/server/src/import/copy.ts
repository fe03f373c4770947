/**
 * The shared shape of a table import: read the source in id order, map each row (a row that
 * cannot be mapped is skipped and reported), compare with what ModelGate already holds under the
 * same id, insert the rest. A row already present is one an earlier run imported (idempotency);
 * a row present that is *not* the new-api row is a conflict, which stops a real run.
 */
import type { SecretBox } from '../crypto/secret-box.js';
import type { Insertable, Kysely } from 'kysely';
import type { SqlKind } from '../config/config.js';
import type { Database } from '../db/schema.js';
import type { QuotaLedger } from '../ledger/quota-ledger.js';
import type { ImportReport } from './report.js';
import { ImportError, type Source } from './source.js';
import { int, RowError, type Row } from './values.js';

export interface ImportContext {
  source: Source;
  /** new-api's LOG_SQL_DSN database, when its logs are there (the `logs` step reads it). */
  logSource?: Source;
  /** The ModelGate database: the run's transaction when writing, read only in a dry run. */
  t: Kysely<Database>;
  kind: SqlKind;
  write: boolean;
  ledger: QuotaLedger;
  report: ImportReport;
  /** Users and channels that exist in ModelGate once this run is done (present before, or imported now). */
  users: Set<number>;
  channels: Set<number>;
  /** Seals channel keys and secret options as they are written (crypto/secret-box.ts). */
  secrets: SecretBox;
  /** What a failed write leaves behind, said at the end of its message. */
  rolledBack: string;
}

/** Rows per read and per multi-row INSERT (well under every database's bound-parameter limit). */
export const BATCH = 200;

export type IdTable = 'users' | 'tokens' | 'channels' | 'redemptions' | 'top_ups' | 'logs';
export type Mapped<T extends IdTable> = Insertable<Database[T]> & { id: number };

export interface CopySpec<T extends IdTable> {
  table: T;
  /** The source columns to read. */
  columns: readonly string[];
  /** The target row, or null when the row is skipped (the mapper reported why); throws RowError for invalid data. */
  map(row: Row): Mapped<T> | null;
  /** Of `ids`, which already-present rows are this importer's own from an earlier run. */
  ours(t: Kysely<Database>, rows: Array<Mapped<T>>): Promise<Set<number>>;
  /** How a conflicting row is named in the message. */
  describe(row: Mapped<T>): string;
  /** Runs with each batch's new rows, after they are inserted (in a dry run: instead of inserting them). */
  after?(rows: Array<Mapped<T>>): Promise<void>;
  /** Collects the ids that exist in ModelGate after the run. */
  track?: Set<number>;
}

/** Kysely's column-typed builders cannot follow a generic table name; the specs type the rows. */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export const loose = (t: Kysely<Database>) => t as unknown as Kysely<any>;

export async function existingIds(t: Kysely<Database>, table: IdTable, ids: number[]): Promise<Set<number>> {
  if (!ids.length) return new Set();
  const rows = (await loose(t).selectFrom(table).select('id').where('id', 'in', ids).execute()) as Array<{ id: unknown }>;
  return new Set(rows.map((r) => Number(r.id)));
}

/** Rows already present whose `columns` equal the mapped row's: the same new-api row, imported before. */
export async function sameColumns<T extends IdTable>(t: Kysely<Database>, table: T, rows: Array<Mapped<T>>, columns: readonly string[]): Promise<Set<number>> {
  const byId = new Map(rows.map((r) => [r.id, r as Record<string, unknown>]));
  const found = (await loose(t).selectFrom(table as string).select(['id', ...columns]).where('id', 'in', [...byId.keys()]).execute()) as Row[];
  const out = new Set<number>();
  for (const f of found) {
    const mine = byId.get(Number(f.id));
    if (mine && columns.every((c) => String(f[c] ?? '') === String(mine[c] ?? ''))) out.add(Number(f.id));
  }
  return out;
}

export function conflictError(table: string, id: number, what: string, rolledBack: string): ImportError {
  return new ImportError(
    `${table} #${id} already exists in ModelGate and is not the new-api row (${what}). Import into a fresh ModelGate database ` +
      `(before its first start), or run with --dry-run to list every conflict. ${rolledBack}`,
  );
}

export async function copyById<T extends IdTable>(ctx: ImportContext, spec: CopySpec<T>): Promise<void> {
  const counts = ctx.report.counts(spec.table);
  counts.source = await ctx.source.count(spec.table);
  for (let after = Number.MIN_SAFE_INTEGER; ; ) {
    const rows = await ctx.source.batchById(spec.table, spec.columns, after, BATCH);
    if (!rows.length) break;
    after = int(rows[rows.length - 1]!, 'id');
    const mapped: Array<Mapped<T>> = [];
    for (const row of rows) {
      try {
        const m = spec.map(row);
        if (m) mapped.push(m);
        else counts.skipped++;
      } catch (err) {
        if (!(err instanceof RowError)) throw err;
        ctx.report.issue(spec.table, `#${String(row.id)}`, `${err.message}: not imported`);
        counts.skipped++;
      }
    }
    const existing = await existingIds(ctx.t, spec.table, mapped.map((m) => m.id));
    const ours = existing.size ? await spec.ours(ctx.t, mapped.filter((m) => existing.has(m.id))) : new Set<number>();
    const fresh: Array<Mapped<T>> = [];
    for (const m of mapped) {
      if (!existing.has(m.id)) fresh.push(m);
      else if (ours.has(m.id)) counts.present++;
      else {
        if (ctx.write) throw conflictError(spec.table, m.id, spec.describe(m), ctx.rolledBack);
        ctx.report.conflict(spec.table, `#${m.id}`, `a different row has this id in ModelGate (${spec.describe(m)})`);
        counts.skipped++;
        continue;
      }
      spec.track?.add(m.id);
    }
    if (ctx.write && fresh.length) await loose(ctx.t).insertInto(spec.table).values(fresh).execute();
    if (fresh.length) await spec.after?.(fresh);
    counts.imported += fresh.length;
  }
}
