import type { FastifyInstance } from 'fastify';
import type { AddressInfo } from 'node:net';
import { buildApp } from '../app.js';
import { loadConfig, type SqlKind } from '../config/config.js';
import type { AppContext } from '../context.js';
import { createContext } from '../create-context.js';
import { openDb } from '../db/client.js';
import { migrateToLatest } from '../db/migrate.js';
import { formatReconciliation, reconcile } from '../ledger/reconcile.js';
import { connectRedis } from '../http/redis-rate-limit.js';
import { createTestDatabase } from './test-db.js';

export interface TestServer {
  url: string;
  ctx: AppContext;
  app: FastifyInstance;
  close(): Promise<void>;
}

/**
 * A real ModelGate server on loopback over a fresh database: the same boot steps as main.ts
 * (migrate, options, root), listening on a random port. Rate limits are off unless `env` turns them on.
 */
export async function startTestServer(opts: { kind?: SqlKind; env?: Record<string, string> } = {}): Promise<TestServer> {
  const database = await createTestDatabase(opts.kind ?? 'sqlite');
  const config = loadConfig({
    SESSION_SECRET: 'test-secret',
    GLOBAL_API_RATE_LIMIT_ENABLE: 'false',
    GLOBAL_WEB_RATE_LIMIT_ENABLE: 'false',
    CRITICAL_RATE_LIMIT_ENABLE: 'false',
    PORT: '0',
    WEB_DIST_DIR: '/nonexistent-modelgate-web',
    ...database.env,
    ...opts.env,
  });
  const db = await openDb(config);
  await migrateToLatest(db);
  // REDIS_CONN_STRING in `env`: the shared store, job locks and invalidation use Redis, as in main.ts.
  const redis = config.redisConnString ? await connectRedis(config.redisConnString) : null;
  const ctx = createContext(config, db, { redis });
  await ctx.cluster.start();
  await ctx.options.reload();
  await ctx.usersService.ensureRoot();
  // Every answer is checked against its route's response schema; a mismatch fails the test file.
  const mismatches: string[] = [];
  const app = await buildApp(ctx, { checkResponses: true, onResponseMismatch: (m) => mismatches.push(m) });
  await app.listen({ port: 0, host: '127.0.0.1' });
  const { port } = app.server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    ctx,
    app,
    async close() {
      await app.close();
      try {
        if (mismatches.length) throw new Error(`answers that do not match their response schema:\n${mismatches.join('\n\n')}`);
        // Money is exact after every test file: each balance is what the ledger says it is.
        const r = await reconcile(db.db);
        if (!r.ok) throw new Error(`the ledger does not reconcile after this test:\n${formatReconciliation(r).join('\n')}`);
      } finally {
        await ctx.cluster.close();
        redis?.disconnect();
        await db.destroy();
        await database.drop();
      }
    },
  };
}
