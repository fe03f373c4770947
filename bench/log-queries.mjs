#!/usr/bin/env node
/**
 * Management API budget (docs/performance.md#budgets): `GET /api/log/` and `/api/log/stat` p95 ≤ 100 ms on
 * 1 000 000 log rows, for the console's typical queries. Seeds the rows server-side in one
 * statement (a recursive CTE on SQLite and MySQL, generate_series on PostgreSQL), starts the built
 * server on that database and times the real HTTP calls.
 *
 *   node bench/log-queries.mjs            SQLite; also PostgreSQL / MySQL when TEST_PG_URL / TEST_MYSQL_URL is set
 *   BENCH_LOG_ROWS=1000000 BENCH_LOG_N=40 rows to seed, timed calls per query
 *   BENCH_LOG_DBS=sqlite,postgres,mysql   the databases to run (default: all that are reachable)
 *   --rows 10000000                       the same as BENCH_LOG_ROWS; above 1 000 000 only the
 *                                         first pages (a day, no filter; own log) are timed, except
 *                                         on a partitioned log (PostgreSQL, MySQL: LOG_PARTITION), where
 *                                         every list and stat is (the dashboard needs the export, skipped)
 *   --no-build                            reuse packages/server/dist
 *
 * On a partitioned log the seeded days get a partition each (as the master node's job would have
 * made them), and after the timing one day's partition is dropped the way LogRetentionDays does:
 * its time, its rows and its size on disk are the per-partition figures of docs/performance.md.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { build, f, killAll, log, pct, root, rootSession, spawnModelGate } from './lib/harness.mjs';

const rowsArg = process.argv.indexOf('--rows');
const ROWS = Number(rowsArg > 0 ? process.argv[rowsArg + 1] : (process.env.BENCH_LOG_ROWS ?? 1_000_000));
/** Above a million rows only the first pages are timed (their budget holds at ten million); the rest is the 1 M budget. */
const LARGE = ROWS > 1_000_000;
const N = Number(process.env.BENCH_LOG_N ?? 40);
const DAYS = 30;
/** BENCH_LOG_DBS=sqlite,postgres,mysql: which of them to run (PostgreSQL and MySQL also need their URL). */
const DBS = (process.env.BENCH_LOG_DBS ?? 'sqlite,postgres,mysql').split(',');
const dist = (p) => pathToFileURL(path.join(root, 'packages/server/dist', p)).href;

/** Column expressions of one seeded row from its index `i` (works on SQLite and PostgreSQL). */
function seedSelect(now, cat) {
  const span = DAYS * 86400;
  const user = `((i * 7919) % 1000 + 1)`;
  return `SELECT ${user}, ${now - span} + (i * ${span}) / ${ROWS},
    CASE WHEN i % 50 = 0 THEN 1 WHEN i % 97 = 0 THEN 3 ELSE 2 END,
    'model ratio 0.075, completion ratio 4', ${cat(`'user'`, user)}, ${cat(`'token'`, '(i % 50)')}, ${cat(`'model-'`, '(i % 20)')},
    i % 1000 + 1, 100, 50, 1, i % 2, i % 10 + 1, (i % 5000) + 1, 'default',
    '{"model_ratio":0.075,"group_ratio":1,"completion_ratio":4,"model_price":-1,"frt":-1000}', ${cat(`'seed'`, 'i')}`;
}

const COLUMNS = 'user_id, created_at, type, content, username, token_name, model_name, quota, prompt_tokens, completion_tokens, use_time, is_stream, channel_id, token_id, "group", other, request_id';

/** The InnoDB buffer pool this bench runs MySQL with (docs/deployment.md#postgresql-or-mysql). */
const BUFFER_POOL = 1024 * 1024 * 1024;

/**
 * MySQL / MariaDB ship with a 128 MB buffer pool; a million log rows and their indexes are ≈ 670 MB,
 * so with the default every row a filtered stat reads (its quota) is a page read through the OS
 * cache: 330 ms for a 7-day model stat that takes 50 ms from the pool. An operator with a log table
 * this size sizes the pool for it (docs/deployment.md); so does the bench, for its run only.
 * Returns the function that puts the old size back.
 */
async function sizeBufferPool(admin) {
  const [[row]] = await admin.query('SELECT @@innodb_buffer_pool_size AS size');
  const before = Number(row.size);
  if (before >= BUFFER_POOL) return async () => {};
  try {
    await admin.query(`SET GLOBAL innodb_buffer_pool_size = ${BUFFER_POOL}`);
  } catch (err) {
    log(`  innodb_buffer_pool_size is ${before >> 20} MB and could not be raised (${err.message}): filtered stats will read through the OS cache`);
    return async () => {};
  }
  log(`  innodb_buffer_pool_size ${before >> 20} MB → ${BUFFER_POOL >> 20} MB for this run (put back after)`);
  return async () => {
    await admin.query(`SET GLOBAL innodb_buffer_pool_size = ${before}`).catch(() => {});
  };
}

export async function seed(kind, env) {
  const { loadConfig } = await import(dist('config/config.js'));
  const { openDb } = await import(dist('db/client.js'));
  const { migrateToLatest } = await import(dist('db/migrate.js'));
  const { sql } = await import(pathToFileURL(path.join(root, 'node_modules/kysely/dist/esm/index.js')).href);
  const handle = await openDb(loadConfig({ SESSION_SECRET: 'x', ...env }));
  await migrateToLatest(handle);
  const now = Math.floor(Date.now() / 1000);
  const t0 = Date.now();
  let partitioned = false;
  try {
    partitioned = await partitionSeedDays(kind, handle, now, sql);
    await insertRows(kind, handle, now, sql);
    if (LARGE) {
      // Only the log's first pages are timed: no dashboard, so no export (it would take longer than
      // the seeding), and the server's export job is off so it does not run beside the timing.
      await handle.db.insertInto('options').values({ key: 'DataExportEnabled', value: 'false' }).execute();
    } else {
      // The dashboard's hourly table, as the export job leaves it (the server's start-up run then
      // only redoes the newest hours instead of working through the whole log while queries are timed).
      const { runQuotaDataExport } = await import(dist('jobs/quota-data.job.js'));
      const t1 = Date.now();
      const exported = await runQuotaDataExport({ options: { bool: () => true }, db: handle }, undefined, now);
      log(`  exported ${exported} quota_data rows in ${((Date.now() - t1) / 1000).toFixed(1)} s`);
      // Statistics on the tables the export just filled, as autovacuum / auto-analyze would gather
      // on a running site (without them PostgreSQL plans the dashboard for 9 rows, not 14 400).
      const analyze = { mysql: ['ANALYZE TABLE quota_data, quota_data_models'], sqlite: ['ANALYZE'], postgres: ['ANALYZE quota_data', 'ANALYZE quota_data_models'] }[kind];
      for (const statement of analyze) await sql.raw(statement).execute(handle.db);
    }
  } finally {
    // Before anything drops the database: a live pool would die with an unhandled error.
    await handle.destroy();
  }
  log(`  seeded ${ROWS} rows in ${((Date.now() - t0) / 1000).toFixed(1)} s${partitioned ? ` into ${DAYS + 1} day partitions` : ''}`);
  return { now, partitioned };
}

/**
 * A partitioned log made by migration 0016 holds everything before this month in one history
 * partition; a site that has run for a month has a partition per day. The seeded span gets them.
 */
async function partitionSeedDays(kind, handle, now, sql) {
  const { listLogPartitions, createPartitions, monthStart } = await import(dist('db/log-partitions.js'));
  if (!(await listLogPartitions(handle))) return false;
  const day = 86_400;
  const first = Math.floor((now - DAYS * day) / day) * day;
  const cut = monthStart(now);
  const days = [];
  for (let t = first; t < cut; t += day) days.push({ name: `${kind === 'postgres' ? 'logs_p' : 'p'}${new Date(t * 1000).toISOString().slice(0, 10).replaceAll('-', '')}`, start: t, end: t + day });
  if (!days.length) return true;
  if (kind === 'postgres') {
    await sql.raw('DROP TABLE logs_p_past').execute(handle.db);
    await sql.raw(`CREATE TABLE logs_p_past PARTITION OF logs FOR VALUES FROM (MINVALUE) TO (${first})`).execute(handle.db);
    await createPartitions(handle.db, kind, days);
  } else {
    const defs = [`PARTITION p_past VALUES LESS THAN (${first})`, ...days.map((d) => `PARTITION ${d.name} VALUES LESS THAN (${d.end})`)];
    await sql.raw(`ALTER TABLE logs REORGANIZE PARTITION p_past INTO (${defs.join(', ')})`).execute(handle.db);
  }
  return true;
}

/** Drops the oldest seeded day as LogRetentionDays would: its time, rows and size on disk. */
async function dropOneDay(kind, env, now) {
  const { loadConfig } = await import(dist('config/config.js'));
  const { openDb } = await import(dist('db/client.js'));
  const { listLogPartitions, dropLogPartitionsBefore } = await import(dist('db/log-partitions.js'));
  const { sql } = await import(pathToFileURL(path.join(root, 'node_modules/kysely/dist/esm/index.js')).href);
  const handle = await openDb(loadConfig({ SESSION_SECRET: 'x', ...env }));
  try {
    // The first full seeded day (the very first one is partial).
    const parts = (await listLogPartitions(handle)).filter((p) => p.from !== null && p.to !== null && p.from >= now - DAYS * 86_400);
    const target = parts[1] ?? parts[0];
    const size =
      kind === 'postgres'
        ? (await sql`SELECT pg_total_relation_size(${target.name}::regclass) AS b, (SELECT count(*) FROM ${sql.table(target.name)}) AS n`.execute(handle.db)).rows[0]
        : (await sql`SELECT DATA_LENGTH + INDEX_LENGTH AS b, (SELECT count(*) FROM logs PARTITION (${sql.id(target.name)})) AS n FROM information_schema.PARTITIONS WHERE TABLE_SCHEMA = DATABASE() AND TABLE_NAME = 'logs' AND PARTITION_NAME = ${target.name}`.execute(handle.db)).rows[0];
    // Everything before the target's end: the partial first day goes too, then the timed drop is the target alone.
    if (parts[1]) await dropLogPartitionsBefore(handle, parts[0].to);
    const t0 = process.hrtime.bigint();
    const { dropped } = await dropLogPartitionsBefore(handle, target.to);
    const ms = Number(process.hrtime.bigint() - t0) / 1e6;
    return { name: dropped.join(','), rows: Number(size.n), mb: Number(size.b) / 1048576, ms };
  } finally {
    await handle.destroy();
  }
}

async function insertRows(kind, handle, now, sql) {
  if (kind === 'mysql') {
    // MySQL has no generate_series and no `||`, and caps recursive CTEs (1000 levels on MariaDB):
    // the row numbers are a cross join of digit tables.
    const cat = (a, b) => `CONCAT(${a}, ${b})`;
    const cols = COLUMNS.replace('"group"', '`group`');
    const digits = '(SELECT 0 AS d UNION ALL SELECT 1 UNION ALL SELECT 2 UNION ALL SELECT 3 UNION ALL SELECT 4 UNION ALL SELECT 5 UNION ALL SELECT 6 UNION ALL SELECT 7 UNION ALL SELECT 8 UNION ALL SELECT 9)';
    const places = Math.max(1, Math.ceil(Math.log10(ROWS)));
    const numbers = `SELECT ${Array.from({ length: places }, (_, k) => `d${k}.d * ${10 ** k}`).join(' + ')} AS i FROM ${Array.from({ length: places }, (_, k) => `${digits} AS d${k}`).join(' CROSS JOIN ')}`;
    await sql.raw(`INSERT INTO logs (${cols}) ${seedSelect(now, cat)} FROM (${numbers}) AS s WHERE i < ${ROWS}`).execute(handle.db);
    await sql.raw('ANALYZE TABLE logs').execute(handle.db);
  } else if (kind === 'sqlite') {
    const cat = (a, b) => `${a} || ${b}`;
    handle.sqlite.exec(`WITH RECURSIVE s(i) AS (SELECT 0 UNION ALL SELECT i + 1 FROM s WHERE i < ${ROWS - 1})
      INSERT INTO logs (${COLUMNS}) ${seedSelect(now, cat)} FROM s`);
    handle.sqlite.exec('ANALYZE');
  } else {
    const cat = (a, b) => `${a} || ${b}::text`;
    await sql.raw(`INSERT INTO logs (${COLUMNS}) ${seedSelect(now, cat)} FROM generate_series(0::bigint, ${ROWS - 1}) AS i`).execute(handle.db);
    // What autovacuum does to a table that has taken inserts (PostgreSQL ≥ 13 vacuums on inserts
    // alone): statistics, and the visibility map, without which a stat's index-only scan
    // (the log indexes include quota, migration 0017) still reads every row's heap page.
    await sql.raw('VACUUM ANALYZE logs').execute(handle.db);
  }
}

function queries(now, partitioned) {
  const day = `start_timestamp=${now - 86400}&end_timestamp=${now}`;
  const week = `start_timestamp=${now - 7 * 86400}&end_timestamp=${now}`;
  const empty = 'username=&token_name=&model_name=&channel=&group=';
  const firstPages = [
    // What the log screen asks for when it opens (every type, 10 a page, today's window), over a
    // whole day so the figure does not depend on the hour the bench runs.
    ['first page (24 h, all types, 10/page)', `/api/log/?p=1&page_size=10&type=0&${day}&${empty}`],
    ['first page, 100/page', `/api/log/?p=1&page_size=100&type=0&${day}&${empty}`],
    ['first page, own log', `/api/log/self?p=1&page_size=10&type=0&${day}&token_name=&model_name=&group=`],
  ];
  if (LARGE && !partitioned) return firstPages;
  const lists = [
    ['admin list, 1 day, consume, 100/page', `/api/log/?p=1&page_size=100&type=2&${day}&${empty}`],
    ['admin list, 7 days, username', `/api/log/?p=1&page_size=10&type=0&${week}&username=user42&token_name=&model_name=&channel=&group=`],
    ['admin list, 7 days, model', `/api/log/?p=1&page_size=10&type=2&${week}&username=&token_name=&model_name=model-7&channel=&group=`],
    ['admin list, 1 day, token name', `/api/log/?p=1&page_size=10&type=0&${day}&username=&token_name=token3&model_name=&channel=&group=`],
    ['admin list, 1 day, channel', `/api/log/?p=1&page_size=10&type=0&${day}&username=&token_name=&model_name=&channel=4&group=`],
    ['admin list, 7 days, channel', `/api/log/?p=1&page_size=10&type=0&${week}&username=&token_name=&model_name=&channel=4&group=`],
    ['admin list, 30 days, all', `/api/log/?p=1&page_size=10&type=0&start_timestamp=${now - 30 * 86400}&end_timestamp=${now}&${empty}`],
    ['admin stat, 1 day', `/api/log/stat?type=0&${day}&${empty}`],
    ['admin stat, 7 days, username', `/api/log/stat?type=0&${week}&username=user42&token_name=&model_name=&channel=&group=`],
    ['admin stat, 7 days, model', `/api/log/stat?type=0&${week}&username=&token_name=&model_name=model-7&channel=&group=`],
    ['self list, 7 days', `/api/log/self?p=1&page_size=10&type=0&${week}&token_name=&model_name=&group=`],
    ['self stat, 7 days', `/api/log/self/stat?type=0&${week}&token_name=&model_name=&group=`],
  ];
  // The dashboard reads the hourly export, which is not made for a large seed.
  if (LARGE) return [...firstPages, ...lists];
  return [
    ...firstPages,
    ...lists,
    // The data dashboard (quota_data, hourly per user and model).
    // The all-users answer is kept a minute per range of hours (quota-data.repository.ts): the
    // first row is a dashboard opened again, the second asks a new range each call (never kept).
    ['dashboard, 90 days, all users', `/api/data/?start_timestamp=${now - 90 * 86400}&end_timestamp=${now}&username=`],
    ['dashboard, 90 days, all users, uncached', (i) => `/api/data/?start_timestamp=${now - 90 * 86400 - i * 3600}&end_timestamp=${now}&username=`],
    ['dashboard, 90 days, one user', `/api/data/?start_timestamp=${now - 90 * 86400}&end_timestamp=${now}&username=user42`],
    ['dashboard, own, 30 days', `/api/data/self?start_timestamp=${now - 30 * 86400}&end_timestamp=${now}`],
  ];
}

async function timeQueries(kind, env) {
  const { now, partitioned } = await seed(kind, env);
  const dir = env.SQLITE_PATH ? path.dirname(env.SQLITE_PATH) : undefined;
  const mg = await spawnModelGate(env, dir);
  const headers = await rootSession(mg.url);
  const rows = [];
  for (const [name, q] of queries(now, partitioned)) {
    const samples = [];
    for (let i = 0; i < N + 3; i++) {
      const t0 = process.hrtime.bigint();
      const res = await fetch(`${mg.url}${typeof q === 'function' ? q(i) : q}`, { headers });
      const body = await res.json();
      if (!body.success) throw new Error(`${name}: ${body.message}`);
      if (i >= 3) samples.push(Number(process.hrtime.bigint() - t0) / 1e6);
    }
    samples.sort((a, b) => a - b);
    rows.push([name, pct(samples, 50), pct(samples, 95)]);
  }
  mg.child.kill('SIGTERM');
  await new Promise((r) => mg.child.once('exit', r));
  if (partitioned) {
    const d = await dropOneDay(kind, env, now);
    log(`  retention: dropped partition ${d.name} (${d.rows} rows, ${f(d.mb, 1)} MB with its indexes) in ${f(d.ms, 1)} ms`);
    rows.push([`retention: drop one day (${d.rows} rows)`, d.ms, d.ms, 1000]);
  }
  return rows;
}

export async function runLogQueries() {
  const results = [];
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'modelgate-logbench-'));
  try {
    if (DBS.includes('sqlite')) {
      log(`\nlog queries on ${ROWS} rows (SQLite)…`);
      results.push(['sqlite', await timeQueries('sqlite', { SQLITE_PATH: path.join(dir, 'logs.db') })]);
    }
    if (process.env.TEST_PG_URL && DBS.includes('postgres')) {
      const pg = (await import('pg')).default;
      const name = `mg_logbench_${Date.now().toString(36)}`;
      const admin = new pg.Client({ connectionString: process.env.TEST_PG_URL });
      await admin.connect();
      await admin.query(`CREATE DATABASE ${name}`);
      const url = new URL(process.env.TEST_PG_URL);
      url.pathname = `/${name}`;
      try {
        log(`log queries on ${ROWS} rows (PostgreSQL)…`);
        results.push(['postgres', await timeQueries('postgres', { SQL_DSN: url.toString() })]);
      } finally {
        await admin.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
        await admin.end();
      }
    }
    if (process.env.TEST_MYSQL_URL && DBS.includes('mysql')) {
      const mysql = await import('mysql2/promise');
      const name = `mg_logbench_${Date.now().toString(36)}`;
      const admin = await mysql.createConnection(process.env.TEST_MYSQL_URL);
      await admin.query(`CREATE DATABASE ${name}`);
      const url = new URL(process.env.TEST_MYSQL_URL);
      url.pathname = `/${name}`;
      const restorePool = await sizeBufferPool(admin);
      try {
        log(`log queries on ${ROWS} rows (MySQL)…`);
        results.push(['mysql', await timeQueries('mysql', { SQL_DSN: url.toString() })]);
      } finally {
        await admin.query(`DROP DATABASE IF EXISTS ${name}`);
        await restorePool();
        await admin.end();
      }
    }
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
  log('');
  log(`${'query'.padEnd(44)}${'db'.padStart(10)}${'p50 ms'.padStart(10)}${'p95 ms'.padStart(10)}  budget p95 ≤ 100 (a drop ≤ 1000)`);
  let worst = 0;
  for (const [db, rows] of results) {
    for (const [name, p50, p95, budget = 100] of rows) {
      if (budget === 100) worst = Math.max(worst, p95);
      log(`${name.padEnd(44)}${db.padStart(10)}${f(p50, 1).padStart(10)}${f(p95, 1).padStart(10)}  ${p95 <= budget ? 'ok' : 'MISSED'}`);
    }
  }
  return worst;
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  if (!process.argv.includes('--no-build')) build();
  runLogQueries()
    .then(() => {
      killAll();
      process.exit(0);
    })
    .catch((err) => {
      console.error(err);
      process.exit(1);
    });
}
