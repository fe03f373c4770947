import fs from 'node:fs';
import path from 'node:path';
import { Kysely, MysqlDialect, PostgresDialect, SqliteDialect, type InsertQueryBuilder, type InsertResult } from 'kysely';
import type { Config, SqlKind } from '../config/config.js';
import { mysqlUrlFromDsn, parseSqlDsnKind } from '../config/config.js';
import type { Database } from './schema.js';
import type { Logger } from '../log/logger.js';

/** The data layer handle; `kind` is the only place callers may learn which database this is. */
export interface Db {
  db: Kysely<Database>;
  kind: SqlKind;
  /**
   * SQLite only: the underlying better-sqlite3 connection (the same one Kysely uses), for the
   * relay ledger's synchronous transactions — an async transaction would hold the single
   * connection across event-loop turns and serialise every concurrent request behind it.
   */
  sqlite?: import('better-sqlite3').Database;
  /**
   * The usage and audit logs live in another database (LOG_SQL_DSN): rows written on this handle go
   * to its `log_outbox` in the caller's transaction, and the log shipper moves them there
   * (modules/logs/log-outbox.ts).
   */
  logsElsewhere?: boolean;
  /** PostgreSQL and MySQL: connections open, idle, and requests waiting for one (metrics). */
  poolStats?: () => PoolStats;
  destroy(): Promise<void>;
}

export interface PoolStats {
  total: number;
  idle: number;
  waiting: number;
}

export async function openDb(config: Pick<Config, 'sqlDsn' | 'sqlitePath' | 'sqlMaxOpenConns'>, opts: { log?: Pick<Logger, 'warn'> } = {}): Promise<Db> {
  const kind = parseSqlDsnKind(config.sqlDsn);
  let db: Kysely<Database>;
  let sqliteHandle: import('better-sqlite3').Database | undefined;
  let poolStats: (() => PoolStats) | undefined;
  if (kind === 'sqlite') {
    const { default: SqliteDatabase } = await import('better-sqlite3');
    fs.mkdirSync(path.dirname(config.sqlitePath), { recursive: true });
    const sqlite = new SqliteDatabase(config.sqlitePath);
    sqlite.pragma('journal_mode = WAL');
    sqlite.pragma('synchronous = NORMAL');
    sqlite.pragma('busy_timeout = 5000');
    sqlite.pragma('foreign_keys = ON');
    sqliteHandle = sqlite;
    db = new Kysely<Database>({ dialect: new SqliteDialect({ database: sqlite }) });
  } else if (kind === 'postgres') {
    const pg = await import('pg');
    // BIGINT (20) and NUMERIC (1700, e.g. SUM results) arrive as strings by default: quota fits in a double.
    pg.default.types.setTypeParser(20, (v: string) => Number(v));
    pg.default.types.setTypeParser(1700, (v: string) => Number(v));
    const pool = new pg.default.Pool({ connectionString: config.sqlDsn, max: Math.min(config.sqlMaxOpenConns, 50) });
    // An idle connection that the server (or the network) drops is reported on the pool; without a
    // listener Node treats it as an uncaught exception and a database restart would kill the node.
    // The pool discards that client and opens a new one on the next query.
    const lost = (err: Error) => opts.log?.warn({ err }, 'a database connection was lost; the pool reconnects on the next query');
    pool.on('error', lost);
    // A checked-out client between two queries reports the loss on itself, not on the pool.
    pool.on('connect', (client) => client.on('error', lost));
    poolStats = () => ({ total: pool.totalCount, idle: pool.idleCount, waiting: pool.waitingCount });
    db = new Kysely<Database>({ dialect: new PostgresDialect({ pool }) });
  } else {
    const mysql = await import('mysql2');
    const pool = mysql.createPool({
      uri: mysqlUrlFromDsn(config.sqlDsn),
      connectionLimit: Math.min(config.sqlMaxOpenConns, 50),
      supportBigNumbers: true,
      bigNumberStrings: false,
      decimalNumbers: true,
      charset: 'utf8mb4',
    });
    // mysql2 has no public counters; these are its pool's own lists (absent → 0).
    const lists = pool as unknown as { _allConnections?: { length: number }; _freeConnections?: { length: number }; _connectionQueue?: { length: number } };
    poolStats = () => ({ total: lists._allConnections?.length ?? 0, idle: lists._freeConnections?.length ?? 0, waiting: lists._connectionQueue?.length ?? 0 });
    db = new Kysely<Database>({ dialect: new MysqlDialect({ pool }) });
  }
  return { db, kind, sqlite: sqliteHandle, poolStats, destroy: () => db.destroy() };
}

/**
 * The log database (LOG_SQL_DSN), or undefined when the logs stay in the main database. Its pool is
 * a quarter of the main one's (at least 2): it serves the log screens, the shipper and the jobs.
 */
export async function openLogDb(config: Pick<Config, 'logSqlDsn' | 'sqlitePath' | 'sqlMaxOpenConns'>, opts: { log?: Pick<Logger, 'warn'> } = {}): Promise<Db | undefined> {
  if (!config.logSqlDsn) return undefined;
  return openDb({ sqlDsn: config.logSqlDsn, sqlitePath: config.sqlitePath, sqlMaxOpenConns: Math.max(2, Math.ceil(config.sqlMaxOpenConns / 4)) }, opts);
}

/**
 * Inserts one row and returns its generated id: PostgreSQL needs RETURNING, MySQL and SQLite report
 * the id on the insert result.
 */
export async function insertReturningId<DB, T extends keyof DB & string>(
  kind: SqlKind,
  query: InsertQueryBuilder<DB, T, InsertResult>,
): Promise<number> {
  if (kind === 'postgres') {
    const row = await (query as unknown as InsertQueryBuilder<DB, T, { id: number }>)
      .returning('id' as never)
      .executeTakeFirstOrThrow();
    return Number((row as { id: number }).id);
  }
  const res = await query.executeTakeFirstOrThrow();
  return Number(res.insertId);
}

/** SQL numeric aggregates come back as strings or numbers depending on the driver. */
export function num(v: unknown): number {
  if (v === null || v === undefined) return 0;
  return typeof v === 'number' ? v : Number(v);
}
