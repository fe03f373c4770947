import { sql, type Insertable, type Kysely } from 'kysely';
import type { SqlKind } from '../config/config.js';
import type { Database } from './schema.js';

/**
 * Dialect seam for writes that must be one statement to be race-free on every database: an upsert
 * (`INSERT … ON CONFLICT … DO UPDATE` on SQLite and PostgreSQL, `INSERT … ON DUPLICATE KEY
 * UPDATE` on MySQL / MariaDB) and an insert that does nothing when the key exists. An
 * update-then-insert pair, even inside a transaction, lets two first writers both miss the update
 * and collide on the insert (PostgreSQL then aborts the whole transaction).
 */

type Table = keyof Database & string;

/** Kysely's column-typed builders cannot follow a generic table name; the public signatures check the shapes. */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
const loose = (db: Kysely<Database>) => db as unknown as Kysely<any>;
type Column<T extends Table> = keyof Database[T] & string;

/**
 * Inserts `row` (or rows), or when a row with the same `conflict` key exists, overwrites its
 * `update` columns with the values from `row`. Works inside a transaction (pass the transaction as `db`).
 */
export async function upsert<T extends Table>(
  db: Kysely<Database>,
  kind: SqlKind,
  table: T,
  row: Insertable<Database[T]> | ReadonlyArray<Insertable<Database[T]>>,
  conflict: ReadonlyArray<Column<T>>,
  update: ReadonlyArray<Column<T>>,
): Promise<void> {
  if (Array.isArray(row) && row.length === 0) return;
  // Several rows are one statement: each row takes its own `update` columns from its own values.
  const insert = loose(db).insertInto(table as string).values(row as Record<string, unknown> | Array<Record<string, unknown>>);
  if (kind === 'mysql') {
    // VALUES(col) is understood by MySQL 5.7–8.x and every MariaDB (8.0.20 deprecates it with a warning only).
    await insert.onDuplicateKeyUpdate(Object.fromEntries(update.map((c) => [c, sql`VALUES(${sql.ref(c)})`]))).execute();
    return;
  }
  await insert
    .onConflict((oc) => oc.columns([...conflict]).doUpdateSet(Object.fromEntries(update.map((c) => [c, sql.ref(`excluded.${c}`)]))))
    .execute();
}

/**
 * Inserts `row` unless its primary or unique key already exists; true when a row was inserted.
 * The affected-row count decides, so of many concurrent callers exactly one sees true.
 */
export async function insertIgnore<T extends Table>(db: Kysely<Database>, kind: SqlKind, table: T, row: Insertable<Database[T]>): Promise<boolean> {
  const insert = loose(db).insertInto(table as string).values(row as Record<string, unknown>);
  const res = kind === 'mysql' ? await insert.ignore().executeTakeFirst() : await insert.onConflict((oc) => oc.doNothing()).executeTakeFirst();
  return Number(res.numInsertedOrUpdatedRows ?? 0) > 0;
}

/** True when `err` is a unique or primary-key violation on any of the three databases. */
export function isUniqueViolation(err: unknown): boolean {
  if (!err || typeof err !== 'object') return false;
  const e = err as { code?: unknown; errno?: unknown };
  // PostgreSQL 23505; MySQL / MariaDB ER_DUP_ENTRY (1062); better-sqlite3's extended result codes.
  return e.code === '23505' || e.code === 'ER_DUP_ENTRY' || e.errno === 1062 || e.code === 'SQLITE_CONSTRAINT_UNIQUE' || e.code === 'SQLITE_CONSTRAINT_PRIMARYKEY';
}
