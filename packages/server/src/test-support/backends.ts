import type { Redis } from 'ioredis';
import type { SqlKind } from '../config/config.js';
import { loadConfig } from '../config/config.js';
import { openDb, type Db } from '../db/client.js';
import { migrateToLatest } from '../db/migrate.js';
import { connectRedis } from '../http/redis-rate-limit.js';
import { createTestDatabase, testDbKinds, type TestDatabase } from './test-db.js';

/** Where shared state can live: each test database kind, plus Redis when TEST_REDIS_URL is set. */
export type Backend = { name: string; kind: SqlKind } | { name: 'redis'; kind: 'redis' };

export function testBackends(): Backend[] {
  const out: Backend[] = testDbKinds().map((kind) => ({ name: kind, kind }));
  if (process.env.TEST_REDIS_URL) out.push({ name: 'redis', kind: 'redis' });
  return out;
}

export interface OpenBackend {
  db?: Db;
  /** A fresh Redis connection per call (one per simulated node). */
  redis(): Promise<Redis>;
  close(): Promise<void>;
}

/** A migrated fresh database, or Redis connections, for one backend. */
export async function openBackend(b: Backend): Promise<OpenBackend> {
  if (b.kind === 'redis') {
    const conns: Redis[] = [];
    return {
      async redis() {
        const r = await connectRedis(process.env.TEST_REDIS_URL!);
        conns.push(r);
        return r;
      },
      async close() {
        for (const r of conns) r.disconnect();
      },
    };
  }
  const database: TestDatabase = await createTestDatabase(b.kind);
  const db = await openDb(loadConfig(database.env));
  await migrateToLatest(db);
  return {
    db,
    redis: () => Promise.reject(new Error('not a Redis backend')),
    async close() {
      await db.destroy();
      await database.drop();
    },
  };
}
