import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../config/config.js';
import { openDb, type Db } from '../db/client.js';
import { createTestDatabase, TEST_POOL_SIZE, testDbKinds, type TestDatabase } from './test-db.js';

const networked = testDbKinds().filter((kind) => kind !== 'sqlite');
const closers: Array<() => Promise<void>> = [];

/** Connections currently open to `name`, seen from a separate admin connection. */
async function connectionsTo(kind: 'postgres' | 'mysql', name: string): Promise<() => Promise<number>> {
  if (kind === 'postgres') {
    const pg = await import('pg');
    const admin = new pg.default.Client({ connectionString: process.env.TEST_PG_URL });
    await admin.connect();
    closers.push(() => admin.end());
    return async () => (await admin.query('SELECT count(*)::int AS n FROM pg_stat_activity WHERE datname = $1', [name])).rows[0].n as number;
  }
  const mysql = await import('mysql2/promise');
  const admin = await mysql.createConnection(process.env.TEST_MYSQL_URL!);
  closers.push(() => admin.end());
  return async () => {
    const [rows] = await admin.query('SELECT count(*) AS n FROM information_schema.processlist WHERE db = ?', [name]);
    return Number((rows as Array<{ n: number }>)[0]!.n);
  };
}
// A parallel run once held over 100 connections on a PostgreSQL with max_connections=100 (pools
// of 50 per test server): every test database now caps its pools at TEST_POOL_SIZE.
// describe.each needs one case even when the suite is skipped (SQLite-only runs).
describe.skipIf(!networked.length).each(networked.length ? networked : (['postgres'] as const))('test databases on %s', (kind) => {
  let database: TestDatabase;
  let handle: Db;

  beforeAll(async () => {
    database = await createTestDatabase(kind);
    handle = await openDb(loadConfig(database.env));
  });
  afterAll(async () => {
    for (const close of closers.splice(0)) await close();
    await handle?.destroy();
    await database?.drop();
  });

  it(`hold at most ${TEST_POOL_SIZE} connections however many queries run at once`, async () => {
    const name = new URL(database.env.SQL_DSN!).pathname.slice(1);
    const count = await connectionsTo(kind as 'postgres' | 'mysql', name);
    const sleep = kind === 'postgres' ? sql`SELECT pg_sleep(0.1)` : sql`SELECT SLEEP(0.1)`;
    let done = false;
    let peak = 0;
    const queries = Promise.all(Array.from({ length: 24 }, () => sleep.execute(handle.db))).finally(() => (done = true));
    while (!done) {
      peak = Math.max(peak, await count());
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    await queries;
    expect(peak).toBeGreaterThan(1);
    expect(peak).toBeLessThanOrEqual(TEST_POOL_SIZE);
  });
});
