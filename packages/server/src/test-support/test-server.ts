import type { FastifyInstance, RouteOptions } from 'fastify';
import fs from 'node:fs';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { buildApp } from '../app.js';
import { loadConfig, type SqlKind } from '../config/config.js';
import type { AppContext } from '../context.js';
import { createContext } from '../create-context.js';
import { sealSecretsAtBoot } from '../crypto/reseal.js';
import { openDb, openLogDb } from '../db/client.js';
import { migrateToLatest } from '../db/migrate.js';
import { formatReconciliation, reconcile } from '../ledger/reconcile.js';
import { connectRedis } from '../http/redis-rate-limit.js';
import { createLogger, type Logger } from '../log/logger.js';
import { loadProviders } from '../relay/adapters/registry.js';
import { createTestDatabase, type TestDatabase } from './test-db.js';

/**
 * The fast tier (`npm run test:fast`) boots no ModelGate server: a test file that does is named
 * `*.api.test.ts`, which that tier leaves out. Called by every helper that starts one.
 */
export function refuseInFastTier(what: string): void {
  if (process.env.MODELGATE_TEST_TIER === 'fast') {
    throw new Error(`${what} boots a ModelGate server, which the fast tier does not: name this test file *.api.test.ts`);
  }
}

export interface TestServer {
  url: string;
  ctx: AppContext;
  app: FastifyInstance;
  /** The database it runs on (a second node can be started `alongside` it). */
  database: TestDatabase;
  /** Every route the app registered, in order (HEAD routes included), with its options. */
  routes: RouteOptions[];
  close(): Promise<void>;
}

/**
 * A real ModelGate server on loopback over a fresh database: the same boot steps as main.ts
 * (migrate, options, root), listening on a random port. Rate limits are off unless `env` turns them on.
 */
/**
 * `log`: the process logger (default: silent, or TEST_LOG_LEVEL to watch a run). A test that asserts
 * on log lines passes its own. `databaseEnv` rewrites the fresh database's settings (e.g. to reach it
 * through a proxy the test can cut). `database`: an existing test database (one a test filled, e.g.
 * by an import) instead of a fresh one; the server takes it over and drops it on close. `alongside`:
 * another test server whose database this one shares (two nodes over one database); that server
 * drops it, so close this one first. `logKind`: a separate log database of that kind (LOG_SQL_DSN),
 * fresh and dropped on close; `logDsn` rewrites its DSN (e.g. through a proxy the test can cut).
 */
export async function startTestServer(
  opts: {
    kind?: SqlKind;
    env?: Record<string, string>;
    log?: Logger;
    databaseEnv?: (env: Record<string, string>) => Record<string, string>;
    database?: TestDatabase;
    alongside?: TestServer;
    logKind?: Exclude<SqlKind, 'sqlite'>;
    logDsn?: (dsn: string) => string;
  } = {},
): Promise<TestServer> {
  refuseInFastTier('startTestServer');
  const database = opts.alongside?.database ?? opts.database ?? (await createTestDatabase(opts.kind ?? 'sqlite'));
  const logDatabase = opts.logKind ? await createTestDatabase(opts.logKind) : undefined;
  const logDsn = logDatabase ? (opts.logDsn ?? String)(logDatabase.env.SQL_DSN!) : undefined;
  const spoolDir = fs.mkdtempSync(path.join(os.tmpdir(), 'mg-spool-'));
  const config = loadConfig({
    SESSION_SECRET: 'test-secret',
    GLOBAL_API_RATE_LIMIT_ENABLE: 'false',
    GLOBAL_API_USER_RATE_LIMIT_ENABLE: 'false',
    // Fixtures sign up with simple passwords (password123); the check has its own tests.
    REJECT_COMMON_PASSWORDS: 'false',
    GLOBAL_WEB_RATE_LIMIT_ENABLE: 'false',
    CRITICAL_RATE_LIMIT_ENABLE: 'false',
    // No lag shedding unless a test turns it on (relay.overload): the server shares its event loop
    // with the test's own synchronous work (schema compiles, SDK set-up) and with a busy machine's
    // other test files, whose pauses are not the overload the guard is for.
    RELAY_MAX_EVENT_LOOP_LAG_MS: '0',
    PORT: '0',
    WEB_DIST_DIR: '/nonexistent-modelgate-web',
    ...(opts.databaseEnv ? opts.databaseEnv(database.env) : database.env),
    ...(logDsn ? { LOG_SQL_DSN: logDsn } : {}),
    // Each server its own outage spool: one left by another test must never be replayed here.
    SPOOL_DIR: spoolDir,
    ...opts.env,
  });
  const log = opts.log ?? createLogger(process.env.TEST_LOG_LEVEL ?? 'silent');
  const db = await openDb(config, { log });
  await migrateToLatest(db);
  const logDb = await openLogDb(config, { log });
  if (logDb) await migrateToLatest(logDb);
  // REDIS_CONN_STRING in `env`: the shared store, job locks and invalidation use Redis, as in main.ts.
  const redis = config.redisConnString ? await connectRedis(config.redisConnString, { log }) : null;
  const ctx = createContext(config, db, { redis, log, logDb });
  await sealSecretsAtBoot(db, ctx.secrets, log);
  await ctx.cluster.start();
  await ctx.options.reload();
  await ctx.usersService.ensureRoot();
  // Every answer is checked against its route's response schema; a mismatch fails the test file.
  const mismatches: string[] = [];
  const routes: RouteOptions[] = [];
  // The provider folders register their adapters and formats before the first request (main.ts does the same).
  await loadProviders();
  const app = await buildApp(ctx, { checkResponses: true, onResponseMismatch: (m) => mismatches.push(m), onRoute: (r) => routes.push(r) });
  await app.listen({ port: 0, host: '127.0.0.1' });
  const { port } = app.server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    ctx,
    app,
    database,
    routes,
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
        await logDb?.destroy();
        await logDatabase?.drop();
        if (!opts.alongside) await database.drop();
        fs.rmSync(spoolDir, { recursive: true, force: true });
      }
    },
  };
}
