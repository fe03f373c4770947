/**
 * The new-api database being imported, opened read-only where the driver allows it: SQLite (a
 * file path, `sqlite://path`, or `local` for new-api's default `one-api.db`), MySQL (`mysql://…` or
 * the Go form `user:pass@tcp(host:port)/db` new-api's SQL_DSN uses) or PostgreSQL (`postgres://…`).
 */
import fs from 'node:fs';
import path from 'node:path';
import { Kysely, MysqlDialect, PostgresDialect, SqliteDialect, sql } from 'kysely';
import type { SqlKind } from '../config/config.js';
import { mysqlUrlFromDsn } from '../config/config.js';
import type { Row } from './values.js';

/** Why the import cannot start or had to stop; the CLI prints the message as it is. */
export class ImportError extends Error {}

export interface SourceDsn {
  kind: SqlKind;
  /** A connection URL (PostgreSQL, MySQL) or a file path (SQLite). */
  location: string;
  /** The location with any password removed, for messages. */
  display: string;
}

function redact(url: string): string {
  try {
    const u = new URL(url);
    if (u.password) u.password = '***';
    return u.toString();
  } catch {
    return url.replace(/:[^:@/]*@/, ':***@');
  }
}

export function parseSourceDsn(dsn: string, cwd = process.cwd()): SourceDsn {
  const raw = dsn.trim();
  if (!raw) throw new ImportError('--from needs the new-api database: a SQLite file, postgres://…, mysql://… or user:pass@tcp(host:port)/db');
  if (/^postgres(ql)?:\/\//.test(raw)) return { kind: 'postgres', location: raw, display: `postgres ${redact(raw)}` };
  if (/^mysql:\/\//.test(raw) || /@tcp\([^)]+\)\/[^?]+/.test(raw)) {
    let url: string;
    try {
      url = mysqlUrlFromDsn(raw);
    } catch {
      throw new ImportError(`--from: malformed MySQL DSN (expected user:pass@tcp(host:port)/db or mysql://user:pass@host:port/db)`);
    }
    return { kind: 'mysql', location: url, display: `mysql ${redact(url)}` };
  }
  let file = raw === 'local' ? 'one-api.db' : raw.replace(/^sqlite:(\/\/)?/, '').replace(/^file:/, '');
  file = path.resolve(cwd, file.replace(/\?.*$/, ''));
  return { kind: 'sqlite', location: file, display: `sqlite ${file}` };
}

export interface Source {
  kind: SqlKind;
  display: string;
  /** Loose typing: the source's tables are new-api's, not ModelGate's. */
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  db: Kysely<any>;
  /** Every table of the source with its column names (lower case). */
  tables: Map<string, Set<string>>;
  count(table: string): Promise<number>;
  /** Rows with `id` above `after`, in id order. */
  batchById(table: string, columns: readonly string[], after: number, size: number): Promise<Row[]>;
  /** Every row of a table without an id (options, abilities), in a stable order. */
  all(table: string, columns: readonly string[], orderBy: readonly string[]): Promise<Row[]>;
  close(): Promise<void>;
}

// eslint-disable-next-line @typescript-eslint/no-explicit-any
async function connect(dsn: SourceDsn): Promise<Kysely<any>> {
  if (dsn.kind === 'sqlite') {
    if (!fs.existsSync(dsn.location)) throw new ImportError(`cannot read the new-api database: no file ${dsn.location}`);
    const { default: SqliteDatabase } = await import('better-sqlite3');
    const file = new SqliteDatabase(dsn.location, { readonly: true, fileMustExist: true });
    return new Kysely({ dialect: new SqliteDialect({ database: file }) });
  }
  if (dsn.kind === 'postgres') {
    const pg = await import('pg');
    const pool = new pg.default.Pool({ connectionString: dsn.location, max: 2 });
    pool.on('error', () => undefined);
    return new Kysely({ dialect: new PostgresDialect({ pool }) });
  }
  const mysql = await import('mysql2');
  // Dates as text: new-api's DATETIME carries no zone, and `deletedAt` reads Go's text form anyway.
  const pool = mysql.createPool({ uri: dsn.location, connectionLimit: 2, supportBigNumbers: true, bigNumberStrings: false, decimalNumbers: true, dateStrings: true, charset: 'utf8mb4' });
  return new Kysely({ dialect: new MysqlDialect({ pool }) });
}

export async function openSource(dsn: SourceDsn): Promise<Source> {
  const db = await connect(dsn);
  const tables = new Map<string, Set<string>>();
  try {
    let schema: string | undefined;
    if (dsn.kind === 'postgres') schema = (await sql<{ s: string }>`SELECT current_schema() AS s`.execute(db)).rows[0]?.s;
    for (const t of await db.introspection.getTables()) {
      if (schema && t.schema !== schema) continue;
      tables.set(t.name.toLowerCase(), new Set(t.columns.map((c) => c.name.toLowerCase())));
    }
  } catch (err) {
    await db.destroy().catch(() => undefined);
    throw new ImportError(`cannot read the new-api database (${dsn.display}): ${err instanceof Error ? err.message : String(err)}`);
  }
  return {
    kind: dsn.kind,
    display: dsn.display,
    db,
    tables,
    async count(table) {
      const r = await db.selectFrom(table).select((eb) => eb.fn.countAll().as('n')).executeTakeFirst();
      return Number((r as { n?: unknown } | undefined)?.n ?? 0);
    },
    async batchById(table, columns, after, size) {
      return (await db.selectFrom(table).select([...columns]).where('id', '>', after).orderBy('id').limit(size).execute()) as Row[];
    },
    async all(table, columns, orderBy) {
      let q = db.selectFrom(table).select([...columns]);
      for (const c of orderBy) q = q.orderBy(c);
      return (await q.execute()) as Row[];
    },
    close: () => db.destroy(),
  };
}
