import type { FastifyInstance } from 'fastify';
import { sql } from 'kysely';
import type { AppContext } from '../../context.js';
import { pendingMigrations } from '../../db/migrate.js';

/** The part of the application context this file uses. */
type Deps = Pick<AppContext, 'db' | 'cluster' | 'version' | 'config' | 'relay'>;

type CheckState = 'ok' | 'off' | string;

/** How long a readiness probe waits for each dependency before calling it down. */
const CHECK_TIMEOUT_MS = 2000;

function withTimeout<T>(p: Promise<T>, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`${what} did not answer within ${CHECK_TIMEOUT_MS} ms`)), CHECK_TIMEOUT_MS);
  });
  return Promise.race([p, timeout]).finally(() => clearTimeout(timer));
}

function problem(err: unknown): string {
  const e = err as { code?: unknown; message?: unknown };
  // A driver's code (ECONNREFUSED, 57P01) or its first line: enough for an operator, no secrets.
  const text = typeof e.code === 'string' ? e.code : String(e.message ?? err).split('\n')[0]!;
  return text.slice(0, 200);
}

/**
 * Probes for orchestrators and load balancers (docs/deployment.md#health). `/healthz`: the process
 * answers. `/readyz`: this node can serve — 200 `ready` when the database, Redis (when configured)
 * and the schema are all fine; 200 `degraded` when the database or Redis is away but the node keeps
 * relaying (DB_OUTAGE_MODE=serve: from its caches, charges spooled — docs/reliability.md); 503
 * `unavailable` with pending migrations or, under DB_OUTAGE_MODE=refuse, without a database.
 * Neither needs a session, and neither is rate-limited, so a probe never locks out a user.
 */
export function healthRoutes(app: FastifyInstance, ctx: Deps): void {
  app.get('/healthz', async (_req, reply) => {
    return reply.header('Cache-Control', 'no-store').send({ status: 'ok', version: ctx.version, node: ctx.config.nodeId });
  });

  app.get('/readyz', async (_req, reply) => {
    const checks: Record<'database' | 'migrations' | 'redis', CheckState> = { database: 'ok', migrations: 'ok', redis: 'off' };
    try {
      await withTimeout(sql`select 1`.execute(ctx.db.db), 'the database');
      const pending = await withTimeout(pendingMigrations(ctx.db), 'the database');
      if (pending.length) checks.migrations = `pending: ${pending.join(', ')}`;
    } catch (err) {
      checks.database = problem(err);
      checks.migrations = 'unknown';
    }
    const redis = ctx.cluster.redis;
    if (redis) {
      try {
        await withTimeout(redis.ping(), 'Redis');
        checks.redis = 'ok';
      } catch (err) {
        checks.redis = problem(err);
      }
    }
    const outage = ctx.relay.ledger.outage;
    const spooled = outage?.spool.size ?? 0;
    const dbDown = checks.database !== 'ok';
    let status: 'ready' | 'degraded' | 'unavailable' = 'ready';
    if (dbDown) status = outage?.config.mode === 'serve' ? 'degraded' : 'unavailable';
    else if (checks.migrations !== 'ok') status = 'unavailable';
    else if (checks.redis !== 'ok' && checks.redis !== 'off') status = 'degraded';
    return reply
      .code(status === 'unavailable' ? 503 : 200)
      .header('Cache-Control', 'no-store')
      .send({ status, checks, ...(spooled ? { spooled } : {}) });
  });
}
