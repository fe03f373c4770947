import { sql, type Kysely } from 'kysely';
import type { Config } from '../config/config.js';
import type { Db } from './client.js';
import { dropBucketsBefore } from './log-quota-buckets.js';

/**
 * Time partitions of the usage log (issue 36; docs/deployment.md#time-partitions-of-the-usage-log).
 *
 * PostgreSQL: `logs` is declaratively RANGE-partitioned on `created_at` (Unix seconds):
 * `logs_p_past` from MINVALUE to a cut (history: rows older than the first day partition),
 * `logs_pYYYYMMDD` / `logs_pYYYYMM` per period, and `logs_default`, the catch-all.
 * MySQL / MariaDB: RANGE partitions `p_past`, `pYYYYMMDD` / `pYYYYMM` and `p_max` (LESS THAN
 * MAXVALUE). SQLite: one plain table.
 *
 * The catch-all is kept empty: the master node's job makes the partitions of the next
 * LOG_PARTITION_AHEAD_DAYS days, so a row only lands there when the clock is far ahead. Splitting an
 * empty catch-all is instant; on PostgreSQL a catch-all that does hold rows (LOG_PARTITION was `off`,
 * or a clock ran ahead) is left as it is and new partitions start after its newest row, so nothing
 * is moved; those rows go by the batched delete of retention.
 */
export type LogPartitionMode = Config['logPartition'];

/** How far ahead the job makes partitions. */
export const LOG_PARTITION_AHEAD_DAYS = 7;

const DAY_SEC = 86_400;

export interface LogPartition {
  name: string;
  /** Lowest created_at it holds; null: no lower bound (MINVALUE, or MySQL's first partition). */
  from: number | null;
  /** First created_at it no longer holds; null: the catch-all (DEFAULT / MAXVALUE). */
  to: number | null;
}

/** The UTC period (day or month) that contains `t`: [start, end). */
export function periodOf(mode: Exclude<LogPartitionMode, 'off'>, t: number): { start: number; end: number; label: string } {
  if (mode === 'day') {
    const start = Math.floor(t / DAY_SEC) * DAY_SEC;
    return { start, end: start + DAY_SEC, label: new Date(start * 1000).toISOString().slice(0, 10).replaceAll('-', '') };
  }
  const d = new Date(t * 1000);
  const start = Date.UTC(d.getUTCFullYear(), d.getUTCMonth(), 1) / 1000;
  const end = Date.UTC(d.getUTCFullYear(), d.getUTCMonth() + 1, 1) / 1000;
  return { start, end, label: new Date(start * 1000).toISOString().slice(0, 7).replace('-', '') };
}

/** Start of the UTC month of `t`: where a new table's history partition ends (a boundary of both modes). */
export function monthStart(t: number): number {
  return periodOf('month', t).start;
}

function partitionName(kind: Db['kind'], label: string): string {
  return kind === 'postgres' ? `logs_p${label}` : `p${label}`;
}

type AnyDb = Kysely<any>; // eslint-disable-line @typescript-eslint/no-explicit-any

/** Seconds a partition change waits for the table's lock before giving up until the next run. */
export const PARTITION_LOCK_WAIT_SEC = 5;

/**
 * Runs partition DDL with a bounded wait for its lock. A DROP / CREATE … PARTITION OF (PostgreSQL)
 * or ALTER TABLE (MySQL) queued behind a long log query would hold up every insert queued behind
 * it — each relayed request writes a log row — so it gives up instead and the job tries again next
 * hour (partitions are made days ahead, and an old day can wait an hour to be dropped).
 */
async function withLockWait(handle: Pick<Db, 'db' | 'kind'>, run: (db: AnyDb) => Promise<void>): Promise<void> {
  if (handle.kind === 'postgres') {
    await handle.db.transaction().execute(async (t) => {
      await sql`SET LOCAL lock_timeout = ${sql.lit(`${PARTITION_LOCK_WAIT_SEC}s`)}`.execute(t);
      await run(t as AnyDb);
    });
    return;
  }
  await handle.db.connection().execute(async (c) => {
    await sql`SET SESSION lock_wait_timeout = ${sql.lit(PARTITION_LOCK_WAIT_SEC)}`.execute(c);
    try {
      await run(c as AnyDb);
    } finally {
      await sql`SET SESSION lock_wait_timeout = DEFAULT`.execute(c);
    }
  });
}

/** `logs`' partitions in range order, or null when it is a plain table (SQLite, or not converted). */
export async function listLogPartitions(handle: Pick<Db, 'db' | 'kind'>): Promise<LogPartition[] | null> {
  const db = handle.db as AnyDb;
  if (handle.kind === 'postgres') {
    const kind = await sql<{ relkind: string }>`SELECT relkind FROM pg_class WHERE oid = to_regclass('logs')`.execute(db);
    if (kind.rows[0]?.relkind !== 'p') return null;
    const r = await sql<{ name: string; bound: string }>`
      SELECT c.relname AS name, pg_get_expr(c.relpartbound, c.oid) AS bound
      FROM pg_inherits i JOIN pg_class c ON c.oid = i.inhrelid
      WHERE i.inhparent = to_regclass('logs')`.execute(db);
    const value = (v: string) => (/^(MINVALUE|MAXVALUE)$/i.test(v.trim()) ? null : Number(v.trim().replace(/^'|'$/g, '')));
    const out = r.rows.map(({ name, bound }): LogPartition => {
      const m = /FROM \((.+?)\) TO \((.+?)\)/.exec(bound);
      return m ? { name, from: value(m[1]!), to: value(m[2]!) } : { name, from: null, to: null };
    });
    return out.sort((a, b) => (a.to ?? Infinity) - (b.to ?? Infinity));
  }
  if (handle.kind === 'mysql') {
    const r = await sql<{ name: string | null; bound: string | null }>`
      SELECT PARTITION_NAME AS name, PARTITION_DESCRIPTION AS bound FROM information_schema.PARTITIONS
      WHERE TABLE_SCHEMA = DATABASE() AND TABLE_NAME = 'logs' ORDER BY PARTITION_ORDINAL_POSITION`.execute(db);
    if (!r.rows.length || r.rows[0]!.name === null) return null;
    let from: number | null = null;
    return r.rows.map(({ name, bound }) => {
      const to = bound === null || /MAXVALUE/i.test(bound) ? null : Number(bound);
      const p = { name: String(name), from, to };
      from = to;
      return p;
    });
  }
  return null;
}

/** The newest bound the partitions cover (the catch-all left out); undefined when only a catch-all exists. */
function coveredTo(parts: LogPartition[]): number | undefined {
  const bounds = parts.map((p) => p.to).filter((t): t is number => t !== null);
  return bounds.length ? Math.max(...bounds) : undefined;
}

/**
 * Makes the partitions from the newest one made (or the current period) through `now` +
 * LOG_PARTITION_AHEAD_DAYS; returns the names made. Nothing for a plain table or `off`.
 */
export async function ensureLogPartitions(handle: Pick<Db, 'db' | 'kind'>, mode: LogPartitionMode, now = Math.floor(Date.now() / 1000)): Promise<string[]> {
  if (mode === 'off') return [];
  const parts = await listLogPartitions(handle);
  if (!parts) return [];
  const db = handle.db as AnyDb;
  let start = coveredTo(parts) ?? periodOf(mode, now).start;
  if (handle.kind === 'postgres') {
    // Rows already in the catch-all: start after them, so creating a partition never has to move rows.
    const r = await sql<{ m: number | null }>`SELECT max(created_at) AS m FROM logs_default`.execute(db);
    const newest = r.rows[0]?.m;
    if (newest !== null && newest !== undefined && Number(newest) >= start) start = periodOf(mode, Number(newest)).end;
  }
  const wanted = plannedPartitions(handle.kind, mode, start, now);
  if (!wanted.length) return [];
  await withLockWait(handle, (d) => createPartitions(d, handle.kind, wanted));
  return wanted.map((p) => p.name);
}

export interface PlannedPartition {
  name: string;
  start: number;
  end: number;
}

/** The partitions from `start` through `now` + LOG_PARTITION_AHEAD_DAYS. */
export function plannedPartitions(kind: Db['kind'], mode: Exclude<LogPartitionMode, 'off'>, start: number, now: number): PlannedPartition[] {
  const wanted: PlannedPartition[] = [];
  const until = now + LOG_PARTITION_AHEAD_DAYS * DAY_SEC;
  while (start <= until) {
    const p = periodOf(mode, start);
    // The first one may start inside a period (after a change of mode, or after the catch-all's rows).
    wanted.push({ name: partitionName(kind, p.label), start, end: p.end });
    start = p.end;
  }
  return wanted;
}

/** Creates `wanted` (contiguous, after every partition but the catch-all). */
export async function createPartitions(db: AnyDb, kind: Db['kind'], wanted: PlannedPartition[]): Promise<void> {
  if (!wanted.length) return;
  if (kind === 'postgres') {
    for (const p of wanted) {
      await sql`CREATE TABLE IF NOT EXISTS ${sql.id(p.name)} PARTITION OF logs FOR VALUES FROM (${sql.lit(p.start)}) TO (${sql.lit(p.end)})`.execute(db);
    }
    return;
  }
  // The catch-all is split in one statement; it is empty unless the clock ran ahead, so nothing is copied.
  const defs = wanted.map((p) => sql`PARTITION ${sql.id(p.name)} VALUES LESS THAN (${sql.lit(p.end)})`);
  await sql`ALTER TABLE logs REORGANIZE PARTITION p_max INTO (${sql.join(defs)}, PARTITION p_max VALUES LESS THAN MAXVALUE)`.execute(db);
}

/**
 * Drops the partitions whose every row is older than `before` (constant time: no row is read);
 * returns their names and an estimate of the rows they held (the database's statistics: counting
 * a day of 50 M rows would cost what the drop saves). The catch-all is never dropped.
 */
export async function dropLogPartitionsBefore(handle: Pick<Db, 'db' | 'kind'>, before: number): Promise<{ dropped: string[]; rows: number }> {
  const parts = await listLogPartitions(handle);
  const old = (parts ?? []).filter((p) => p.to !== null && p.to <= before);
  if (!old.length) return { dropped: [], rows: 0 };
  const db = handle.db as AnyDb;
  const names = old.map((p) => p.name);
  let rows = 0;
  if (handle.kind === 'postgres') {
    const r = await sql<{ n: number }>`SELECT coalesce(sum(greatest(reltuples, 0)), 0) AS n FROM pg_class WHERE relname IN (${sql.join(names)})`.execute(db);
    rows = Number(r.rows[0]?.n ?? 0);
    await withLockWait(handle, async (d) => {
      for (const name of names) await sql`DROP TABLE IF EXISTS ${sql.id(name)}`.execute(d);
    });
  } else {
    const r = await sql<{ n: number }>`SELECT coalesce(sum(TABLE_ROWS), 0) AS n FROM information_schema.PARTITIONS
      WHERE TABLE_SCHEMA = DATABASE() AND TABLE_NAME = 'logs' AND PARTITION_NAME IN (${sql.join(names)})`.execute(db);
    rows = Number(r.rows[0]?.n ?? 0);
    await withLockWait(handle, (d) => sql`ALTER TABLE logs DROP PARTITION ${sql.join(names.map((n) => sql.id(n)))}`.execute(d).then(() => undefined));
    // Every row below the newest dropped bound was in a dropped partition; their hourly totals go too.
    await dropBucketsBefore(handle, Math.max(...old.map((p) => p.to!)));
  }
  return { dropped: names, rows: Math.round(rows) };
}

/** The secondary indexes of `logs` (0001, 0003, 0012): the same on the partitioned table. */
export const LOG_INDEXES: ReadonlyArray<[name: string, columns: string[]]> = [
  ['idx_logs_created_at', ['created_at', 'type']],
  ['idx_logs_user_created', ['user_id', 'created_at', 'type']],
  ['idx_logs_username', ['username', 'created_at', 'type']],
  ['idx_logs_model_name', ['model_name', 'created_at', 'type']],
  ['idx_logs_token_name', ['token_name', 'created_at', 'type']],
  ['idx_logs_channel_id', ['channel_id', 'created_at', 'type']],
];

/**
 * PostgreSQL carries `quota` in each log index as a non-key column (`INCLUDE (quota)`, migration
 * 0017): a stat sums quota over the rows a filter's index finds, and without it every row was read
 * from the heap — the 7-day model stat on 10 M rows took 223 ms p95, 1.9 µs a row. With it the sum
 * is an index-only scan (the visibility map of a vacuumed partition says the heap need not be
 * read). A non-key column keeps the index's order and uniqueness, and the same shape on a plain
 * `logs` lets a conversion attach the old table's indexes as they are (log-partition-convert.ts).
 * MySQL names `quota` as the last key column instead (mysqlPartitionStatement).
 */
export const PG_LOG_INDEX_INCLUDE = ['quota'] as const;

/** PostgreSQL: CREATE INDEX for one of LOG_INDEXES on `table` (`logs`, or a plain table being converted). */
export function createLogIndexPg(name: string, columns: readonly string[], table = 'logs', opts: { concurrently?: boolean } = {}) {
  const cols = sql.join(columns.map((c) => sql.id(c)));
  const include = sql.join(PG_LOG_INDEX_INCLUDE.map((c) => sql.id(c)));
  return opts.concurrently
    ? sql`CREATE INDEX CONCURRENTLY ${sql.id(name)} ON ${sql.id(table)} (${cols}) INCLUDE (${include})`
    : sql`CREATE INDEX ${sql.id(name)} ON ${sql.id(table)} (${cols}) INCLUDE (${include})`;
}

/**
 * PostgreSQL: which of LOG_INDEXES on `table` are missing or not of the shape createLogIndexPg
 * makes (the key columns in order, then exactly `quota` included), by name.
 */
export async function staleLogIndexesPg(db: AnyDb, table = 'logs'): Promise<string[]> {
  const r = await sql<{ name: string; cols: string[]; keys: number }>`
    SELECT c.relname AS name, x.indnkeyatts AS keys,
      array(SELECT a.attname::text FROM unnest(x.indkey::int2[]) WITH ORDINALITY k(attnum, n)
            JOIN pg_attribute a ON a.attrelid = x.indrelid AND a.attnum = k.attnum ORDER BY k.n) AS cols
    FROM pg_index x JOIN pg_class c ON c.oid = x.indexrelid
    WHERE x.indrelid = to_regclass(${table})`.execute(db);
  const found = new Map(r.rows.map((row) => [row.name, row]));
  return LOG_INDEXES.filter(([name, cols]) => {
    const have = found.get(name);
    const want = [...cols, ...PG_LOG_INDEX_INCLUDE];
    return !have || Number(have.keys) !== cols.length || have.cols.join(',') !== want.join(',');
  }).map(([name]) => name);
}

/**
 * PostgreSQL, step 1: the partitioned `logs` with the columns and defaults of the plain table
 * `source` (which must no longer be named `logs`); the id keeps coming from `logs_id_seq`.
 */
export async function createPartitionedShellPg(db: AnyDb, source: string): Promise<void> {
  await sql`CREATE TABLE logs (LIKE ${sql.id(source)} INCLUDING DEFAULTS) PARTITION BY RANGE (created_at)`.execute(db);
}

/**
 * PostgreSQL, step 2 (once no other table holds the names): the key (id, created_at) — every unique
 * key holds the partition column —, the request id unique per time, the indexes, the sequence's
 * owner and the catch-all.
 */
export async function finishPartitionedLogsPg(db: AnyDb): Promise<void> {
  await sql`ALTER TABLE logs ADD CONSTRAINT logs_pkey PRIMARY KEY (id, created_at)`.execute(db);
  await sql`ALTER TABLE logs ADD CONSTRAINT logs_request_created_key UNIQUE (request_id, created_at)`.execute(db);
  for (const [name, cols] of LOG_INDEXES) await createLogIndexPg(name, cols).execute(db);
  await sql`ALTER SEQUENCE logs_id_seq OWNED BY logs.id`.execute(db);
  await sql`CREATE TABLE logs_default PARTITION OF logs DEFAULT`.execute(db);
}

/**
 * MySQL: the one ALTER that makes `logs` partitioned (every unique key must hold the partition
 * column): history before `cut` in p_past, the catch-all p_max. It rebuilds the table — instant on
 * a new install, a full copy on a large one (docs: run it in a quiet hour, `npm run logs:partition`).
 *
 * The secondary indexes are rebuilt with `id` and `quota` as named columns: MariaDB merges the
 * partitions' ordered scans for `ORDER BY created_at, type, id` only when `id` is part of the index
 * as written (the implicit primary-key suffix leaves a filesort of the whole range: 400 ms for a
 * first page on 10 M rows), and `quota` lets a stat sum from the index alone.
 */
export function mysqlPartitionStatement(cut: number) {
  const indexes = LOG_INDEXES.map(([name, cols]) => sql`DROP INDEX ${sql.id(name)}, ADD INDEX ${sql.id(name)} (${sql.join([...cols, 'id', 'quota'].map((c) => sql.id(c)))})`);
  return sql`ALTER TABLE logs DROP PRIMARY KEY, ADD PRIMARY KEY (id, created_at), DROP INDEX request_id, ADD UNIQUE KEY uq_logs_request_created (request_id, created_at), ${sql.join(indexes)}
    PARTITION BY RANGE (created_at) (PARTITION p_past VALUES LESS THAN (${sql.lit(cut)}), PARTITION p_max VALUES LESS THAN MAXVALUE)`;
}
