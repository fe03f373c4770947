import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll } from 'vitest';
import { loadConfig, type SqlKind } from '../config/config.js';
import { openDb, type Db } from '../db/client.js';
import { migrateToLatest } from '../db/migrate.js';

/**
 * Databases the data-layer and API suites run on: SQLite always; PostgreSQL and MySQL when
 * TEST_PG_URL / TEST_MYSQL_URL point at a server (CI sets both).
 */
export function testDbKinds(): SqlKind[] {
  const kinds: SqlKind[] = ['sqlite'];
  if (process.env.TEST_PG_URL) kinds.push('postgres');
  if (process.env.TEST_MYSQL_URL) kinds.push('mysql');
  return kinds;
}

/**
 * Connections one server (or one openDb) may hold in a test database. Production's default of 50 per
 * process let a parallel run exhaust a PostgreSQL shared with other clients (max_connections=100):
 * the budget is workers (root vitest.config.ts, at most 4) × servers alive at once in a file (up
 * to 3: a two-node cluster plus a direct handle) × this pool, which stays well under 60.
 */
export const TEST_POOL_SIZE = 4;

export interface TestDatabase {
  env: Record<string, string>;
  drop(): Promise<void>;
}

/** A fresh, empty database of the given kind; `drop()` removes it. */
export async function createTestDatabase(kind: SqlKind): Promise<TestDatabase> {
  const name = `mg_test_${Date.now().toString(36)}_${randomBytes(3).toString('hex')}`;
  if (kind === 'sqlite') {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'modelgate-test-'));
    return {
      env: { SQLITE_PATH: path.join(dir, 'test.db') },
      drop: async () => fs.rmSync(dir, { recursive: true, force: true }),
    };
  }
  if (kind === 'postgres') {
    const pg = await import('pg');
    const admin = new pg.default.Client({ connectionString: process.env.TEST_PG_URL });
    await admin.connect();
    await admin.query(`CREATE DATABASE ${name}`);
    await admin.end();
    const url = new URL(process.env.TEST_PG_URL!);
    url.pathname = `/${name}`;
    return {
      env: { SQL_DSN: url.toString(), SQL_MAX_OPEN_CONNS: String(TEST_POOL_SIZE) },
      drop: async () => {
        const c = new pg.default.Client({ connectionString: process.env.TEST_PG_URL });
        await c.connect();
        // pg-pool's end() resolves before its clients' sockets have closed; a FORCE drop at that
        // moment kills them with 57P01, which the pool re-emits as an unhandled 'error'. Give
        // them a moment to leave, and force only what is still connected after that.
        for (let i = 0; i < 20; i++) {
          const r = await c.query('SELECT count(*)::int AS n FROM pg_stat_activity WHERE datname = $1', [name]);
          if (r.rows[0].n === 0) break;
          await new Promise((resolve) => setTimeout(resolve, 50));
        }
        await c.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
        await c.end();
      },
    };
  }
  const mysql = await import('mysql2/promise');
  const conn = await mysql.createConnection(process.env.TEST_MYSQL_URL!);
  await conn.query(`CREATE DATABASE ${name} CHARACTER SET utf8mb4 COLLATE utf8mb4_bin`);
  await conn.end();
  const url = new URL(process.env.TEST_MYSQL_URL!);
  url.pathname = `/${name}`;
  return {
    env: { SQL_DSN: url.toString(), SQL_MAX_OPEN_CONNS: String(TEST_POOL_SIZE) },
    drop: async () => {
      const c = await mysql.createConnection(process.env.TEST_MYSQL_URL!);
      await c.query(`DROP DATABASE IF EXISTS ${name}`);
      await c.end();
    },
  };
}

/**
 * For a describe block: a fresh database of `kind`, migrated and open before its tests, closed and
 * dropped after them. Returns the open handle's getter.
 */
export function useMigratedDb(kind: SqlKind): () => Db {
  let database: TestDatabase | undefined;
  let handle: Db | undefined;
  beforeAll(async () => {
    database = await createTestDatabase(kind);
    handle = await openDb(loadConfig(database.env));
    await migrateToLatest(handle);
  });
  afterAll(async () => {
    await handle?.destroy();
    await database?.drop();
  });
  return () => handle!;
}
