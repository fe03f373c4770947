import { sql, type Kysely } from 'kysely';
import type { Db } from './client.js';

/**
 * Per-hour totals of the consume log's quota, kept by triggers on `logs` (MySQL / MariaDB only;
 * issue 36, docs/performance.md "Hourly quota totals").
 *
 * MariaDB has no parallel query, so a stat that sums a day of a busy log (333 k index entries at
 * 10 M rows a month) costs ~0.3 s however it is indexed. The triggers add each consume row's quota
 * to an `(hour, model, shard)` row in the same transaction as the row itself, so every writer of
 * the log — the ledger, the log outbox, the outage spool's replay, the new-api import, the batched
 * retention delete — keeps the totals exact without knowing of them. A stat then sums whole hours
 * from here and reads only the two partial hours at its window's edges from the log
 * (modules/logs/logs.repository.ts). The shard (the connection's id mod SHARDS) spreads concurrent
 * transactions of several nodes over several rows, so they do not queue on one row lock.
 *
 * PostgreSQL meets the stat budgets from its index-only sums (parallel workers, migration 0017) and
 * SQLite is for small sites: neither has the triggers, and their stats read the log as before.
 */
export const BUCKET_SEC = 3600;
export const BUCKET_SHARDS = 8;
export const BUCKET_TABLE = 'log_quota_buckets';
const CONSUME = 2;

const TRIGGERS = ['logs_quota_bucket_ai', 'logs_quota_bucket_ad', 'logs_quota_bucket_au'] as const;

type AnyDb = Kysely<any>; // eslint-disable-line @typescript-eslint/no-explicit-any

/** The bucket upsert for one row image (`NEW` or `OLD`), adding `sign` × its quota. */
function upsert(row: 'NEW' | 'OLD', sign: '+' | '-'): string {
  return `INSERT INTO ${BUCKET_TABLE} (bucket, model_name, shard, quota)
    VALUES (FLOOR(${row}.created_at / ${BUCKET_SEC}) * ${BUCKET_SEC}, ${row}.model_name, MOD(CONNECTION_ID(), ${BUCKET_SHARDS}), ${sign}${row}.quota)
    ON DUPLICATE KEY UPDATE quota = ${BUCKET_TABLE}.quota ${sign} ${row}.quota`;
}

const TRIGGER_DDL: Record<(typeof TRIGGERS)[number], string> = {
  logs_quota_bucket_ai: `CREATE TRIGGER logs_quota_bucket_ai AFTER INSERT ON logs FOR EACH ROW
    IF NEW.type = ${CONSUME} AND NEW.quota <> 0 THEN ${upsert('NEW', '+')}; END IF`,
  logs_quota_bucket_ad: `CREATE TRIGGER logs_quota_bucket_ad AFTER DELETE ON logs FOR EACH ROW
    IF OLD.type = ${CONSUME} AND OLD.quota <> 0 THEN ${upsert('OLD', '-')}; END IF`,
  // Nothing updates a log row today; an update that did would still move its quota between hours.
  logs_quota_bucket_au: `CREATE TRIGGER logs_quota_bucket_au AFTER UPDATE ON logs FOR EACH ROW BEGIN
    IF OLD.type = ${CONSUME} AND OLD.quota <> 0 THEN ${upsert('OLD', '-')}; END IF;
    IF NEW.type = ${CONSUME} AND NEW.quota <> 0 THEN ${upsert('NEW', '+')}; END IF;
  END`,
};

/** MySQL errors that mean "this account may not create triggers" (no TRIGGER privilege; binary log without SUPER). */
const NOT_ALLOWED = new Set(['ER_TABLEACCESS_DENIED_ERROR', 'ER_BINLOG_CREATE_ROUTINE_NEED_SUPER', 'ER_SPECIFIC_ACCESS_DENIED_ERROR']);

/**
 * Creates the totals table, its triggers, and the totals of the rows already logged (migration 0024).
 * The log is write-locked from the triggers' creation to the end of the backfill, so no row is
 * counted twice or missed; inserts wait meanwhile (seconds at 10 M rows: docs/deployment.md).
 * Returns false, leaving the stats on the log, when the database account may not create triggers.
 */
export async function installLogQuotaBucketsMysql(db: AnyDb): Promise<boolean> {
  await sql`CREATE TABLE IF NOT EXISTS ${sql.table(BUCKET_TABLE)} (
    bucket BIGINT NOT NULL, model_name VARCHAR(255) NOT NULL DEFAULT '', shard SMALLINT NOT NULL,
    quota BIGINT NOT NULL DEFAULT 0, PRIMARY KEY (bucket, model_name, shard))`.execute(db);
  return db.connection().execute(async (c) => {
    await sql`LOCK TABLES logs WRITE, ${sql.table(BUCKET_TABLE)} WRITE`.execute(c);
    try {
      for (const name of TRIGGERS) await sql`DROP TRIGGER IF EXISTS ${sql.id(name)}`.execute(c);
      await sql`DELETE FROM ${sql.table(BUCKET_TABLE)}`.execute(c);
      for (const name of TRIGGERS) await sql.raw(TRIGGER_DDL[name]).execute(c);
      await sql`INSERT INTO ${sql.table(BUCKET_TABLE)} (bucket, model_name, shard, quota)
        SELECT FLOOR(created_at / ${sql.lit(BUCKET_SEC)}) * ${sql.lit(BUCKET_SEC)} AS b, model_name, 0, SUM(quota)
        FROM logs WHERE type = ${sql.lit(CONSUME)} GROUP BY b, model_name`.execute(c);
      return true;
    } catch (e) {
      if (!NOT_ALLOWED.has((e as { code?: string }).code ?? '')) throw e;
      for (const name of TRIGGERS) await sql`DROP TRIGGER IF EXISTS ${sql.id(name)}`.execute(c).catch(() => undefined);
      process.emitWarning(`The usage log's hourly totals are off: this database account may not create triggers (${(e as Error).message}). Log stats read the log itself.`);
      return false;
    } finally {
      await sql`UNLOCK TABLES`.execute(c);
    }
  });
}

const ready = new WeakMap<object, Promise<boolean>>();

/** Whether this log database keeps the hourly totals (MySQL with all three triggers); asked once per handle. */
export function logQuotaBucketsReady(handle: Pick<Db, 'db' | 'kind'>): Promise<boolean> {
  if (handle.kind !== 'mysql') return Promise.resolve(false);
  let answer = ready.get(handle.db);
  if (!answer) {
    answer = sql<{ n: number }>`SELECT COUNT(*) AS n FROM information_schema.TRIGGERS
      WHERE TRIGGER_SCHEMA = DATABASE() AND EVENT_OBJECT_TABLE = 'logs' AND TRIGGER_NAME IN (${sql.join([...TRIGGERS])})`
      .execute(handle.db)
      .then((r) => Number(r.rows[0]?.n ?? 0) === TRIGGERS.length);
    // A failed look (the log database away) is asked again next time, not remembered as "no".
    answer.catch(() => ready.delete(handle.db));
    ready.set(handle.db, answer);
  }
  return answer;
}

/** A stat's window `[start, end]` (seconds, end inclusive) split into whole hours and the two partial edges. */
export interface BucketSplit {
  /** Whole hours `[from, to)`, summed from the totals. */
  from: number;
  to: number;
  /** The edges read from the log: `[start, from - 1]` and `[to, end]`; absent when empty. */
  head?: { start: number; end: number };
  tail?: { start: number; end?: number };
}

/**
 * Splits a window, or returns null when it holds no whole hour. An open end (`end` undefined)
 * runs to the current hour: its tail is everything from the current hour's start on.
 */
export function splitWindow(start: number | undefined, end: number | undefined, now: number): BucketSplit | null {
  const from = Math.ceil((start ?? 0) / BUCKET_SEC) * BUCKET_SEC;
  const to = Math.floor((end === undefined ? now : end + 1) / BUCKET_SEC) * BUCKET_SEC;
  if (to - from < BUCKET_SEC) return null;
  const split: BucketSplit = { from, to };
  if (start !== undefined && start < from) split.head = { start, end: from - 1 };
  if (end === undefined || end >= to) split.tail = end === undefined ? { start: to } : { start: to, end };
  return split;
}

/** The quota of whole hours `[from, to)`, of one model or all. */
export async function bucketQuota(handle: Pick<Db, 'db'>, from: number, to: number, model?: string): Promise<number> {
  const r = await sql<{ q: number | string | null }>`SELECT SUM(quota) AS q FROM ${sql.table(BUCKET_TABLE)}
    WHERE bucket >= ${from} AND bucket < ${to}${model ? sql` AND model_name = ${model}` : sql``}`.execute(handle.db);
  return Number(r.rows[0]?.q ?? 0);
}

/**
 * After retention dropped the log's partitions below `before` (a drop fires no trigger): the
 * totals of those hours go too. `before` is a partition bound, so a whole number of hours.
 */
export async function dropBucketsBefore(handle: Pick<Db, 'db' | 'kind'>, before: number): Promise<void> {
  if (!(await logQuotaBucketsReady(handle))) return;
  await sql`DELETE FROM ${sql.table(BUCKET_TABLE)} WHERE bucket < ${before}`.execute(handle.db);
}
